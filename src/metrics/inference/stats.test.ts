import { describe, expect, it } from 'vitest';
import { createRng } from '../../util/rng.js';
import { binomialCdf, bootstrapDiff, mannWhitney, meanInterval, orderStatisticRanks, percentileInterval, tQuantile, welchTest } from './index.js';

const sample = (n: number, seed: number, shift = 0): Float64Array => {
  const rng = createRng(seed);
  return Float64Array.from({ length: n }, () => 100 + shift + 10 * rng.normal());
};

describe('order-statistic percentile intervals', () => {
  it('needs the sample sizes the binomial says', () => {
    expect(orderStatisticRanks(5, 0.5)).toBeNull();
    expect(orderStatisticRanks(6, 0.5)).toEqual([0, 5]);
    expect(orderStatisticRanks(35, 0.9)).toBeNull();
    expect(orderStatisticRanks(36, 0.9)).not.toBeNull();
    expect(orderStatisticRanks(367, 0.99)).toBeNull();
    expect(orderStatisticRanks(368, 0.99)).not.toBeNull();
  });
  it('one pass of the pmf gives the ranks of a CDF search (jstat) rank by rank', () => {
    // The definition, one binomial CDF call per candidate rank (O(n²)): what the single pass must reproduce.
    const bySearch = (n: number, q: number): [number, number] | null => {
      let lo = 0;
      while (lo + 1 <= n && binomialCdf(lo, n, q) <= 0.025) lo++;
      let hi = n + 1;
      while (hi - 1 >= 1 && 1 - binomialCdf(hi - 2, n, q) <= 0.025) hi--;
      return lo < 1 || hi > n ? null : [lo - 1, hi - 1];
    };
    for (const q of [0.1, 0.5, 0.9, 0.95, 0.99, 0.999])
      for (const n of [2, 3, 5, 6, 7, 10, 35, 36, 37, 50, 99, 100, 367, 368, 369, 500, 999, 1500, 2000])
        expect(orderStatisticRanks(n, q), `n=${n} q=${q}`).toEqual(bySearch(n, q));
  });
  it('covers the true median about 95% of the time (exact and normal-approximation ranks)', () => {
    for (const n of [101, 3001]) {
      let hits = 0;
      const trials = 400;
      for (let t = 0; t < trials; t++) {
        const s = sample(n, 1000 + t).sort();
        const ci = percentileInterval(s, 50)!;
        if (ci[0] <= 100 && 100 <= ci[1]) hits++;
      }
      expect(hits / trials).toBeGreaterThan(0.92);
      expect(hits / trials).toBeLessThan(0.995);
    }
  });
});

describe('t-intervals', () => {
  it('matches the textbook quantile and a hand computation', () => {
    expect(tQuantile(0.975, 9)).toBeCloseTo(2.262157, 5);
    const m = meanInterval([1, 2, 3, 4, 5]);
    expect(m.mean).toBe(3);
    expect(m.sd).toBeCloseTo(Math.sqrt(2.5), 12);
    expect(m.ci![1] - 3).toBeCloseTo(2.776445 * Math.sqrt(2.5) / Math.sqrt(5), 5);
    expect(meanInterval([7]).ci).toBeNull();
  });
});

describe('two-sample tests', () => {
  it('Welch: a pair computed by hand', () => {
    // By hand: means 19.8 and 21.86, t = 2.06 / √(va/5 + vb/5) = 3.696, Welch df = 7.93, two-sided p ≈ 0.0062.
    const r = welchTest([19.1, 20.3, 18.7, 21.0, 19.9], [21.5, 22.0, 20.8, 23.1, 21.9])!;
    expect(r.diff).toBeCloseTo(2.06, 10);
    expect(r.p).toBeGreaterThan(0.0055);
    expect(r.p).toBeLessThan(0.007);
    expect(r.ci![0]).toBeGreaterThan(0);
  });
  it('same distribution → large p; shifted → tiny p (Mann–Whitney and bootstrap agree)', () => {
    const a = sample(500, 1);
    const same = sample(500, 2);
    const shifted = sample(500, 3, 5);
    expect(mannWhitney(a, same)!.p).toBeGreaterThan(0.05);
    expect(mannWhitney(a, shifted)!.p).toBeLessThan(1e-6);
    const med = (s: Float64Array) => s[Math.floor(s.length / 2)];
    const bSame = bootstrapDiff(a, same, med, { resamples: 500 })!;
    expect(bSame.ci![0]).toBeLessThan(0);
    expect(bSame.ci![1]).toBeGreaterThan(0);
    const bShift = bootstrapDiff(a, shifted, med, { resamples: 500 })!;
    expect(bShift.ci![0]).toBeGreaterThan(0);
    expect(bShift.p).toBeLessThan(0.01);
    expect(bootstrapDiff(a, shifted, med, { resamples: 500 })).toEqual(bShift);
  });
});
