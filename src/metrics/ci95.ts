// The `ci95` of every summary distribution: 95% intervals of its mean and of each percentile it carries (docs/metrics.md#confidence-intervals).
import { orderStatisticRanks, tQuantile } from './inference/index.js';
import { carriedPercentiles, percentileKey, sortedDistStats, type DistStats } from './stats.js';

/** A distribution's intervals, keyed like its figures (mean, p50, …, p99_9); null where the sample is too small. */
export type Ci95 = NonNullable<DistStats['ci95']>;

/** Cached (n, p) ranks and t quantiles kept at most; the caches are cleared past it (a long sweep sees many n). */
const CACHE_MAX = 4096;
const rankCache = new Map<string, [number, number] | null>();
const tCache = new Map<number, number>();

/**
 * orderStatisticRanks(n, p/100) at 95%, computed once per (n, p) in a process: the exact binomial search costs up to a
 * few ms for n ≤ 2,000, and a summary's distributions mostly share n (every metric over the ok requests of a block).
 */
export function ranks95(n: number, p: number): [number, number] | null {
  const key = `${n}:${p}`;
  let r = rankCache.get(key);
  if (r === undefined) {
    if (rankCache.size >= CACHE_MAX) rankCache.clear();
    rankCache.set(key, (r = orderStatisticRanks(n, p / 100)));
  }
  return r;
}

/** Φ⁻¹(0.975). */
const Z975 = 1.959963984540054;

/**
 * t(0.975, df), once per df: jstat's inverse (a few ms each) up to df 100; beyond, the Cornish–Fisher expansion
 * (Abramowitz & Stegun 26.7.5) t = z + g1/ν + g2/ν² + g3/ν³ + g4/ν⁴, whose error there is below 1e-10.
 */
export function t975(df: number): number {
  let t = tCache.get(df);
  if (t === undefined) {
    if (tCache.size >= CACHE_MAX) tCache.clear();
    if (df <= 100) t = tQuantile(0.975, df);
    else {
      const z = Z975;
      const g1 = (z ** 3 + z) / 4;
      const g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96;
      const g3 = (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384;
      const g4 = (79 * z ** 9 + 776 * z ** 7 + 1482 * z ** 5 - 1920 * z ** 3 - 945 * z) / 92160;
      t = z + g1 / df + g2 / df ** 2 + g3 / df ** 3 + g4 / df ** 4;
    }
    tCache.set(df, t);
  }
  return t;
}

/**
 * The intervals of a distribution of n values:
 * - mean: the t-interval mean ± t(0.975, n−1)·s/√n, s the sample standard deviation = stdev·√(n/(n−1)) (stdev is
 *   the population one, ddof = 0); null for n < 2;
 * - each percentile of `asked` and the defaults: [X(r), X(s)], the order statistics of ranks95(n, p), read with
 *   `at(i)` (the i-th smallest value, 0-based); null when n is too small for 95% coverage.
 */
export function ci95Of(n: number, mean: number | null, stdev: number | null, at: (rank: number) => number, asked?: readonly number[]): Ci95 {
  const out: Ci95 = {};
  if (n >= 2 && mean !== null && stdev !== null) {
    const half = (t975(n - 1) * stdev * Math.sqrt(n / (n - 1))) / Math.sqrt(n);
    out.mean = [mean - half, mean + half];
  } else out.mean = null;
  for (const p of carriedPercentiles(asked)) {
    const r = ranks95(n, p);
    out[percentileKey(p)] = r ? [at(r[0]), at(r[1])] : null;
  }
  return out;
}

/** distStats with its ci95, as the summary's distributions carry them: one sort serves the figures and the intervals. */
export function distStatsCi(values: ArrayLike<number>, asked?: readonly number[]): DistStats {
  const sorted = Float64Array.from(values).sort();
  const d = sortedDistStats(sorted, asked);
  return { ...d, ci95: ci95Of(d.count, d.mean, d.stdev, (i) => sorted[i], asked) };
}
