// Histogram deltas between scrapes and their bucket-interpolated quantiles.
import { describe, it, expect } from 'vitest';
import { histogramDelta, histogramMean, histogramQuantile } from './histogram-window.js';

describe('histogram windows', () => {
  const base = { sum: 1, count: 2, buckets: [[0.1, 1], [1, 2], [Infinity, 2]] as [number, number][] };
  const end = { sum: 11, count: 12, buckets: [[0.1, 1], [1, 7], [Infinity, 12]] as [number, number][] };

  it('the delta is bucket by bucket; its mean is Δsum/Δcount', () => {
    const d = histogramDelta(base, end);
    expect(d).toEqual({ sum: 10, count: 10, buckets: [[0.1, 0], [1, 5], [Infinity, 10]] });
    expect(histogramMean(d)).toBe(1);
  });

  it('a counter reset (count went down) takes the end histogram alone', () => {
    expect(histogramDelta(end, base)).toEqual(base);
  });

  it('quantiles interpolate linearly inside the bucket; in +Inf they give the highest finite bound', () => {
    const d = histogramDelta(base, end);
    // 10 observations: 0 in (0, 0.1], 5 in (0.1, 1], 5 above 1.
    expect(histogramQuantile(d, 0.25)).toBeCloseTo(0.1 + 0.9 * (2.5 / 5), 10);
    expect(histogramQuantile(d, 0.5)).toBeCloseTo(1, 10);
    expect(histogramQuantile(d, 0.99)).toBe(1);
    expect(histogramQuantile({ sum: 0, count: 0, buckets: [] }, 0.5)).toBeNull();
  });
});
