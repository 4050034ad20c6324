// SGLang metric names (python/sglang/srt/metrics/collector.py, docs/references/production_metrics.md) for the sim server's /metrics.
import { Gauge } from 'prom-client';
import { promKit } from './prom.js';
import type { FlavorContext, SimObservations } from './metrics-flavors.js';

// Default buckets of SGLang's TokenizerMetricsCollector and SchedulerMetricsCollector.
const TTFT_BUCKETS = [0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8, 10, 20, 40, 60, 80, 100, 200, 400];
const ITL_BUCKETS = [0.002, 0.004, 0.006, 0.008, 0.01, 0.015, 0.02, 0.025, 0.03, 0.035, 0.04, 0.06, 0.08, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8];
const E2E_BUCKETS = [0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8, 10, 20, 40, 60, 80, 100, 200, 400, 600, 1200, 1800, 2400];
const QUEUE_BUCKETS = [0, 0.1, 0.2, 0.5, 1, 2, 3, 4, 5, 10, 15, 20, 30, 40, 50, 60, 70, 80, 90, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1200, 1400, 1600, 1800, 2000, 2500, 3000];

export function sglangFlavor(ctx: FlavorContext): SimObservations {
  const k = promKit(ctx.registry, { model_name: ctx.modelName }, ctx.counters);
  const l = k.labels;
  k.gauge('sglang:num_running_reqs', 'The number of running requests.', (c) => c.running);
  k.gauge('sglang:num_queue_reqs', 'The number of requests in the waiting queue.', (c) => c.waiting);
  k.gauge('sglang:token_usage', 'The token usage.', (c) => c.kvUsage);
  k.gauge('sglang:num_used_tokens', 'The number of used tokens.', (c) => Math.round(c.kvUsage * ctx.kvCapacityTokens));
  k.gauge('sglang:max_total_num_tokens', 'Maximum total number of tokens in the KV cache pool.', () => ctx.kvCapacityTokens);
  k.gauge('sglang:cache_hit_rate', 'The prefix cache hit rate.', (c) => (c.prefixQueriesTokens > 0 ? c.prefixHitsTokens / c.prefixQueriesTokens : 0));
  k.mirrored('sglang:num_retracted_requests_total', 'Total number of retracted requests.', (c) => c.preemptions);
  k.mirrored('sglang:prompt_tokens_total', 'Number of prefill tokens processed.', (c) => c.promptTokens);
  k.mirrored('sglang:generation_tokens_total', 'Number of generation tokens processed.', (c) => c.generationTokens);
  k.mirrored('sglang:cached_tokens_total', 'Number of cached prompt tokens.', (c) => c.prefixHitsTokens);
  // Generation tokens per simulated second between two scrapes (SGLang logs it per scheduler interval).
  let last = { t: 0, tokens: 0 };
  new Gauge({
    name: 'sglang:gen_throughput', help: 'The generation throughput (token/s).', labelNames: Object.keys(l), registers: [ctx.registry],
    collect() {
      const now = { t: ctx.nowSimMs(), tokens: ctx.counters().generationTokens };
      const dt = (now.t - last.t) / 1000;
      if (dt > 0) this.set(l, (now.tokens - last.tokens) / dt);
      last = now;
    },
  });

  if (ctx.specDecode) specGauges(ctx, l);

  const requests = k.counter('sglang:num_requests_total', 'Number of requests processed.');
  const ttft = k.hist('sglang:time_to_first_token_seconds', 'Histogram of time to first token in seconds.', TTFT_BUCKETS);
  const itl = k.hist('sglang:inter_token_latency_seconds', 'Histogram of inter-token latency in seconds.', ITL_BUCKETS);
  const e2e = k.hist('sglang:e2e_request_latency_seconds', 'Histogram of End-to-end request latency in seconds', E2E_BUCKETS);
  const queue = k.hist('sglang:queue_time_seconds', 'Histogram of queueing time in seconds.', QUEUE_BUCKETS);

  return {
    arrived() {},
    queued: (s) => queue.observe(l, s),
    firstToken: (t) => ttft.observe(l, t),
    interToken: (s) => itl.observe(l, s),
    finished(f) {
      requests.inc(l);
      e2e.observe(l, f.e2eS);
    },
    step() {},
  };
}

/**
 * SGLang's speculative-decoding gauges, over the interval since the previous scrape (SGLang sets them per log
 * interval): spec_accept_length = 1 + Δaccepted ÷ Δdrafts (tokens per verify step), spec_accept_rate = Δaccepted ÷
 * Δdraft tokens. An interval without drafts keeps the last values; before the first draft they are not exported.
 */
function specGauges(ctx: FlavorContext, l: Record<string, string>): void {
  let last = { drafts: 0, draftTokens: 0, accepted: 0 };
  // Unset (no series on the page) until the first draft: an idle server's 0 would drag the run's mean down.
  let length: number | undefined;
  let rate: number | undefined;
  const update = () => {
    const c = ctx.counters();
    const now = { drafts: c.specDrafts, draftTokens: c.specDraftTokens, accepted: c.specAcceptedTokens };
    const drafts = now.drafts - last.drafts;
    if (drafts > 0) {
      length = 1 + (now.accepted - last.accepted) / drafts;
      rate = now.draftTokens > last.draftTokens ? (now.accepted - last.accepted) / (now.draftTokens - last.draftTokens) : 0;
      last = now;
    }
  };
  new Gauge({
    name: 'sglang:spec_accept_length', help: 'The average acceptance length of speculative decoding.', labelNames: Object.keys(l), registers: [ctx.registry],
    collect() {
      update();
      if (length !== undefined) this.set(l, length);
    },
  });
  new Gauge({
    name: 'sglang:spec_accept_rate', help: 'The average acceptance rate of speculative decoding.', labelNames: Object.keys(l), registers: [ctx.registry],
    collect() {
      update();
      if (rate !== undefined) this.set(l, rate);
    },
  });
}
