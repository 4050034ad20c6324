// Over-saturation: do in-flight requests or TTFT grow without bound over the slice series? A slope test in the manner of GuideLLM's over-saturation detector (docs/metrics.md#over-saturation).
import { tQuantile } from './inference/index.js';
import type { SaturationSummary } from './summary-model.js';

/** Full slices needed before the test says anything (the window tested is the last half of them). */
export const SATURATION_MIN_SLICES = 8;
/** The window's last third must be at least this many times its first third… */
export const SATURATION_GROWTH = 1.2;
/** …and in-flight must have grown by at least this many requests over the window (a queue, not noise around 0.1). */
export const SATURATION_MIN_IN_FLIGHT_RISE = 2;

/** One point per full slice: its mid-time (s), time-weighted mean in flight, and mean TTFT (null: no ok request completed in it). */
export interface SaturationPoint {
  t: number;
  inFlight: number;
  ttftMs: number | null;
}

type SeriesTest = NonNullable<SaturationSummary['tests'][string]>;

/**
 * Least squares y = a + b·t over the points; the slope's 95% lower bound is b − t(0.975, n−2)·√(Σe²/(n−2) / Σ(t−t̄)²).
 * growth = mean of the last ⌈n/3⌉ values ÷ mean of the first ⌈n/3⌉ (Infinity when the first are 0 and the last are not).
 */
export function slopeTest(t: readonly number[], y: readonly number[]): Omit<SeriesTest, 'growing'> | null {
  const n = t.length;
  if (n < 4) return null;
  const tm = t.reduce((s, v) => s + v, 0) / n;
  const ym = y.reduce((s, v) => s + v, 0) / n;
  let sxx = 0;
  let sxy = 0;
  for (let i = 0; i < n; i++) {
    sxx += (t[i] - tm) ** 2;
    sxy += (t[i] - tm) * (y[i] - ym);
  }
  if (sxx === 0) return null;
  const b = sxy / sxx;
  const a = ym - b * tm;
  let sse = 0;
  for (let i = 0; i < n; i++) sse += (y[i] - a - b * t[i]) ** 2;
  const se = Math.sqrt(sse / (n - 2) / sxx);
  const third = Math.ceil(n / 3);
  const head = y.slice(0, third).reduce((s, v) => s + v, 0) / third;
  const tail = y.slice(-third).reduce((s, v) => s + v, 0) / third;
  const growth = head > 0 ? tail / head : tail > 0 ? Infinity : 1;
  return { slope_per_s: b, slope_low: b - tQuantile(0.975, n - 2) * se, growth };
}

const fmt = (x: number) => (Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 10 ? x.toFixed(1) : x.toFixed(2));

/**
 * The verdict on full slices in time order. The window is the last ⌈n/2⌉ slices (the start of a run fills queues in
 * any case); a series grows without bound when its least-squares slope's 95% lower bound is > 0 AND its last third is
 * ≥ SATURATION_GROWTH × its first third (in-flight also by ≥ SATURATION_MIN_IN_FLIGHT_RISE requests, fitted over the
 * window). Saturated when in-flight or TTFT grows. null with fewer than SATURATION_MIN_SLICES slices.
 */
export function saturationTest(points: readonly SaturationPoint[], sliceS: number, stopped = false): SaturationSummary | null {
  if (points.length < SATURATION_MIN_SLICES) return null;
  const w = points.slice(points.length - Math.ceil(points.length / 2));
  const test = (pick: (p: SaturationPoint) => number | null, minRise = 0): SeriesTest | null => {
    const kept = w.filter((p) => pick(p) !== null);
    const r = slopeTest(kept.map((p) => p.t), kept.map((p) => pick(p)!));
    if (!r) return null;
    const span = kept[kept.length - 1].t - kept[0].t;
    return { ...r, growing: r.slope_low > 0 && r.growth >= SATURATION_GROWTH && r.slope_per_s * span >= minRise };
  };
  const inFlight = test((p) => p.inFlight, SATURATION_MIN_IN_FLIGHT_RISE);
  const ttft = test((p) => p.ttftMs);
  const growing = [...(inFlight?.growing ? ['in_flight'] : []), ...(ttft?.growing ? ['ttft'] : [])];
  const said = (name: string, unit: string, r: SeriesTest | null) =>
    r ? `${name} slope ${fmt(r.slope_per_s)}${unit}/s (95% lower bound ${fmt(r.slope_low)}), last/first third ×${Number.isFinite(r.growth) ? r.growth.toFixed(2) : '∞'}` : `${name}: too few values`;
  const head = growing.length ? `over-saturated: ${growing.join(' and ').replace('in_flight', 'in-flight requests').replace('ttft', 'TTFT')} growing without bound` : 'not saturated';
  return {
    saturated: growing.length > 0,
    stopped,
    growing,
    detail: `${head} over the last ${w.length} of ${points.length} slices of ${fmt(sliceS)} s: ${said('in-flight', '', inFlight)}; ${said('TTFT', ' ms', ttft)}`,
    slice_s: sliceS,
    slices: points.length,
    tests: { in_flight: inFlight, ttft_ms: ttft },
  };
}
