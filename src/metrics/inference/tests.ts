// Two-sample tests for compare: Welch's t-test, Mann–Whitney U and a bootstrap interval of a difference in a statistic.
import { createRng } from '../../util/rng.js';
import { normalCdf, tCdf, tQuantile } from './distributions.js';
import { sampleMean as mean, sampleVariance as variance, type Interval } from './intervals.js';

export interface TestResult {
  /** The candidate's statistic minus the baseline's. */
  diff: number;
  /** 95% (or 1 − alpha) interval of diff; null when it cannot be formed. */
  ci: Interval | null;
  /** Two-sided p-value of "no difference". */
  p: number;
  method: 'welch' | 'mann-whitney' | 'bootstrap';
}


/**
 * Welch's t-test of mean(b) − mean(a): t = d / √(va/na + vb/nb), Welch–Satterthwaite df; needs ≥ 2 values a side.
 * Both means equal and both variances 0 gives p = 1; distinct means with zero variance give p = 0.
 */
export function welchTest(a: ArrayLike<number>, b: ArrayLike<number>, conf = 0.95): TestResult | null {
  if (a.length < 2 || b.length < 2) return null;
  const ma = mean(a);
  const mb = mean(b);
  const sa = variance(a, ma) / a.length;
  const sb = variance(b, mb) / b.length;
  const diff = mb - ma;
  const se = Math.sqrt(sa + sb);
  if (se === 0) return { diff, ci: [diff, diff], p: diff === 0 ? 1 : 0, method: 'welch' };
  const df = (sa + sb) ** 2 / (sa ** 2 / (a.length - 1) + sb ** 2 / (b.length - 1));
  const t = diff / se;
  const half = tQuantile(1 - (1 - conf) / 2, df) * se;
  return { diff, ci: [diff - half, diff + half], p: Math.min(1, 2 * tCdf(-Math.abs(t), df)), method: 'welch' };
}

/**
 * Mann–Whitney U (Wilcoxon rank-sum) of b against a: normal approximation with tie correction and continuity
 * correction, two-sided. Tests whether one sample tends to larger values (a shift in the median when shapes match).
 * It gives no interval: compare's interval of a median difference comes from bootstrapDiff.
 */
export function mannWhitney(a: ArrayLike<number>, b: ArrayLike<number>): { u: number; z: number; p: number } | null {
  const na = a.length;
  const nb = b.length;
  if (na === 0 || nb === 0) return null;
  const all: { v: number; g: 0 | 1 }[] = [];
  for (let i = 0; i < na; i++) all.push({ v: a[i], g: 0 });
  for (let i = 0; i < nb; i++) all.push({ v: b[i], g: 1 });
  all.sort((x, y) => x.v - y.v);
  const n = na + nb;
  let rankSumB = 0;
  let tieTerm = 0;
  for (let i = 0; i < n; ) {
    let j = i;
    while (j + 1 < n && all[j + 1].v === all[i].v) j++;
    const r = (i + j + 2) / 2;
    const t = j - i + 1;
    if (t > 1) tieTerm += t ** 3 - t;
    for (let k = i; k <= j; k++) if (all[k].g === 1) rankSumB += r;
    i = j + 1;
  }
  const u = rankSumB - (nb * (nb + 1)) / 2;
  const mu = (na * nb) / 2;
  const sigma = Math.sqrt(((na * nb) / 12) * (n + 1 - tieTerm / (n * (n - 1))));
  if (sigma === 0) return { u, z: 0, p: 1 };
  const z = (Math.abs(u - mu) - 0.5) / sigma;
  return { u, z: Math.sign(u - mu) * Math.max(0, z), p: Math.min(1, 2 * (1 - normalCdf(Math.max(0, z)))) };
}

/** How many resamples the bootstrap draws (2,000: the 2.5% and 97.5% points each rest on 50 draws). */
export const BOOTSTRAP_RESAMPLES = 2000;
/** Resample at most this many values a side (an even subsample beyond), so compare stays well under a second. */
export const BOOTSTRAP_MAX_N = 5000;

/**
 * Percentile bootstrap of stat(b) − stat(a): resample each side with replacement `resamples` times (seeded, so compare
 * prints the same p on every call), interval = the (α/2, 1 − α/2) points of the resampled differences,
 * p = 2·min(P*(d ≤ 0), P*(d ≥ 0)) (the share of resamples on the other side of zero, two-sided).
 * `stat` gets an ascending Float64Array.
 */
export function bootstrapDiff(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  stat: (sorted: Float64Array) => number,
  opts: { resamples?: number; conf?: number; seed?: number } = {},
): TestResult | null {
  if (a.length < 2 || b.length < 2) return null;
  const resamples = opts.resamples ?? BOOTSTRAP_RESAMPLES;
  const conf = opts.conf ?? 0.95;
  const rng = createRng(opts.seed ?? 0x5eed);
  const cap = (x: ArrayLike<number>): Float64Array => {
    if (x.length <= BOOTSTRAP_MAX_N) return Float64Array.from(x);
    const step = x.length / BOOTSTRAP_MAX_N;
    return Float64Array.from({ length: BOOTSTRAP_MAX_N }, (_, i) => x[Math.floor(i * step)]);
  };
  const xa = cap(a);
  const xb = cap(b);
  const diff = stat(Float64Array.from(b).sort()) - stat(Float64Array.from(a).sort());
  const ba = new Float64Array(xa.length);
  const bb = new Float64Array(xb.length);
  const diffs = new Float64Array(resamples);
  let le = 0;
  let ge = 0;
  for (let r = 0; r < resamples; r++) {
    for (let i = 0; i < xa.length; i++) ba[i] = xa[Math.floor(rng.next() * xa.length)];
    for (let i = 0; i < xb.length; i++) bb[i] = xb[Math.floor(rng.next() * xb.length)];
    const d = stat(bb.sort()) - stat(ba.sort());
    diffs[r] = d;
    if (d <= 0) le++;
    if (d >= 0) ge++;
  }
  diffs.sort();
  const at = (q: number) => diffs[Math.min(resamples - 1, Math.max(0, Math.floor(q * resamples)))];
  const alpha = 1 - conf;
  return { diff, ci: [at(alpha / 2), at(1 - alpha / 2)], p: Math.min(1, (2 * Math.min(le, ge)) / resamples), method: 'bootstrap' };
}
