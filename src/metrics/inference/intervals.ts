// Confidence intervals of one sample: distribution-free order-statistic intervals for percentiles, t-intervals for means (docs/metrics.md#confidence-intervals).
import { normalQuantile, tQuantile } from './distributions.js';

/** A two-sided interval [low, high]; null where the sample is too small to give one at the asked confidence. */
export type Interval = [number, number];

/** Exact binomial search up to this many values; beyond, the normal approximation to the binomial (error < 1 rank). */
const EXACT_RANKS_UP_TO = 2000;

/**
 * The 0-based ranks of the order statistics X(r), X(s) that bracket the q-quantile ξ with coverage ≥ conf, the classical
 * distribution-free interval: with B ~ Binomial(n, q) the count of values ≤ ξ, P(X(r) ≤ ξ ≤ X(s)) = P(r ≤ B ≤ s − 1).
 * r is the largest rank with P(B ≤ r − 1) ≤ α/2, s the smallest with P(B ≥ s) ≤ α/2 (each tail at most α/2).
 * Exact up to EXACT_RANKS_UP_TO values, then r, s = nq ∓ z·√(nq(1−q)) rounded outwards. null when the sample is too
 * small for that coverage (at 95%: p50 needs n ≥ 6, p90 n ≥ 36, p99 n ≥ 368).
 */
export function orderStatisticRanks(n: number, q: number, conf = 0.95): [number, number] | null {
  if (n < 2) return null;
  const a = (1 - conf) / 2;
  let lo: number;
  let hi: number;
  if (n <= EXACT_RANKS_UP_TO) {
    // lo = largest r with P(B ≤ r − 1) ≤ a (r = 1-based rank of the lower bound); hi = smallest s with P(B ≥ s) ≤ a.
    // One pass of the pmf (O(n)), each tail summed from its own end: a CDF call per candidate rank cost O(n²).
    const pmf = binomialPmf(n, q);
    lo = 0;
    for (let cdf = pmf[0]; lo + 1 <= n && cdf <= a; cdf += pmf[lo]) lo++;
    hi = n + 1;
    for (let tail = pmf[n]; hi - 1 >= 1 && tail <= a; tail += pmf[hi - 1]) hi--;
  } else {
    const z = normalQuantile(1 - a);
    const sd = Math.sqrt(n * q * (1 - q));
    lo = Math.floor(n * q - z * sd);
    hi = Math.ceil(n * q + z * sd) + 1;
  }
  // lo, hi are 1-based ranks here; 0 or n+1 would mean an unbounded side.
  if (lo < 1 || hi > n) return null;
  return [lo - 1, hi - 1];
}

/** P(B = k) for k = 0…n, B ~ Binomial(n, q), 0 < q < 1: log-space recurrence ln P(k+1) = ln P(k) + ln((n−k)/(k+1)) + ln(q/(1−q)). */
export function binomialPmf(n: number, q: number): Float64Array {
  const out = new Float64Array(n + 1);
  const odds = Math.log(q) - Math.log1p(-q);
  let lp = n * Math.log1p(-q);
  for (let k = 0; k <= n; k++) {
    out[k] = Math.exp(lp);
    lp += Math.log((n - k) / (k + 1)) + odds;
  }
  return out;
}

/** Distribution-free 95% interval of the p-th percentile (p in 0–100) of an ascending sample, or null when too small. */
export function percentileInterval(sorted: ArrayLike<number>, p: number, conf = 0.95): Interval | null {
  const r = orderStatisticRanks(sorted.length, p / 100, conf);
  return r ? [sorted[r[0]], sorted[r[1]]] : null;
}

/** The arithmetic mean of a non-empty sample. */
export function sampleMean(x: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i];
  return s / x.length;
}

/** The sample variance Σ(x − m)² / (n − 1) around the sample's mean `m` (n ≥ 2). */
export function sampleVariance(x: ArrayLike<number>, m: number): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += (x[i] - m) ** 2;
  return s / (x.length - 1);
}

/** Mean, sample standard deviation (n − 1) and the t-interval mean ± t(1−α/2, n−1)·s/√n; null interval for n < 2. */
export function meanInterval(values: ArrayLike<number>, conf = 0.95): { mean: number | null; sd: number | null; ci: Interval | null } {
  const n = values.length;
  if (n === 0) return { mean: null, sd: null, ci: null };
  const mean = sampleMean(values);
  if (n < 2) return { mean, sd: null, ci: null };
  const sd = Math.sqrt(sampleVariance(values, mean));
  const half = tQuantile(1 - (1 - conf) / 2, n - 1) * (sd / Math.sqrt(n));
  return { mean, sd, ci: [mean - half, mean + half] };
}

/**
 * Batch means: the series (one value per time slice, e.g. tokens/s in each 10 s slice) treated as k roughly independent
 * batch means, the interval mean ± t(0.975, k−1)·s/√k. Needs k ≥ 2 slices; assumes slices long enough that their
 * means are nearly uncorrelated (docs/metrics.md#confidence-intervals).
 */
export const batchMeansInterval = (batches: ArrayLike<number>, conf = 0.95): Interval | null => meanInterval(batches, conf).ci;
