// vLLM v1 metric names (vllm/v1/metrics/loggers.py) for the sim server's /metrics.
import { promKit } from './prom.js';
import type { FlavorContext, SimObservations } from './metrics-flavors.js';

// Bucket boundaries as in vLLM's metrics module.
const TTFT_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640, 2560];
const ITL_BUCKETS = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80];
const REQUEST_BUCKETS = [0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920, 7680];
// vLLM's build_1_2_5_buckets up to max_model_len; a fixed range here.
const TOKEN_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000];

export function vllmFlavor(ctx: FlavorContext): SimObservations {
  const k = promKit(ctx.registry, { model_name: ctx.modelName, engine: '0' }, ctx.counters);
  const l = k.labels;
  k.gauge('vllm:num_requests_running', 'Number of requests in model execution batches.', (c) => c.running);
  k.gauge('vllm:num_requests_waiting', 'Number of requests waiting to be processed.', (c) => c.waiting);
  k.gauge('vllm:kv_cache_usage_perc', 'KV-cache usage. 1 means 100 percent usage.', (c) => c.kvUsage);
  k.mirrored('vllm:prefix_cache_queries_total', 'Prefix cache queries, in terms of number of queried tokens.', (c) => c.prefixQueriesTokens);
  k.mirrored('vllm:prefix_cache_hits_total', 'Prefix cache hits, in terms of number of cached tokens.', (c) => c.prefixHitsTokens);
  k.mirrored('vllm:num_preemptions_total', 'Cumulative number of preemption from the engine.', (c) => c.preemptions);
  k.mirrored('vllm:mm_cache_queries_total', 'Multi-modal cache queries, in terms of number of queried items.', (c) => c.mmCacheQueries);
  k.mirrored('vllm:mm_cache_hits_total', 'Multi-modal cache hits, in terms of number of cached items.', (c) => c.mmCacheHits);
  k.mirrored('vllm:prompt_tokens_total', 'Number of prefill tokens processed.', (c) => c.promptTokens);
  k.mirrored('vllm:generation_tokens_total', 'Number of generation tokens processed.', (c) => c.generationTokens);
  if (ctx.specDecode) {
    k.mirrored('vllm:spec_decode_num_drafts_total', 'Number of spec decoding drafts.', (c) => c.specDrafts);
    k.mirrored('vllm:spec_decode_num_draft_tokens_total', 'Number of draft tokens.', (c) => c.specDraftTokens);
    k.mirrored('vllm:spec_decode_num_accepted_tokens_total', 'Number of accepted tokens.', (c) => c.specAcceptedTokens);
  }

  const success = k.counter('vllm:request_success_total', 'Count of successfully processed requests.', ['finished_reason']);
  for (const reason of ['stop', 'length', 'abort']) success.inc({ ...l, finished_reason: reason }, 0);
  const ttft = k.hist('vllm:time_to_first_token_seconds', 'Histogram of time to first token in seconds.', TTFT_BUCKETS);
  const itl = k.hist('vllm:inter_token_latency_seconds', 'Histogram of inter-token latency in seconds.', ITL_BUCKETS);
  const tpot = k.hist('vllm:time_per_output_token_seconds', 'Histogram of time per output token in seconds.', ITL_BUCKETS);
  const reqTpot = k.hist('vllm:request_time_per_output_token_seconds', 'Histogram of time_per_output_token_seconds per request.', ITL_BUCKETS);
  const queue = k.hist('vllm:request_queue_time_seconds', 'Histogram of time spent in WAITING phase for request.', REQUEST_BUCKETS);
  const prefill = k.hist('vllm:request_prefill_time_seconds', 'Histogram of time spent in PREFILL phase for request.', REQUEST_BUCKETS);
  const decode = k.hist('vllm:request_decode_time_seconds', 'Histogram of time spent in DECODE phase for request.', REQUEST_BUCKETS);
  const inference = k.hist('vllm:request_inference_time_seconds', 'Histogram of time spent in RUNNING phase for request.', REQUEST_BUCKETS);
  const e2e = k.hist('vllm:e2e_request_latency_seconds', 'Histogram of e2e request latency in seconds.', REQUEST_BUCKETS);
  const promptHist = k.hist('vllm:request_prompt_tokens', 'Number of prefill tokens processed.', TOKEN_BUCKETS);
  const genHist = k.hist('vllm:request_generation_tokens', 'Number of generation tokens processed.', TOKEN_BUCKETS);

  return {
    arrived() {},
    queued: (s) => queue.observe(l, s),
    firstToken(t, p) {
      ttft.observe(l, t);
      prefill.observe(l, p);
    },
    interToken(s) {
      itl.observe(l, s);
      tpot.observe(l, s);
    },
    finished(f) {
      success.inc({ ...l, finished_reason: f.reason });
      e2e.observe(l, f.e2eS);
      decode.observe(l, f.decodeS);
      inference.observe(l, f.inferenceS);
      promptHist.observe(l, f.promptTokens);
      genHist.observe(l, f.outputTokens);
      // decode time over the tokens after the first: vLLM's per-request TPOT.
      if (f.outputTokens > 1) reqTpot.observe(l, f.decodeS / (f.outputTokens - 1));
    },
    // vLLM v1 counts a request whose client disconnected as finished with reason abort.
    aborted: () => success.inc({ ...l, finished_reason: 'abort' }),
    step() {},
  };
}
