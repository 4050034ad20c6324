// Time slices of a run (--slice): per-slice counts, rates, in-flight and latencies from the measured records, pure functions over compact columns (docs/metrics.md#time-slices).
import { percentile } from './stats.js';
import { batchMeansInterval, type Interval } from './inference/index.js';
import type { RequestRecord } from './record.js';
import type { SaturationSummary, SliceBlock, Summary } from './summary-model.js';
import { saturationTest, type SaturationPoint } from './saturation.js';
import { Column } from './column.js';

/** Status of a sliced request: 0 ok, 1 failed, 2 cancelled. */
const OK = 0;
const FAILED = 1;
const CANCELLED = 2;

/** Without --slice the throughput interval and the saturation test use this many equal batches of the measured span… */
export const DEFAULT_BATCHES = 20;
/** …fewer when there are not 5 ok requests per batch; below MIN_BATCHES there is no interval (null). */
export const MIN_REQUESTS_PER_BATCH = 5;
export const MIN_BATCHES = 5;

/** The measured requests' facts a slice needs, one typed column each (8 bytes per value; NaN = none). */
export class SliceColumns {
  readonly sent = new Column();
  readonly end = new Column();
  readonly status = new Column();
  readonly ttft = new Column();
  readonly tpot = new Column();
  readonly e2e = new Column();
  readonly inTok = new Column();
  readonly outTok = new Column();
  /** Measured records only: warmup requests are in no slice. */
  add(r: RequestRecord): void {
    if (r.warmup) return;
    const ok = r.status === 'ok';
    this.sent.push(r.sent_at_ms);
    this.end.push(r.sent_at_ms + (r.end_ms ?? 0));
    this.status.push(ok ? OK : r.status === 'cancelled' ? CANCELLED : FAILED);
    this.ttft.push(ok ? (r.ttft_ms ?? NaN) : NaN);
    this.tpot.push(ok ? (r.tpot_ms ?? NaN) : NaN);
    this.e2e.push(ok ? (r.e2e_ms ?? NaN) : NaN);
    this.inTok.push(ok ? (r.input_tokens ?? 0) : 0);
    this.outTok.push(ok ? (r.output_tokens ?? 0) : 0);
  }
  get length(): number {
    return this.sent.length;
  }
  get okCount(): number {
    let n = 0;
    const s = this.status.values();
    for (let i = 0; i < s.length; i++) if (s[i] === OK) n++;
    return n;
  }
  /** Mean E2E of the ok requests (ms), 0 when there are none. */
  meanOkE2eMs(): number {
    const e = this.e2e.values();
    let s = 0;
    let n = 0;
    // Whole µs, so the sum (and the batches it decides) does not depend on record order.
    for (let i = 0; i < e.length; i++) if (!Number.isNaN(e[i])) (s += Math.round(e[i] * 1000)), n++;
    return n ? s / 1000 / n : 0;
  }
  /** [first send, last end] of the measured requests, ms on the run clock; null when there are none. */
  span(): [number, number] | null {
    if (this.length === 0) return null;
    let lo = Infinity;
    let hi = -Infinity;
    const s = this.sent.values();
    const e = this.end.values();
    for (let i = 0; i < s.length; i++) {
      if (s[i] < lo) lo = s[i];
      if (e[i] > hi) hi = e[i];
    }
    return [lo, hi];
  }
}

/** Mean and p50/p90/p99 (linear interpolation, as the summary) of a slice's values; nulls when it has none. */
function figures(values: number[]): SliceBlock['ttft_ms'] {
  if (values.length === 0) return { mean: null, p50: null, p90: null, p99: null };
  values.sort((a, b) => a - b);
  let s = 0;
  for (const v of values) s += v;
  return { mean: s / values.length, p50: percentile(values, 50), p90: percentile(values, 90), p99: percentile(values, 99) };
}

