// The percentile bootstrap of bootstrapDiff for several statistics of one metric at once, by resample counts instead of sorts.
import { createRng } from '../../util/rng.js';
import { BOOTSTRAP_MAX_N, BOOTSTRAP_RESAMPLES, type TestResult } from './tests.js';

/** A statistic a bootstrap row asks for: the mean, or a percentile 0–100 (linear between order statistics, as summaries do). */
export type BootStat = 'mean' | number;

/** The sample sorted, an even subsample of BOOTSTRAP_MAX_N values beyond that (as bootstrapDiff caps). */
function capSorted(x: ArrayLike<number>): Float64Array {
  if (x.length <= BOOTSTRAP_MAX_N) return Float64Array.from(x).sort();
  const step = x.length / BOOTSTRAP_MAX_N;
  return Float64Array.from({ length: BOOTSTRAP_MAX_N }, (_, i) => x[Math.floor(i * step)]).sort();
}

/** The 0-based order-statistic positions each percentile reads (rank = p/100·(n − 1), between floor and ceil). */
const positionsOf = (stats: readonly BootStat[], n: number): number[] =>
  [...new Set(stats.flatMap((s) => (s === 'mean' ? [] : [Math.floor((s / 100) * (n - 1)), Math.ceil((s / 100) * (n - 1))])))].sort((a, b) => a - b);

/**
 * Each statistic of the resample given by `counts` (counts[i] = how often sorted[i] was drawn, Σ = n): one pass over the
 * cumulative counts finds the order statistics the percentiles need, so no resample is ever sorted.
 */
function statsOfCounts(sorted: Float64Array, counts: Uint32Array, stats: readonly BootStat[], positions: readonly number[], out: Float64Array): void {
  const n = sorted.length;
  const at = new Map<number, number>();
  let sum = 0;
  let cum = 0;
  let k = 0;
  for (let i = 0; i < n; i++) {
    const c = counts[i];
    if (c === 0) continue;
    sum += c * sorted[i];
    cum += c;
    while (k < positions.length && positions[k] < cum) at.set(positions[k++], sorted[i]);
  }
  stats.forEach((s, j) => {
    if (s === 'mean') out[j] = sum / n;
    else {
      const rank = (s / 100) * (n - 1);
      const lo = at.get(Math.floor(rank))!;
      out[j] = lo + (at.get(Math.ceil(rank))! - lo) * (rank - Math.floor(rank));
    }
  });
}

/** A statistic of a whole sorted sample (the observed difference is taken on every value, uncapped). */
function statOf(sorted: Float64Array, s: BootStat): number {
  const n = sorted.length;
  if (s === 'mean') return sorted.reduce((a, x) => a + x, 0) / n;
  const rank = (s / 100) * (n - 1);
  const lo = sorted[Math.floor(rank)];
  return lo + (sorted[Math.ceil(rank)] - lo) * (rank - Math.floor(rank));
}

/**
 * bootstrapDiff's method (seeded percentile bootstrap of stat(b) − stat(a), interval at the (α/2, 1 − α/2) points, p =
 * 2·min(P*(d ≤ 0), P*(d ≥ 0)), the same resample count, seed and cap) for several statistics sharing each resample:
 * a resample is drawn as counts over the sorted sample, O(n) per resample instead of a sort. null when a side has
 * fewer than 2 values.
 */
export function bootstrapDiffs(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  stats: readonly BootStat[],
  opts: { resamples?: number; conf?: number; seed?: number } = {},
): (TestResult | null)[] {
  if (a.length < 2 || b.length < 2) return stats.map(() => null);
  const resamples = opts.resamples ?? BOOTSTRAP_RESAMPLES;
  const alpha = 1 - (opts.conf ?? 0.95);
  const rng = createRng(opts.seed ?? 0x5eed);
  const sa = capSorted(a);
  const sb = capSorted(b);
  const fullA = Float64Array.from(a).sort();
  const fullB = Float64Array.from(b).sort();
  const pa = positionsOf(stats, sa.length);
  const pb = positionsOf(stats, sb.length);
  const ca = new Uint32Array(sa.length);
  const cb = new Uint32Array(sb.length);
  const va = new Float64Array(stats.length);
  const vb = new Float64Array(stats.length);
  const diffs = stats.map(() => new Float64Array(resamples));
  for (let r = 0; r < resamples; r++) {
    ca.fill(0);
    cb.fill(0);
    for (let i = 0; i < sa.length; i++) ca[Math.floor(rng.next() * sa.length)]++;
    for (let i = 0; i < sb.length; i++) cb[Math.floor(rng.next() * sb.length)]++;
    statsOfCounts(sa, ca, stats, pa, va);
    statsOfCounts(sb, cb, stats, pb, vb);
    for (let j = 0; j < stats.length; j++) diffs[j][r] = vb[j] - va[j];
  }
  return stats.map((s, j) => {
    const d = diffs[j];
    let le = 0;
    let ge = 0;
    for (const x of d) {
      if (x <= 0) le++;
      if (x >= 0) ge++;
    }
    d.sort();
    const at = (q: number) => d[Math.min(resamples - 1, Math.max(0, Math.floor(q * resamples)))];
    return { diff: statOf(fullB, s) - statOf(fullA, s), ci: [at(alpha / 2), at(1 - alpha / 2)], p: Math.min(1, (2 * Math.min(le, ge)) / resamples), method: 'bootstrap' };
  });
}
