import { describe, it, expect } from 'vitest';
import { distStats, percentile } from './stats.js';

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
