// How a measured run was measured, read from its records: each request's lengths and cache hits in send order, warmup, the first wave's stagger, the client's refill gaps.
import type { RequestRecord } from '../metrics/record.js';

export interface PlannedRequest {
  promptTokens: number;
  outputTokens: number;
  /** Prompt tokens the server reported as cached for this request (re-simulated as already in the prefix cache). */
  cachedTokens: number;
  /** Sent first and left out of every statistic, as in the run. */
  warmup: boolean;
}

/** What calibrate re-simulates for one run; every time is in the server's ms (wall ms × sim_time_scale). */
export interface MeasurementPlan {
  /** The successful requests in send order (warmup first); failed and cancelled ones never reached the engine whole. */
  requests: PlannedRequest[];
  /** Closed loop: send time of each request of the first wave, from the first send. */
  startMs?: number[];
  /** Closed loop: the client's time from the k-th request end to the send that refilled its slot. */
  refillGapsMs?: number[];
  /** Open loop: the scheduled send times, from the first. */
  arrivalsMs?: number[];
  /** records: read from requests.jsonl; summary: the summary's means (no requests.jsonl), every request alike. */
  source: 'records' | 'summary';
}

/** The facts of one record the plan needs (records are streamed; only these stay in memory). */
interface Slim {
  id: number;
  attempt: number;
  status: RequestRecord['status'];
  warmup: boolean;
  scheduledMs: number;
  sentMs: number;
  endMs: number;
  inputTokens: number | null;
  outputTokens: number | null;
  cachedTokens: number | null;
}

/** The last attempt of each request id (a --retry run stores every attempt), in id order. */
function lastAttempts(records: Iterable<RequestRecord>): Slim[] {
  const byId = new Map<number, Slim>();
  for (const r of records) {
    const seen = byId.get(r.id);
    if (seen && r.attempt <= seen.attempt) continue;
    byId.set(r.id, {
      id: r.id, attempt: r.attempt, status: r.status, warmup: r.warmup, scheduledMs: r.scheduled_at_ms, sentMs: r.sent_at_ms,
      endMs: r.sent_at_ms + (r.end_ms ?? r.e2e_ms ?? 0), inputTokens: r.input_tokens, outputTokens: r.output_tokens, cachedTokens: r.cached_tokens,
    });
  }
  return [...byId.values()].sort((a, b) => a.id - b.id);
}

/**
 * The plan of a run from its records. Closed loop (`concurrency`, no rate): the first wave starts at the recorded
 * send offsets, and the k-th refill waits the client's recorded gap (k-th send after the first wave − k-th end, ≥ 0),
 * pairing ends and sends in time order as a closed loop of identical virtual users does. Open loop: the recorded
 * schedule. `scale` converts the client's wall ms to the server's ms (sim_time_scale).
 */
export function planFromRecords(records: Iterable<RequestRecord>, o: { scale: number; concurrency?: number; openLoop: boolean }): MeasurementPlan | undefined {
  const all = lastAttempts(records).filter((r) => r.status !== 'cancelled');
  const ok = all.filter((r) => r.status === 'ok' && r.inputTokens !== null && r.outputTokens !== null && r.outputTokens >= 1);
  if (ok.length === 0) return undefined;
  const requests = ok.map((r) => ({ promptTokens: Math.max(1, r.inputTokens!), outputTokens: r.outputTokens!, cachedTokens: Math.max(0, r.cachedTokens ?? 0), warmup: r.warmup }));
  const t0 = all.reduce((m, r) => Math.min(m, r.sentMs), Infinity);
  if (o.openLoop) {
    const s0 = ok.reduce((m, r) => Math.min(m, r.scheduledMs), Infinity);
    return { requests, arrivalsMs: ok.map((r) => (r.scheduledMs - s0) * o.scale), source: 'records' };
  }
  const c = Math.max(1, Math.round(o.concurrency ?? 1));
  const sends = all.map((r) => r.sentMs).sort((a, b) => a - b);
  const ends = all.map((r) => r.endMs).sort((a, b) => a - b);
  const startMs = sends.slice(0, c).map((t) => (t - t0) * o.scale);
  const refillGapsMs: number[] = [];
  for (let k = 0; c + k < sends.length && k < ends.length; k++) refillGapsMs.push(Math.max(0, sends[c + k] - ends[k]) * o.scale);
  return { requests, startMs, refillGapsMs, source: 'records' };
}

/** Without records: `requests` alike requests of the mean lengths and cache hits, `warmup` of them first, all sent at once. */
export function planFromSummary(o: { inputTokens: number; outputTokens: number; cachedTokens: number; warmup: number; requests: number }): MeasurementPlan {
  const one = (warmup: boolean): PlannedRequest => ({ promptTokens: o.inputTokens, outputTokens: o.outputTokens, cachedTokens: Math.round(o.cachedTokens), warmup });
  return { requests: [...Array.from({ length: o.warmup }, () => one(true)), ...Array.from({ length: o.requests }, () => one(false))], source: 'summary' };
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** The k-th refill gap; past the recorded ones (a plan cut short never needs them, a longer one would) the median. */
export function refillGap(plan: MeasurementPlan): ((k: number) => number) | undefined {
  const g = plan.refillGapsMs;
  if (!g || g.length === 0) return undefined;
  const m = median(g);
  return (k) => g[k] ?? m;
}
