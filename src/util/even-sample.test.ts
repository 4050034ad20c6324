import { describe, it, expect } from 'vitest';
import { EvenSample } from './even-sample.js';

describe('EvenSample', () => {
  it('keeps everything up to max, then an even spread of at most max in stream order', () => {
    const small = new EvenSample<number>(10);
    for (let i = 0; i < 7; i++) small.add(i);
    expect(small.items()).toEqual([0, 1, 2, 3, 4, 5, 6]);
    const big = new EvenSample<number>(10);
    for (let i = 0; i < 100; i++) big.add(i);
    const xs = big.items();
    expect(big.total).toBe(100);
    expect(xs.length).toBeLessThanOrEqual(10);
    expect(xs.length).toBeGreaterThan(5);
    // Every k-th item: the gaps are equal, and the spread covers the stream.
    const gaps = new Set(xs.slice(1).map((x, i) => x - xs[i]));
    expect(gaps.size).toBe(1);
    expect(xs[0]).toBe(0);
    expect(xs.at(-1)!).toBeGreaterThan(70);
  });
});
