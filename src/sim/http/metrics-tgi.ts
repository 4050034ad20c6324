// Hugging Face TGI router metric names (docs/source/reference/metrics.md) for the sim server's /metrics.
import { promKit, exponentialBuckets } from './prom.js';
import type { FlavorContext, SimObservations } from './metrics-flavors.js';

// TGI's router records durations into exponential buckets (0.0001 s growing by 1.5×); token counts into wide ranges.
const DURATION_BUCKETS = exponentialBuckets(0.00015, 1.5, 35);
const TOKEN_BUCKETS = exponentialBuckets(1, 2, 18);
const BATCH_BUCKETS = exponentialBuckets(1, 2, 10);

export function tgiFlavor(ctx: FlavorContext): SimObservations {
  // TGI labels its series by nothing but `method` on the batch ones.
  const k = promKit(ctx.registry, {}, ctx.counters);
  k.gauge('tgi_queue_size', 'Current queue size', (c) => c.waiting);
  k.gauge('tgi_batch_current_size', 'Current batch size', (c) => c.running);
  k.gauge('tgi_batch_current_max_tokens', 'Maximum tokens for the current batch', (c) => Math.round(c.kvUsage * ctx.kvCapacityTokens));
  const count = k.counter('tgi_request_count', 'Total number of requests');
  const success = k.counter('tgi_request_success', 'Number of successful requests');
  const duration = k.hist('tgi_request_duration', 'Total time spent processing the request (e2e latency)', DURATION_BUCKETS);
  const queue = k.hist('tgi_request_queue_duration', 'Time spent in the queue per request', DURATION_BUCKETS);
  const inference = k.hist('tgi_request_inference_duration', 'Request inference duration', DURATION_BUCKETS);
  const perToken = k.hist('tgi_request_mean_time_per_token_duration', 'Mean time per token per request (inter-token latency)', DURATION_BUCKETS);
  const input = k.hist('tgi_request_input_length', 'Input token length per request', TOKEN_BUCKETS);
  const generated = k.hist('tgi_request_generated_tokens', 'Generated tokens per request', TOKEN_BUCKETS);
  const batchInference = k.hist('tgi_batch_inference_duration', 'Batch inference duration', DURATION_BUCKETS, ['method']);
  const batchForward = k.hist('tgi_batch_forward_duration', 'Batch forward duration per method (prefill or decode)', DURATION_BUCKETS, ['method']);
  const batchCount = k.counter('tgi_batch_inference_count', 'Inference calls per method (prefill or decode)', ['method']);
  const batchSuccess = k.counter('tgi_batch_inference_success', 'Number of successful inference calls per method (prefill or decode)', ['method']);
  const batchNext = k.hist('tgi_batch_next_size', 'Batch size of the next batch', BATCH_BUCKETS);
  for (const method of ['prefill', 'decode']) {
    batchInference.zero({ method });
    batchForward.zero({ method });
    batchCount.inc({ method }, 0);
    batchSuccess.inc({ method }, 0);
  }

  return {
    arrived(promptTokens) {
      count.inc();
      input.observe(promptTokens);
    },
    queued: (s) => queue.observe(s),
    firstToken() {},
    interToken() {},
    finished(f) {
      success.inc();
      duration.observe(f.e2eS);
      inference.observe(f.inferenceS);
      generated.observe(f.outputTokens);
      // TGI: (inference time − prefill time) / (generated − 1) when more than one token.
      if (f.outputTokens > 1) perToken.observe(f.decodeS / (f.outputTokens - 1));
    },
    step(s, method) {
      batchInference.observe({ method }, s);
      batchForward.observe({ method }, s);
      batchCount.inc({ method });
      batchSuccess.inc({ method });
      if (method === 'prefill') batchNext.observe(ctx.counters().running);
    },
  };
}