/** Per-slice token sums beside the SliceBlock (input tokens are not a SliceBlock field but feed the throughput interval). */
export interface SliceSeries {
  slices: SliceBlock[];
  /** Σ input tokens of the ok requests completed in each slice. */
  inputTokens: number[];
  /** Whether each slice lies wholly inside the measured span (the last one usually does not). */
  full: boolean[];
}

/**
 * Cut the measured span [first send, last end] into slices of `sliceS` seconds from the first send. A request belongs to
 * the slice in which it completed (send + end_ms): its counts, tokens and latencies go there. Rates divide by the part of
 * the slice inside the span; mean_in_flight = Σ over requests of the overlap of [send, end] with the slice ÷ that part
 * (the time-weighted mean number in flight, Little's law per slice). start_s/end_s are seconds of the run clock.
 */
export function sliceSeries(cols: SliceColumns, sliceS: number): SliceSeries {
  const span = cols.span();
  if (!span || !(sliceS > 0)) return { slices: [], inputTokens: [], full: [] };
  const [t0, t1] = span;
  const sliceMs = sliceS * 1000;
  const n = Math.max(1, Math.ceil((t1 - t0) / sliceMs - 1e-9));
  const at = (t: number) => Math.min(n - 1, Math.max(0, Math.floor((t - t0) / sliceMs)));
  const counts = Array.from({ length: n }, () => ({ ok: 0, failed: 0, cancelled: 0, inTok: 0, outTok: 0, busyUs: 0, ttft: [] as number[], tpot: [] as number[], e2e: [] as number[] }));
  const sent = cols.sent.values();
  const end = cols.end.values();
  const status = cols.status.values();
  const ttft = cols.ttft.values();
  const tpot = cols.tpot.values();
  const e2e = cols.e2e.values();
  const inTok = cols.inTok.values();
  const outTok = cols.outTok.values();
  for (let i = 0; i < sent.length; i++) {
    const c = counts[at(end[i])];
    if (status[i] === OK) {
      c.ok++;
      c.inTok += inTok[i];
      c.outTok += outTok[i];
      if (!Number.isNaN(ttft[i])) c.ttft.push(ttft[i]);
      if (!Number.isNaN(tpot[i])) c.tpot.push(tpot[i]);
      if (!Number.isNaN(e2e[i])) c.e2e.push(e2e[i]);
    } else if (status[i] === FAILED) c.failed++;
    else c.cancelled++;
    // The request's time in flight, spread over the slices it overlaps.
    for (let k = at(sent[i]); k <= at(end[i]); k++) {
      const lo = Math.max(sent[i], t0 + k * sliceMs);
      const hi = Math.min(end[i], t0 + (k + 1) * sliceMs);
      // In whole µs: the sum, and so the summary, does not depend on the order records arrive in.
      if (hi > lo) counts[k].busyUs += Math.round((hi - lo) * 1000);
    }
  }
  const slices: SliceBlock[] = [];
  const full: boolean[] = [];
  counts.forEach((c, k) => {
    const startMs = t0 + k * sliceMs;
    const endMs = Math.min(t1, startMs + sliceMs);
    const lenS = Math.max(endMs - startMs, 1e-3) / 1000;
    full.push(startMs + sliceMs <= t1 + 1e-6);
    slices.push({
      index: k,
      start_s: startMs / 1000,
      end_s: endMs / 1000,
      completed: c.ok + c.failed + c.cancelled,
      ok: c.ok,
      failed: c.failed,
      request_throughput: c.ok / lenS,
      output_throughput: c.outTok / lenS,
      mean_in_flight: c.busyUs / 1e6 / lenS,
      ttft_ms: figures(c.ttft),
      tpot_ms: figures(c.tpot),
      e2e_ms: figures(c.e2e),
    });
  });
  return { slices, inputTokens: counts.map((c) => c.inTok), full };
}

/**
 * The batch length for the throughput interval and the saturation test: --slice when given, else the measured span cut
 * into k = min(DEFAULT_BATCHES, ⌊ok / MIN_REQUESTS_PER_BATCH⌋, ⌊span / (2 · mean E2E)⌋) equal batches (a whole number
 * of them, so none is partial). A batch at least twice the mean request time long keeps neighbouring batches from
 * sharing most of their requests, so their rates are roughly independent; null when k < MIN_BATCHES (too short a run).
 */
