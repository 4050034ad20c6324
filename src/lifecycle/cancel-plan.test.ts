// The cancel plan: seeded selection independent of order, --cancel-after's fixed delay, the expected life without it.
import { describe, expect, it } from 'vitest';
import { cancelDraws, cancelPlan } from './cancel-plan.js';

describe('cancelPlan', () => {
  it('is off without either flag, and cancels every request after --cancel-after alone', () => {
    expect(cancelPlan({ seed: 1, timeoutS: 600 })).toBeUndefined();
    const p = cancelPlan({ cancelAfter: 2, seed: 1, timeoutS: 600 })!;
    expect([0, 1, 2, 999].map((i) => p.delayMs(i))).toEqual([2000, 2000, 2000, 2000]);
  });

  it('--cancel-rate picks the same requests for a seed whatever the order asked, about the share asked, others for another seed', () => {
    const p = cancelPlan({ cancelRate: 0.1, cancelAfter: 1, seed: 7, timeoutS: 600 })!;
    const forward = Array.from({ length: 10_000 }, (_, i) => p.delayMs(i) !== undefined);
    const backward = Array.from({ length: 10_000 }, (_, k) => p.delayMs(9_999 - k) !== undefined).reverse();
    expect(backward).toEqual(forward);
    const share = forward.filter(Boolean).length / forward.length;
    expect(Math.abs(share - 0.1)).toBeLessThan(0.01); // binomial sd ≈ 0.003
    const other = cancelPlan({ cancelRate: 0.1, cancelAfter: 1, seed: 8, timeoutS: 600 })!;
    expect(Array.from({ length: 10_000 }, (_, i) => other.delayMs(i) !== undefined)).not.toEqual(forward);
    expect(cancelPlan({ cancelRate: 0, seed: 7, timeoutS: 600 })!.delayMs(3)).toBeUndefined();
  });

  it('without --cancel-after: u₂ × the expected life, --timeout until an ok request finished, then the mean ok E2E', () => {
    const p = cancelPlan({ cancelRate: 1, seed: 5, timeoutS: 600 })!;
    expect(p.delayMs(4)).toBeCloseTo(cancelDraws(5, 4)[1] * 600_000, 6);
    p.observeOk(1000);
    p.observeOk(3000);
    expect(p.delayMs(4)).toBeCloseTo(cancelDraws(5, 4)[1] * 2000, 6);
    const delays = Array.from({ length: 2000 }, (_, i) => p.delayMs(i)!);
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...delays)).toBeLessThan(2000);
    expect(Math.abs(delays.reduce((a, b) => a + b, 0) / delays.length - 1000)).toBeLessThan(50); // uniform: mean L/2
  });
});
