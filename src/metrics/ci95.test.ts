// The ci95 wiring of summary distributions: a key per carried figure, null below the sizes the method needs, bounds around the figure.
import { describe, expect, it } from 'vitest';
import { createRng } from '../util/rng.js';
import { ci95Of, distStatsCi, ranks95, t975 } from './ci95.js';
import { ItlStore } from './aggregator.js';
import { meanInterval, orderStatisticRanks, tQuantile } from './inference/index.js';
import { distStats, percentileKey } from './stats.js';

const lognormal = (n: number, seed: number): number[] => {
  const rng = createRng(seed);
  return Array.from({ length: n }, () => Math.round(Math.exp(5 + 0.6 * rng.normal()) * 1000) / 1000);
};

describe('distStatsCi', () => {
  it('carries an interval for the mean and every carried percentile, --percentiles 99.9 included, keyed like the figures', () => {
    const d = distStatsCi(lognormal(20_000, 1), [99.9]);
    expect(Object.keys(d.ci95!)).toEqual(['mean', 'p50', 'p90', 'p95', 'p99', 'p99_9']);
    for (const k of Object.keys(d.ci95!)) expect(d.ci95![k], k).not.toBeNull();
    // The figures themselves are distStats', unchanged.
    const { ci95: _, ...figures } = d;
    expect(figures).toEqual(distStats(lognormal(20_000, 1), [99.9]));
  });

  it('is null where the sample is too small: nothing for 0 or 1 value, p50 from 6 values, p90 from 36, p99 from 368', () => {
    expect(distStatsCi([]).ci95).toEqual({ mean: null, p50: null, p90: null, p95: null, p99: null });
    expect(distStatsCi([42]).ci95).toEqual({ mean: null, p50: null, p90: null, p95: null, p99: null });
    const five = distStatsCi([1, 2, 3, 4, 5]).ci95!;
    expect(five.mean).not.toBeNull();
    expect(five.p50).toBeNull();
    const six = distStatsCi([1, 2, 3, 4, 5, 6]).ci95!;
    expect(six.p50).toEqual([1, 6]);
    expect(six.p90).toBeNull();
    expect(distStatsCi(lognormal(36, 2)).ci95!.p90).not.toBeNull();
    expect(distStatsCi(lognormal(367, 3)).ci95!.p99).toBeNull();
    expect(distStatsCi(lognormal(368, 3)).ci95!.p99).not.toBeNull();
  });

  it('brackets every figure (lo ≤ value ≤ hi) for sizes on both sides of the exact-rank limit', () => {
    for (const n of [6, 7, 40, 99, 370, 1000, 1999, 2000, 2001, 2500, 20_000]) {
      const d = distStatsCi(lognormal(n, n), [99.9]);
      for (const [k, ci] of Object.entries(d.ci95!)) {
        if (!ci) continue;
        const v = d[k as 'mean'] as number;
        expect(ci[0], `n=${n} ${k}`).toBeLessThanOrEqual(v);
        expect(v, `n=${n} ${k}`).toBeLessThanOrEqual(ci[1]);
        expect(ci[0], `n=${n} ${k}`).toBeLessThan(ci[1]);
      }
    }
  });

  it('reads the order statistics of the binomial ranks, and the mean interval is the t-interval', () => {
    const xs = lognormal(1500, 9);
    const sorted = [...xs].sort((a, b) => a - b);
    const d = distStatsCi(xs, [99.9]);
    for (const p of [50, 90, 95, 99]) {
      const r = orderStatisticRanks(xs.length, p / 100)!;
      expect(d.ci95![percentileKey(p)]).toEqual([sorted[r[0]], sorted[r[1]]]);
    }
    // (meanInterval's jstat quantile and ci95's expansion differ by ~1e-8 at this n: half-widths agree to 1e-6)
    const m = meanInterval(xs).ci!;
    expect(d.ci95!.mean![0]).toBeCloseTo(m[0], 6);
    expect(d.ci95!.mean![1]).toBeCloseTo(m[1], 6);
    // A constant sample: the mean is known exactly.
    expect(distStatsCi([3, 3, 3]).ci95!.mean).toEqual([3, 3]);
  });

  it('t(0.975, df) past df 100 (the Cornish–Fisher expansion) matches the reference quantiles to 1e-9', () => {
    // scipy.stats.t.ppf(0.975, df); jstat's inverse is itself within about 1e-7 of them.
    const ref: [number, number][] = [[101, 1.983731002955606], [150, 1.9759053308966201], [400, 1.9659123432294627], [1999, 1.9611514201705613], [10_000, 1.960201239890626], [1e6, 1.959966356814107]];
    for (const [df, t] of ref) {
      expect(Math.abs(t975(df) - t), String(df)).toBeLessThan(1e-9);
      expect(Math.abs(tQuantile(0.975, df) - t), String(df)).toBeLessThan(1e-6);
    }
    expect(t975(9)).toBe(tQuantile(0.975, 9));
  });

  it('computes ranks once per (n, p)', () => {
    expect(ranks95(777, 90)).toBe(ranks95(777, 90));
    expect(ranks95(777, 90)).toEqual(orderStatisticRanks(777, 0.9));
  });

  it('covers the true median and p90 of a known population in most seeded samples (the wiring end to end)', () => {
    // Lognormal(5, 0.6): median e^5, p90 e^(5 + 0.6·1.2816).
    const truth = { p50: Math.exp(5), p90: Math.exp(5 + 0.6 * 1.2815516) };
    const hits = { p50: 0, p90: 0 };
    const trials = 200;
    for (let t = 0; t < trials; t++) {
      const ci = distStatsCi(lognormal(400, 500 + t)).ci95!;
      for (const k of ['p50', 'p90'] as const) if (ci[k]![0] <= truth[k] && truth[k] <= ci[k]![1]) hits[k]++;
    }
    for (const k of ['p50', 'p90'] as const) {
      expect(hits[k] / trials, k).toBeGreaterThan(0.9);
      expect(hits[k] / trials, k).toBeLessThan(1);
    }
  });
});

describe('ci95 of ITL past its exact limit', () => {
  it('reads the interval ends from the histogram: within 0.1% of the exact order statistics', () => {
    const xs = lognormal(30_000, 4).map((x) => x / 20);
    const exact = distStatsCi(xs, [99.9]);
    const s = new ItlStore(1000);
    for (const x of xs) s.add(x);
    expect(s.exactMode).toBe(false);
    const h = s.stats([99.9]);
    expect(Object.keys(h.ci95!)).toEqual(Object.keys(exact.ci95!));
    for (const [k, ci] of Object.entries(exact.ci95!)) {
      const hc = h.ci95![k]!;
      for (const i of [0, 1]) expect(Math.abs(hc[i] - ci![i]), `${k}[${i}]`).toBeLessThanOrEqual(ci![i] * 1e-3 + 0.002);
    }
  });

  it('ci95Of with too few values gives nulls', () => {
    expect(ci95Of(1, 5, 0, () => 5)).toEqual({ mean: null, p50: null, p90: null, p95: null, p99: null });
  });
});
