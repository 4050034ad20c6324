// Pure: the server section and the client's summary → findings in words, each naming the figures it rests on.
import type { Summary } from '../metrics/summary-model.js';
import type { ServerFinding, ServerSummary } from '../metrics/server-model.js';

/** A share of the client's TTFT above this is "dominating". */
export const DOMINANT_SHARE = 0.5;
/** KV-cache usage above this, with preemptions, is "full". */
export const KV_FULL = 0.9;
/** Server TTFT below this share of the client's TTFT (and ≥ 50 ms apart) points outside the engine. */
export const SERVER_FAR_BELOW = 0.5;
/** Correlation between running requests and per-interval ITL above this, with ITL rising ≥ 20%: decode slows with batch. */
export const BATCH_CORRELATION = 0.7;

const f1 = (x: number): string => (Math.abs(x) >= 100 ? x.toFixed(0) : x.toFixed(1));
const pctOf = (x: number): string => `${(x * 100).toFixed(0)}%`;

function pearson(xs: number[], ys: number[]): number | null {
  const n = xs.length;
  if (n < 3) return null;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxy = 0, sxx = 0, syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (xs[i] - mx) * (ys[i] - my);
    sxx += (xs[i] - mx) ** 2;
    syy += (ys[i] - my) ** 2;
  }
  return sxx > 0 && syy > 0 ? sxy / Math.sqrt(sxx * syy) : null;
}

/** What to try, per finding: a real engine's settings, or the embedded simulator's --sim-* flags (docs/sim.md). */
const ADVICE = {
  queue_bound: { real: 'the server is saturated; lower the load or add replicas', sim: 'the simulated server is saturated; lower the load or add replicas (--sim-replicas; serve --replicas)' },
  prefill_bound: { real: 'try chunked prefill, a larger max_num_batched_tokens, or prefix caching', sim: 'the simulated engine already models chunked prefill; a faster GPU or a smaller model shortens it (--sim-gpu, --sim-model; serve --gpu, --model-profile)' },
  kv_bound: { real: 'raise gpu_memory_utilization, lower max_num_seqs, or quantize the KV cache', sim: 'a larger GPU, fewer sequences or a smaller model leaves more room (--sim-gpu, --sim-max-num-seqs, --sim-model; serve --gpu, --max-num-seqs, --model-profile)' },
} as const;

/**
 * The common shapes (docs/telemetry.md#diagnosis): queue-bound, prefill-bound, KV-bound, decode bandwidth-bound,
 * client-bound, and a server that is fast while the client sees it slow (network, gateway, API server).
 */
