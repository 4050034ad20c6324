import { describe, expect, it } from 'vitest';
import { createHashRing } from './hash-ring.js';

describe('createHashRing', () => {
  it('stays bounded and usable for absurd weights a library caller may pass (issue 25 item 24)', () => {
    for (const w of [[1e308, 1], [1.7e308, 1.7e308], [Infinity, 1], [Number.MIN_VALUE, 1], [NaN, 1]]) {
      const t0 = performance.now();
      const ring = createHashRing(['a', 'b'], w);
      expect(performance.now() - t0).toBeLessThan(5000);
      expect([0, 1]).toContain(ring.pick('some prefix'));
    }
  });
  it('keeps shares close to the weights', () => {
    const ring = createHashRing(['a', 'b'], [3, 1]);
    let a = 0;
    for (let i = 0; i < 4000; i++) if (ring.pick(`k${i}`) === 0) a++;
    expect(a / 4000).toBeGreaterThan(0.6);
    expect(a / 4000).toBeLessThan(0.9);
  });
});
