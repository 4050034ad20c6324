// Pure formulas on cumulative histograms: the delta between two scrapes, its mean and its bucket-interpolated quantiles.
import type { CumHistogram } from './normalize.js';

/**
 * `end − base` bucket by bucket (matched by upper bound). A count that went down means the server restarted its
 * counters: the end histogram is then taken alone. A missing base counts as zeros.
 */
export function histogramDelta(base: CumHistogram | undefined, end: CumHistogram): CumHistogram {
  if (!base || end.count < base.count) return end;
  const before = new Map(base.buckets.map(([le, n]) => [le, n]));
  return {
    sum: end.sum - base.sum,
    count: end.count - base.count,
    buckets: end.buckets.map(([le, n]) => [le, Math.max(0, n - (before.get(le) ?? 0))]),
  };
}

/** Mean observation: Δsum / Δcount; null with no observations. */
export const histogramMean = (h: CumHistogram): number | null => (h.count > 0 ? h.sum / h.count : null);

/**
 * The q-quantile as Prometheus' histogram_quantile computes it: find the bucket whose cumulative count first reaches
 * q·count, interpolate linearly between its lower bound (the previous bucket's upper bound, 0 for the first) and its
 * upper bound; in the +Inf bucket the answer is the highest finite bound. Null with no observations or no buckets.
 */
export function histogramQuantile(h: CumHistogram, q: number): number | null {
  const total = h.buckets.length ? h.buckets[h.buckets.length - 1][1] : 0;
  if (total <= 0) return null;
  const rank = q * total;
  let prevLe = 0;
  let prevN = 0;
  for (const [le, n] of h.buckets) {
    if (n >= rank && n > prevN) {
      if (le === Infinity) return prevLe;
      return prevLe + ((le - prevLe) * (rank - prevN)) / (n - prevN);
    }
    if (le !== Infinity) prevLe = le;
    prevN = n;
  }
  return prevLe;
}