export function diagnose(s: ServerSummary, client: Summary, itlByBatch: { running: number; itlMs: number }[] = [], o: { sim?: boolean } = {}): ServerFinding[] {
  const out: ServerFinding[] = [];
  const advice = (k: keyof typeof ADVICE): string => ADVICE[k][o.sim ? 'sim' : 'real'];
  const d = s.ttft_decomposition;
  const cMean = d?.client_ttft_mean_ms ?? null;
  const queue = d?.queue_mean_ms ?? null;
  const prefill = d?.prefill_mean_ms ?? null;
  // One engine step (ITL mean, server's else client's): a request that arrives mid-step waits for that step to end
  // and, under async scheduling (vLLM --async-scheduling, SGLang overlap), for the step already planned: 1.5 steps on
  // average, 2 at most, plus the scheduler's own time between steps (measured on the sim at c=2: 2.4 steps). A queue
  // mean within 3 steps is that wait, not saturation, however large its share of a tiny TTFT.
  const step = s.vs_client?.itl_mean_ms?.server ?? client.itl_ms?.mean ?? null;
  // Some request waited: the sampled gauge saw one, or Little's law from the queue histogram says at least half a request
  // waited on average (scrapes a second apart miss waits of tens of ms; the histogram does not).
  const littles = s.waiting_littles_law ?? 0;
  const waited = (s.waiting_max ?? 0) > 0 || littles >= 0.5;
  if (cMean !== null && cMean > 0 && queue !== null && queue / cMean >= DOMINANT_SHARE && waited && (step === null || queue > 3 * step))
    out.push({
      kind: 'queue_bound',
      message: `queue-bound: requests waited ${f1(queue)} ms on average in the server's queue, ${pctOf(queue / cMean)} of the client's TTFT mean (${f1(cMean)} ms), with ${(s.waiting_max ?? 0) > 0 ? `up to ${f1(s.waiting_max!)}` : `${f1(littles)} on average (Little's law)`} waiting: ${advice('queue_bound')}`,
      evidence: { queue_mean_ms: queue, client_ttft_mean_ms: cMean, waiting_mean: s.waiting_mean ?? 0, waiting_max: s.waiting_max ?? 0, waiting_littles_law: littles },
    });
  else if (cMean !== null && cMean > 0 && prefill !== null && prefill / cMean >= DOMINANT_SHARE)
    out.push({
      kind: 'prefill_bound',
      message: `prefill-bound: prefill took ${f1(prefill)} ms on average, ${pctOf(prefill / cMean)} of the client's TTFT mean (${f1(cMean)} ms) with prompts of ${f1(client.input_tokens.mean ?? 0)} tokens on average: ${advice('prefill_bound')}`,
      evidence: { prefill_mean_ms: prefill, client_ttft_mean_ms: cMean, input_tokens_mean: client.input_tokens.mean ?? 0 },
    });
  if ((s.kv_usage_max ?? 0) > KV_FULL && (s.preemptions ?? 0) > 0)
    out.push({
      kind: 'kv_bound',
      message: `KV-bound: the KV cache reached ${pctOf(s.kv_usage_max!)} and ${s.preemptions} request${s.preemptions === 1 ? ' was' : 's were'} preempted: ${advice('kv_bound')}`,
      evidence: { kv_usage_max: s.kv_usage_max!, kv_usage_mean: s.kv_usage_mean ?? 0, preemptions: s.preemptions! },
    });
  const r = pearson(itlByBatch.map((x) => x.running), itlByBatch.map((x) => x.itlMs));
  if (r !== null && r > BATCH_CORRELATION) {
    const sorted = [...itlByBatch].sort((a, b) => a.running - b.running);
    const lo = sorted[0];
    const hi = sorted[sorted.length - 1];
    if (lo.itlMs > 0 && hi.itlMs >= 1.2 * lo.itlMs)
      out.push({
        kind: 'decode_bandwidth_bound',
        message: `bandwidth-bound decode: the server's inter-token latency rose from ${f1(lo.itlMs)} ms at ${f1(lo.running)} running to ${f1(hi.itlMs)} ms at ${f1(hi.running)} running (correlation ${r.toFixed(2)}): each step reads more KV cache as the batch grows`,
        evidence: { itl_low_ms: lo.itlMs, running_low: lo.running, itl_high_ms: hi.itlMs, running_high: hi.running, correlation: Number(r.toFixed(3)) },
      });
  }
  if (client.client?.client_bound)
    out.push({
      kind: 'client_bound',
      message: `client-bound: the load generator was itself a bottleneck (${client.client.reasons.join('; ')}); the server was running ${f1(s.running_mean ?? 0)} requests on average: add client cores or workers before reading the server's limits`,
      evidence: { client_bound: true, running_mean: s.running_mean ?? 0 },
    });
  const st = s.vs_client.ttft_mean_ms;
  if (st.server !== null && st.client !== null && st.client - st.server >= 50 && st.server < SERVER_FAR_BELOW * st.client)
    out.push({
      kind: 'network_or_gateway',
      message: `server fine, network or gateway slow: the server's own TTFT mean is ${f1(st.server)} ms but the client saw ${f1(st.client)} ms; the ${f1(st.client - st.server)} ms between are spent outside the engine (network, proxy, API server)`,
      evidence: { server_ttft_mean_ms: st.server, client_ttft_mean_ms: st.client },
    });
  return out;
}
