import { describe, it, expect } from 'vitest';
import { createTokenCounter } from './count-pool.js';
import { estimateTokens } from './token-estimate.js';

describe('estimateTokens', () => {
  it('is ceil(other chars / 4) + one per CJK character', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abcdefgh')).toBe(2);
    expect(estimateTokens('abcde')).toBe(2);
    expect(estimateTokens('好'.repeat(10))).toBe(10);
    expect(estimateTokens('こんにちは 세계 ab')).toBe(7 + 1); // 7 kana/Hangul + ceil(3 / 4)
    expect(estimateTokens('😀😀😀😀')).toBe(1); // code points, not UTF-16 units
  });
});

describe('createTokenCounter', () => {
  it('counts exactly on its thread when the text is quick to count', async () => {
    const c = createTokenCounter('cl100k_base');
    try {
      expect(await c.count(['', 'hello world'])).toEqual({ counts: [0, 2], source: 'tokenizer' });
    } finally {
      await c.close();
    }
  }, 30_000);

  it('estimates at once what is longer than the size bound', async () => {
    const c = createTokenCounter('cl100k_base', { maxChars: 1000 });
    try {
      const t0 = performance.now();
      expect(await c.count(['x'.repeat(2000)])).toEqual({ counts: [500], source: 'estimate' });
      expect(performance.now() - t0).toBeLessThan(100); // no thread was started for it
    } finally {
      await c.close();
    }
  }, 30_000);

  it('replaces a thread stuck in a count with the estimate after the time bound', async () => {
    const c = createTokenCounter('cl100k_base', { timeoutMs: 50 });
    try {
      await c.count(['warm up']);
      const t0 = performance.now();
      // BPE is O(n log n) now, but one 900k-char piece still takes most of a second: far beyond a 50 ms bound.
      const r = await c.count(['ab'.repeat(450_000)]);
      const ms = performance.now() - t0;
      expect(r).toEqual({ counts: [225_000], source: 'estimate' });
      expect(ms).toBeGreaterThanOrEqual(45);
      expect(ms).toBeLessThan(5000);
      // The replacement thread counts again.
      expect(await c.count(['hello world'])).toEqual({ counts: [2], source: 'tokenizer' });
    } finally {
      await c.close();
    }
  }, 60_000);
});
