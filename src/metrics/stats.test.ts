import { describe, it, expect } from 'vitest';
import { distStats, parsePercentiles, percentile, percentileKey } from './stats.js';

describe('distStats', () => {
  it('matches hand-computed numpy-linear percentiles', () => {
    const s = distStats([4, 1, 3, 2, 10]);
    expect(s.count).toBe(5);
    expect(s.mean).toBe(4);
    expect(s.min).toBe(1);
    expect(s.max).toBe(10);
    expect(s.p50).toBe(3);
    // rank = 0.9 * 4 = 3.6 → 4 + 0.6 * (10 - 4) = 7.6
    expect(s.p90).toBeCloseTo(7.6, 10);
    expect(s.p99).toBeCloseTo(4 + 0.96 * 6, 10);
    // population stdev of [1,2,3,4,10]: var = (9+4+1+0+36)/5 = 10
    expect(s.stdev).toBeCloseTo(Math.sqrt(10), 10);
  });
  it('handles empty and single samples', () => {
    expect(distStats([]).mean).toBeNull();
    expect(distStats([7]).p99).toBe(7);
    expect(percentile([1, 2], 50)).toBe(1.5);
  });
});

describe('percentiles of choice', () => {
  it('keys extra percentiles p + number with . → _, beside the four that are always there', () => {
    expect(percentileKey(99.9)).toBe('p99_9');
    expect(percentileKey(99.99)).toBe('p99_99');
    expect(percentileKey(50)).toBe('p50');
    const xs = Array.from({ length: 1001 }, (_, i) => 1000 - i); // 0..1000, unsorted
    const s = distStats(xs, [50, 99.9, 75]);
    expect(Object.keys(s)).toEqual(['count', 'mean', 'stdev', 'min', 'max', 'p50', 'p75', 'p90', 'p95', 'p99', 'p99_9']);
    // rank = p/100 · (n − 1) over 0..1000 is the value itself.
    expect(s.p99_9).toBeCloseTo(999, 9);
    expect(s.p75).toBeCloseTo(750, 9);
    expect(distStats([], [99.9]).p99_9).toBeNull();
    expect(Object.keys(distStats([1, 2]))).toEqual(['count', 'mean', 'stdev', 'min', 'max', 'p50', 'p90', 'p95', 'p99']);
  });
  it('parses a list, sorted and without repeats, and names every bad value', () => {
    expect(parsePercentiles('99.9, 50,90,50')).toEqual({ percentiles: [50, 90, 99.9] });
    expect(parsePercentiles([99, 50])).toEqual({ percentiles: [50, 99] });
    const bad = parsePercentiles('0,50,100,abc,1e2,-5', '--percentiles');
    expect('problems' in bad && bad.problems).toEqual(['0', '100', 'abc', '1e2', '-5'].map((v) => expect.stringMatching(new RegExp(`^--percentiles: "${v}" is not a percentile`))));
    expect(parsePercentiles('')).toEqual({ problems: [expect.stringContaining('expected a list of percentiles')] });
  });
});
