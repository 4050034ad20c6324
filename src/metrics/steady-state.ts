// Steady state for --warmup auto: MSER-5 (White 1997) on the per-request TTFT in send order, and the summary with the transient trimmed (docs/metrics.md#steady-state).
import type { RequestRecord } from './record.js';
import type { SteadyStateSummary, Summary } from './summary-model.js';
import type { SliceColumns } from './slices.js';
import { SummaryAggregator } from './aggregator.js';
import type { Percentiles } from './stats.js';

/** MSER-5's batch size: the series is averaged in non-overlapping batches of 5 before the rule runs. */
export const MSER_BATCH = 5;
/** Fewer batches than this (50 ok requests) and the rule trims nothing: too little to tell a transient from noise. */
export const MSER_MIN_BATCHES = 10;

/**
 * MSER on a series z_1..z_m (already batch means): the truncation d minimising the marginal standard error
 *   MSER(d) = Σ_{j=d+1}^{m} (z_j − z̄_d)² / (m − d)²,   z̄_d = mean of z_{d+1..m},
 * searched over d = 0..⌊m/2⌋ (White 1997: a minimum in the second half means the run is too short to trust, so the
 * search stops there). The smallest d wins a tie. Returns d (batches to drop) and the MSER value at each d tried.
 */
export function mserTruncation(z: ArrayLike<number>): { d: number; mser: number[] } {
  const m = z.length;
  if (m < 2) return { d: 0, mser: [] };
  // Suffix sums of z and z², so each MSER(d) is O(1): Σ(z − z̄)² = Σz² − (Σz)²/(m − d).
  const s1 = new Float64Array(m + 1);
  const s2 = new Float64Array(m + 1);
  for (let j = m - 1; j >= 0; j--) {
    s1[j] = s1[j + 1] + z[j];
    s2[j] = s2[j + 1] + z[j] * z[j];
  }
  const mser: number[] = [];
  let best = 0;
  for (let d = 0; d <= Math.floor(m / 2); d++) {
    const k = m - d;
    const ss = Math.max(0, s2[d] - (s1[d] * s1[d]) / k);
    mser.push(ss / (k * k));
    if (mser[d] < mser[best]) best = d;
  }
  return { d: best, mser };
}

/** The means of consecutive non-overlapping batches of `size` values (a last incomplete batch is dropped). */
export function batchMeans(x: ArrayLike<number>, size = MSER_BATCH): number[] {
  const out: number[] = [];
  for (let i = 0; i + size <= x.length; i += size) {
    let s = 0;
    for (let j = i; j < i + size; j++) s += x[j];
    out.push(s / size);
  }
  return out;
}

/** MSER-5: MSER on batch means of 5; d in batches, so 5·d observations are the transient. */
export function mser5(x: ArrayLike<number>): { d: number; batches: number } {
  const z = batchMeans(x);
  return { d: z.length >= MSER_MIN_BATCHES ? mserTruncation(z).d : 0, batches: z.length };
}

/** Where --warmup auto cuts: requests sent before `cutMs` (run clock) are the transient. */
export interface SteadyCut {
  cutMs: number;
  summary: SteadyStateSummary;
}

/**
 * The rule on a run's measured requests: the series is the ok requests' TTFT in send order (E2E when none has a TTFT,
 * e.g. a non-streamed run), MSER-5 gives d, and the cut is the send time of the (5d + 1)-th of them; every measured
 * request (ok or not) sent before it is trimmed. With too few batches nothing is trimmed (trimmed_s = first send).
 */
export function steadyStateCut(cols: SliceColumns): SteadyCut {
  const sent = cols.sent.values();
  const status = cols.status.values();
  const ttft = cols.ttft.values();
  const e2e = cols.e2e.values();
  const okIdx: number[] = [];
  for (let i = 0; i < sent.length; i++) if (status[i] === 0) okIdx.push(i);
  const useTtft = okIdx.some((i) => !Number.isNaN(ttft[i]));
  const val = useTtft ? ttft : e2e;
  const ordered = okIdx.filter((i) => !Number.isNaN(val[i])).sort((a, b) => sent[a] - sent[b] || a - b);
  const { d, batches } = mser5(ordered.map((i) => val[i]));
  const first = sent.length ? Math.min(...sent) : 0;
  const cutMs = d > 0 ? sent[ordered[d * MSER_BATCH]] : first;
  let trimmed = 0;
  for (let i = 0; i < sent.length; i++) if (sent[i] < cutMs) trimmed++;
  const series = `${useTtft ? 'ttft_ms' : 'e2e_ms'} of ok requests in send order, means of batches of ${MSER_BATCH}`;
  return {
    cutMs,
    summary: { rule: 'MSER-5', series, batches, truncated_batches: d, trimmed_s: cutMs / 1000, trimmed_requests: trimmed, ...(batches < MSER_MIN_BATCHES ? { note: `too few ok requests for the rule (${batches} batches of ${MSER_BATCH}, ${MSER_MIN_BATCHES} needed): nothing trimmed` } : {}) },
  };
}

/** A record as --warmup auto counts it: measured requests sent before the cut become warmup (left out of every statistic). */
export const trimmedRecord = (r: RequestRecord, cutMs: number): RequestRecord => (!r.warmup && r.sent_at_ms < cutMs ? { ...r, warmup: true } : r);

/** The steady summary: the figures of the trimmed records, with the untrimmed run's slices and saturation verdict (they show the transient). */
export function withSteadyState(trimmed: Summary, full: Summary, cut: SteadyCut): Summary {
  const out: Summary = { ...trimmed, steady_state: cut.summary };
  if (full.slices) out.slices = full.slices;
  if (full.saturation) out.saturation = full.saturation;
  return out;
}

/**
 * The summary of a --warmup auto run: the rule on the untrimmed aggregator's columns, then the records again (`replay`
 * feeds each one, e.g. from requests.jsonl) into a fresh aggregator with the transient marked warmup.
 */
export function steadySummary(full: SummaryAggregator, replay: (each: (r: RequestRecord) => void) => void, run: Record<string, unknown>, concurrency: number | undefined, percentiles?: Percentiles): Summary {
  const cut = steadyStateCut(full.slicesOf());
  const fullSummary = full.summary(run, concurrency, percentiles);
  if (cut.summary.truncated_batches === 0) return { ...fullSummary, steady_state: cut.summary };
  const trimmed = new SummaryAggregator(undefined, full.bands, full.bandsAsked);
  replay((r) => trimmed.add(trimmedRecord(r, cut.cutMs)));
  return withSteadyState(trimmed.summary(run, concurrency, percentiles), fullSummary, cut);
}

/** Whether a run's config (run.json `config`, or a RunConfig) asked for --warmup auto. */
export const wantsSteadyState = (config: unknown): boolean => (config as { warmup?: unknown } | undefined)?.warmup === 'auto';
