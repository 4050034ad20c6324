// The sim server's /metrics: vLLM v1 metric names on a per-server prom-client Registry (times in simulated seconds).
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { EngineCounters } from '../engine/engine.js';

// Bucket boundaries as in vLLM's metrics module.
const TTFT_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640, 2560];
const ITL_BUCKETS = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80];
const REQUEST_BUCKETS = [0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920, 7680];

export interface SimMetrics {
  registry: Registry;
  /** Per-request observations, all in seconds of simulated time. */
  queued(queueSeconds: number): void;
  firstToken(ttftSeconds: number, prefillSeconds: number): void;
  interToken(seconds: number): void;
  finished(reason: 'length' | 'stop' | 'abort', e2eSeconds: number, decodeSeconds: number): void;
  text(): Promise<string>;
}

export function createSimMetrics(modelName: string, counters: () => EngineCounters): SimMetrics {
  const registry = new Registry();
  const labelNames = ['model_name', 'engine'] as const;
  const labels = { model_name: modelName, engine: '0' };
  const gauge = (name: string, help: string, pick: (c: EngineCounters) => number): void => {
    new Gauge({
      name, help, labelNames, registers: [registry],
      collect() { this.set(labels, pick(counters())); },
    });
  };
  // Cumulative engine counters are mirrored by adding the increase since the last scrape.
  const mirrored = (name: string, help: string, pick: (c: EngineCounters) => number): void => {
    let last = 0;
    const counter = new Counter({
      name, help, labelNames, registers: [registry],
      collect() {
        const v = pick(counters());
        if (v > last) this.inc(labels, v - last);
        last = v;
      },
    });
    counter.inc(labels, 0);
  };
  gauge('vllm:num_requests_running', 'Number of requests in model execution batches.', (c) => c.running);
  gauge('vllm:num_requests_waiting', 'Number of requests waiting to be processed.', (c) => c.waiting);
  gauge('vllm:kv_cache_usage_perc', 'KV-cache usage. 1 means 100 percent usage.', (c) => c.kvUsage);
  mirrored('vllm:prefix_cache_queries_total', 'Prefix cache queries, in terms of number of queried tokens.', (c) => c.prefixQueriesTokens);
  mirrored('vllm:prefix_cache_hits_total', 'Prefix cache hits, in terms of number of cached tokens.', (c) => c.prefixHitsTokens);
  mirrored('vllm:num_preemptions_total', 'Cumulative number of preemption from the engine.', (c) => c.preemptions);
  mirrored('vllm:prompt_tokens_total', 'Number of prefill tokens processed.', (c) => c.promptTokens);
  mirrored('vllm:generation_tokens_total', 'Number of generation tokens processed.', (c) => c.generationTokens);

  const success = new Counter({ name: 'vllm:request_success_total', help: 'Count of successfully processed requests.', labelNames: [...labelNames, 'finished_reason'], registers: [registry] });
  const hist = (name: string, help: string, buckets: number[]) => new Histogram({ name, help, buckets, labelNames, registers: [registry] });
  const ttft = hist('vllm:time_to_first_token_seconds', 'Histogram of time to first token in seconds.', TTFT_BUCKETS);
  const itl = hist('vllm:inter_token_latency_seconds', 'Histogram of inter-token latency in seconds.', ITL_BUCKETS);
  const tpot = hist('vllm:time_per_output_token_seconds', 'Histogram of time per output token in seconds.', ITL_BUCKETS);
  const queue = hist('vllm:request_queue_time_seconds', 'Histogram of time spent in WAITING phase for request.', REQUEST_BUCKETS);
  const prefill = hist('vllm:request_prefill_time_seconds', 'Histogram of time spent in PREFILL phase for request.', REQUEST_BUCKETS);
  const decode = hist('vllm:request_decode_time_seconds', 'Histogram of time spent in DECODE phase for request.', REQUEST_BUCKETS);
  const e2e = hist('vllm:e2e_request_latency_seconds', 'Histogram of e2e request latency in seconds.', REQUEST_BUCKETS);

  return {
    registry,
    queued: (s) => queue.observe(labels, s),
    firstToken(t, p) {
      ttft.observe(labels, t);
      prefill.observe(labels, p);
    },
    interToken(s) {
      itl.observe(labels, s);
      tpot.observe(labels, s);
    },
    finished(reason, e2eS, decodeS) {
      if (reason !== 'abort') success.inc({ ...labels, finished_reason: reason });
      e2e.observe(labels, e2eS);
      decode.observe(labels, decodeS);
    },
    text: () => registry.metrics(),
  };
}
