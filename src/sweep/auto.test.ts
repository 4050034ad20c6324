import { describe, it, expect } from 'vitest';
import { autoAdvance, autoStart, type AutoState } from './auto.js';

/** Drive the search against a model of the service: throughput(load) and acceptable(load). */
function drive(tput: (c: number) => number, ok: (c: number) => boolean, opt = { minGain: 0.05, refine: 2, maxConcurrency: 256 }) {
  let st: AutoState = autoStart();
  const tried: number[] = [];
  while (st.phase !== 'done') {
    const c = st.next;
    tried.push(c);
    st = autoAdvance(st, { load: c, output_throughput: tput(c), acceptable: ok(c) }, opt);
    if (tried.length > 50) throw new Error('runaway');
  }
  return { tried, reason: st.reason };
}

describe('auto search', () => {
  it('doubles until throughput stops growing, then bisects below the stopping level, where the bend is', () => {
    const { tried, reason } = drive((c) => Math.min(c, 6) * 100, () => true);
    expect(tried.slice(0, 5)).toEqual([1, 2, 4, 8, 16]);
    // 8 → 16 gained 0%, so the bend is at or below 8: refine between 4 and 8: 6 is on the plateau, 5 is not.
    expect(tried.slice(5)).toEqual([6, 5]);
    expect(reason).toMatch(/plateau: output throughput grew 0\.0% from concurrency 8 to 16/);
    expect(reason).toMatch(/refined between 5 and 6 with levels 6, 5$/);
    expect(reason).not.toMatch(/onset/);
  });
  it('stops at a failing level and refines the boundary', () => {
    const { tried, reason } = drive((c) => c * 100, (c) => c <= 20);
    expect(tried).toEqual([1, 2, 4, 8, 16, 32, 24, 20]);
    expect(reason).toMatch(/between 20 and 24/);
  });
  it('stops at once when concurrency 1 fails, and at the maximum', () => {
    expect(drive(() => 1, () => false).tried).toEqual([1]);
    expect(drive((c) => c, () => true, { minGain: 0.05, refine: 2, maxConcurrency: 8 }).tried).toEqual([1, 2, 4, 8]);
  });
});
