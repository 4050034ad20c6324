// Chart data derived from request records: histograms, CDFs, the request timeline, load over time and ITL stalls.
import type { RequestRecord } from '../../metrics/record.js';
import { tokenEventIndexes } from '../../metrics/derive.js';
import { percentile } from '../../metrics/stats.js';
import { maxOf, minOf } from '../../util/min-max.js';

/**
 * `values` sorted ascending, as sort((a, b) => a - b) would (no NaN here): a typed-array sort, native and with no
 * comparator call per comparison (200,000 ITL gaps: tens of ms instead of hundreds, issue 30).
 */
function sortedNumbers(values: readonly number[]): number[] {
  return toArray(Float64Array.from(values).sort());
}

/** A plain array of a typed array's values (an indexed copy: Array.from walks an iterator). */
function toArray(xs: Float64Array): number[] {
  const out = new Array<number>(xs.length);
  for (let i = 0; i < xs.length; i++) out[i] = xs[i];
  return out;
}

export interface Histogram {
  /** Bin lower edges; the last bin also holds everything above its edge (the tail beyond p99). */
  edges: number[];
  width: number;
  counts: number[];
}

/** Histogram over [min, p99] in `bins` equal bins; values above p99 go to the last bin, so one outlier cannot flatten the plot. */
export function histogram(values: readonly number[], bins = 30): Histogram | null {
  if (!values.length) return null;
  const sorted = sortedNumbers(values);
  const lo = sorted[0];
  const hi = Math.max(percentile(sorted, 99) as number, lo);
  const width = hi > lo ? (hi - lo) / bins : 1;
  const n = hi > lo ? bins : 1;
  const counts = new Array<number>(n).fill(0);
  for (const v of sorted) counts[Math.min(n - 1, Math.max(0, Math.floor((v - lo) / width)))]++;
  return { edges: counts.map((_, i) => lo + i * width), width, counts };
}

/** Values already sorted ascending (sortedItlGaps), so one sort of the run's gaps serves the CDF and the stalls. */
export interface SortedValues {
  readonly sorted: Float64Array;
}

/** Empirical CDF as [value, percent ≤ value] pairs, thinned to at most `maxPoints` (always keeping min and max). */
export function cdf(values: readonly number[] | SortedValues, maxPoints = 200): [number, number][] {
  const sorted = 'sorted' in values ? values.sorted : Float64Array.from(values).sort();
  const n = sorted.length;
  if (!n) return [];
  const step = Math.max(1, Math.ceil(n / maxPoints));
  const out: [number, number][] = [];
  for (let i = 0; i < n; i += step) out.push([sorted[i], ((i + 1) / n) * 100]);
  if (out[out.length - 1][0] !== sorted[n - 1] || out[out.length - 1][1] !== 100) out.push([sorted[n - 1], 100]);
  return out;
}

/** Evenly spaced sample of at most `max` items, in order (deterministic). */
export function sample<T>(xs: readonly T[], max: number): T[] {
  if (xs.length <= max) return [...xs];
  const out: T[] = [];
  for (let i = 0; i < max; i++) out.push(xs[Math.floor((i * xs.length) / max)]);
  return out;
}

export interface TimelineBar {
  id: number;
  /** Seconds from the first measured send. */
  start_s: number;
  /** Time to first token (s), 0 for failed requests. */
  wait_s: number;
  /** From first token to end (s) for successes; for failures the whole request. */
  rest_s: number;
  status: string;
  class: string | null;
}

/** One bar per request (sampled to `max`): send → first token → end, relative to the first measured send. */
export function timeline(records: readonly RequestRecord[], max = 300): { bars: TimelineBar[]; sampled: boolean; total: number } {
  const recs = records.filter((r) => !r.warmup).sort((a, b) => a.sent_at_ms - b.sent_at_ms);
  const t0 = recs.length ? recs[0].sent_at_ms : 0;
  const picked = sample(recs, max);
  const bars = picked.map((r) => {
    const end = r.end_ms ?? 0;
    const ok = r.status === 'ok';
    const wait = ok ? (r.ttft_ms ?? end) : 0;
    return { id: r.id, start_s: (r.sent_at_ms - t0) / 1000, wait_s: wait / 1000, rest_s: Math.max(0, end - wait) / 1000, status: r.status, class: r.class ?? null };
  });
  return { bars, sampled: picked.length < recs.length, total: recs.length };
}

export interface OverTime {
  /** Bucket start times in seconds from the first measured send. */
  t_s: number[];
  bucket_s: number;
  /** Output tokens received per second in each bucket (each request's tokens spread over its token-carrying events). */
  output_tok_s: number[];
  /** Time-averaged number of requests in flight in each bucket. */
  in_flight: number[];
  /** Requests that failed, by the bucket of their end. */
  failures: number[];
}

