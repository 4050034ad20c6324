import { describe, expect, it } from 'vitest';
import { createRng } from '../../util/rng.js';
import { percentile } from '../stats.js';
import { bootstrapDiff, bootstrapDiffs, sampleMean } from './index.js';

const sample = (n: number, seed: number, shift = 0): Float64Array => {
  const rng = createRng(seed);
  return Float64Array.from({ length: n }, () => 100 + shift + 10 * rng.normal() + (rng.next() < 0.05 ? 80 * rng.next() : 0));
};

/** The same bootstrap done the slow way: draw each resample from the sorted samples with the same generator, sort it, take the statistic. */
function reference(a: Float64Array, b: Float64Array, stat: (s: Float64Array) => number, resamples: number): { ci: [number, number]; p: number } {
  const rng = createRng(0x5eed);
  const sa = Float64Array.from(a).sort();
  const sb = Float64Array.from(b).sort();
  const d = new Float64Array(resamples);
  let le = 0;
  let ge = 0;
  for (let r = 0; r < resamples; r++) {
    const ra = Float64Array.from({ length: sa.length }, () => sa[Math.floor(rng.next() * sa.length)]).sort();
    const rb = Float64Array.from({ length: sb.length }, () => sb[Math.floor(rng.next() * sb.length)]).sort();
    d[r] = stat(rb) - stat(ra);
    if (d[r] <= 0) le++;
    if (d[r] >= 0) ge++;
  }
  d.sort();
  const at = (q: number) => d[Math.min(resamples - 1, Math.floor(q * resamples))];
  return { ci: [at(0.025), at(0.975)], p: Math.min(1, (2 * Math.min(le, ge)) / resamples) };
}

describe('bootstrapDiffs (several statistics from one set of resample counts)', () => {
  it('equals resampling and sorting with the same draws, for the mean and interpolated percentiles', () => {
    const a = sample(157, 1);
    const b = sample(203, 2, 3);
    const stats = ['mean', 50, 90, 99, 99.9] as const;
    const got = bootstrapDiffs(a, b, stats, { resamples: 300 });
    stats.forEach((s, i) => {
      const f = s === 'mean' ? sampleMean : (x: Float64Array) => percentile(x, s)!;
      const ref = reference(a, b, f, 300);
      expect(got[i]!.ci![0], String(s)).toBeCloseTo(ref.ci[0], 9);
      expect(got[i]!.ci![1], String(s)).toBeCloseTo(ref.ci[1], 9);
      expect(got[i]!.p, String(s)).toBe(ref.p);
      expect(got[i]!.diff).toBeCloseTo(f(Float64Array.from(b).sort()) - f(Float64Array.from(a).sort()), 9);
    });
  });

  it('agrees with bootstrapDiff in what it concludes (different draws, same method)', () => {
    const a = sample(800, 3);
    const b = sample(800, 4, 2);
    const med = (s: Float64Array) => percentile(s, 50)!;
    const one = bootstrapDiff(a, b, med)!;
    const many = bootstrapDiffs(a, b, [50])[0]!;
    expect(many.diff).toBeCloseTo(one.diff, 12);
    const width = one.ci![1] - one.ci![0];
    expect(Math.abs(many.ci![0] - one.ci![0])).toBeLessThan(width / 4);
    expect(Math.abs(many.ci![1] - one.ci![1])).toBeLessThan(width / 4);
    expect(bootstrapDiffs(a, b, [50])).toEqual(bootstrapDiffs(a, b, [50]));
    expect(bootstrapDiffs([1], b, [50, 'mean'])).toEqual([null, null]);
  });
});