export function batchSeconds(cols: SliceColumns, sliceS: number | undefined): number | null {
  if (sliceS !== undefined) return sliceS;
  const span = cols.span();
  const e2e = cols.meanOkE2eMs();
  const byE2e = span && e2e > 0 ? Math.floor((span[1] - span[0]) / (2 * e2e)) : Infinity;
  const k = Math.min(DEFAULT_BATCHES, Math.floor(cols.okCount / MIN_REQUESTS_PER_BATCH), byE2e);
  if (!span || k < MIN_BATCHES || span[1] <= span[0]) return null;
  return (span[1] - span[0]) / 1000 / k;
}

/** The rates a MetricsBlock's ci95 covers. */
export const RATE_KEYS = ['request_throughput', 'qpm', 'input_throughput', 'output_throughput', 'total_token_throughput'] as const;

/**
 * 95% batch-means intervals of the run's rates: each full slice (batch) is one observation of the rate (ok requests
 * or ok tokens completed in it ÷ its length), the interval mean ± t(0.975, k−1)·s/√k over the k full slices
 * (metrics/inference batchMeansInterval). qpm = 60 × request_throughput. null per key with fewer than MIN_BATCHES.
 */
export function throughputCi95(series: SliceSeries): Record<(typeof RATE_KEYS)[number], Interval | null> {
  const idx = series.full.flatMap((f, i) => (f ? [i] : []));
  const lenS = (i: number) => series.slices[i].end_s - series.slices[i].start_s;
  const ci = (rate: (i: number) => number): Interval | null => (idx.length >= MIN_BATCHES ? batchMeansInterval(idx.map(rate)) : null);
  const req = ci((i) => series.slices[i].request_throughput);
  return {
    request_throughput: req,
    qpm: req && [req[0] * 60, req[1] * 60],
    input_throughput: ci((i) => series.inputTokens[i] / lenS(i)),
    output_throughput: ci((i) => series.slices[i].output_throughput),
    total_token_throughput: ci((i) => series.inputTokens[i] / lenS(i) + series.slices[i].output_throughput),
  };
}

/** Points of the saturation test: the full slices' mid-times (s since the first send), mean in flight and mean TTFT. */
export function saturationPoints(series: SliceSeries): SaturationPoint[] {
  const t0 = series.slices[0]?.start_s ?? 0;
  return series.slices.filter((_, i) => series.full[i]).map((s) => ({ t: (s.start_s + s.end_s) / 2 - t0, inFlight: s.mean_in_flight, ttftMs: s.ttft_ms.mean }));
}

/**
 * The summary's slice-derived parts over the requests the headline covers (with ramps: the steady phase's): `slices`
 * (with --slice), the headline block's throughput `ci95` and the saturation verdict. The batches are
 * --slice long, else batchSeconds' default. A run stopped by --stop-on-saturation keeps the verdict that stopped it
 * (run.json `saturation_stop`).
 */
export function sliceSections(cols: SliceColumns, run: Record<string, unknown>): Pick<Summary, 'ci95' | 'slices' | 'saturation'> {
  const slice = (run.config as { slice?: unknown } | undefined)?.slice;
  const sliceS = typeof slice === 'number' && slice > 0 ? slice : undefined;
  const batchS = batchSeconds(cols, sliceS);
  const live = run.stopped_reason === 'saturated' ? (run.saturation_stop as SaturationSummary | undefined) : undefined;
  if (batchS === null) return live ? { saturation: live } : {};
  const series = sliceSeries(cols, batchS);
  const saturation = live ?? saturationTest(saturationPoints(series), batchS);
  return {
    ci95: throughputCi95(series),
    ...(sliceS !== undefined ? { slices: { slice_s: sliceS, series: series.slices } } : {}),
    ...(saturation ? { saturation } : {}),
  };
}