/**
 * Output tokens/s, in-flight requests and failures over the run, in equal time buckets: `buckets` when given, else
 * one per 3 requests between 8 and 100 (short runs get wide buckets so rates are not mostly noise).
 */
export function overTime(records: readonly RequestRecord[], buckets?: number): OverTime {
  const recs = records.filter((r) => !r.warmup);
  buckets ??= Math.min(100, Math.max(8, Math.round(recs.length / 3)));
  if (!recs.length) return { t_s: [], bucket_s: 0, output_tok_s: [], in_flight: [], failures: [] };
  const t0 = minOf(recs.map((r) => r.sent_at_ms));
  const t1 = maxOf(recs.map((r) => r.sent_at_ms + (r.end_ms ?? 0)));
  const span = Math.max(t1 - t0, 1);
  const w = span / buckets;
  const tok = new Array<number>(buckets).fill(0);
  const busy = new Array<number>(buckets).fill(0);
  const fail = new Array<number>(buckets).fill(0);
  const at = (ms: number) => Math.min(buckets - 1, Math.max(0, Math.floor((ms - t0) / w)));
  for (const r of recs) {
    const s = r.sent_at_ms;
    const e = s + (r.end_ms ?? 0);
    // Busy time of this request inside each bucket it overlaps.
    for (let b = at(s); b <= at(e); b++) {
      const bs = t0 + b * w;
      busy[b] += Math.max(0, Math.min(e, bs + w) - Math.max(s, bs));
    }
    if (r.status !== 'ok') {
      if (r.status !== 'cancelled') fail[at(e)]++;
      continue;
    }
    const idx = tokenEventIndexes(r);
    const per = idx.length ? (r.output_tokens ?? 0) / idx.length : 0;
    if (!idx.length && r.output_tokens) tok[at(e)] += r.output_tokens;
    for (const i of idx) tok[at(s + r.event_times_ms[i])] += per;
  }
  return {
    t_s: tok.map((_, i) => (i * w) / 1000),
    bucket_s: w / 1000,
    output_tok_s: tok.map((x) => x / (w / 1000)),
    in_flight: busy.map((x) => x / w),
    failures: fail,
  };
}

export interface Stalls {
  median_itl_ms: number | null;
  threshold_ms: number | null;
  /** [seconds from the first measured send, gap ms, request id], the largest `max` kept. */
  points: [number, number, number][];
  count: number;
  total_gaps: number;
}

/** How many times the median ITL a gap must exceed to count as a stall. */
export const STALL_FACTOR = 5;

/** Every ITL gap of the measured ok records, sorted ascending. */
export function sortedItlGaps(records: readonly RequestRecord[]): Float64Array {
  let gaps = 0;
  for (const r of records) if (!r.warmup && r.status === 'ok') gaps += r.itl_ms.length;
  const flat = new Float64Array(gaps);
  let k = 0;
  for (const r of records) if (!r.warmup && r.status === 'ok') for (const g of r.itl_ms) flat[k++] = g;
  return flat.sort();
}

/**
 * ITL stalls: gaps between token-carrying events longer than STALL_FACTOR × the run's median gap, placed at the time
 * they ended. `all` is sortedItlGaps(records), when the caller has it already.
 */
export function itlStalls(records: readonly RequestRecord[], max = 2000, all: Float64Array = sortedItlGaps(records)): Stalls {
  const recs = records.filter((r) => !r.warmup && r.status === 'ok');
  if (!all.length) return { median_itl_ms: null, threshold_ms: null, points: [], count: 0, total_gaps: 0 };
  const median = percentile(all, 50) as number;
  const threshold = Math.max(median * STALL_FACTOR, 1);
  const t0 = minOf(records.filter((r) => !r.warmup).map((r) => r.sent_at_ms));
  const pts: [number, number, number][] = [];
  for (const r of recs) {
    const idx = tokenEventIndexes(r);
    const times = r.event_times_ms;
    for (let j = 1; j < idx.length; j++) {
      const gap = times[idx[j]] - times[idx[j - 1]];
      if (gap > threshold) pts.push([(r.sent_at_ms + times[idx[j]] - t0) / 1000, gap, r.id]);
    }
  }
  const count = pts.length;
  const kept = count > max ? [...pts].sort((a, b) => b[1] - a[1]).slice(0, max) : pts;
  return { median_itl_ms: median, threshold_ms: threshold, points: kept.sort((a, b) => a[0] - b[0]), count, total_gaps: all.length };
}
