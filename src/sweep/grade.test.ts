import { describe, it, expect } from 'vitest';
import { gradePoint, sloRatio, worstSlo } from './grade.js';

const pass = (ratio: number | null) => ({ ok: 10, error_rate: 0, slo_passed: true, slo_worst_ratio: ratio });

describe('grades from SLO margins', () => {
  it('A ≤ 50%, B ≤ 75%, C ≤ 90%, D ≤ 100% of the limit; F fails', () => {
    expect([0, 0.5, 0.51, 0.75, 0.76, 0.9, 0.91, 1].map((u) => gradePoint(pass(u), 0.05))).toEqual(['A', 'A', 'B', 'B', 'C', 'C', 'D', 'D']);
    expect(gradePoint({ ok: 10, error_rate: 0, slo_passed: false, slo_worst_ratio: 1.3 }, 0.05)).toBe('F');
    // Within every SLO but above the sweep's error threshold, or nothing succeeded: F.
    expect(gradePoint({ ...pass(0.2), error_rate: 0.1 }, 0.05)).toBe('F');
    expect(gradePoint({ ...pass(0.2), ok: 0 }, 0.05)).toBe('F');
  });
  it('no grade without SLOs or for a point that did not run', () => {
    expect(gradePoint({ ok: 10, error_rate: 0, slo_passed: null }, 0.05)).toBeNull();
    expect(gradePoint({ ...pass(0.1), status: 'failed' }, 0.05)).toBeNull();
  });
  it('the ratio is measured / limit for limits, limit / measured for floors; the worst check wins', () => {
    expect(sloRatio({ op: '<=', limit: 2000, actual: 500 })).toBe(0.25);
    expect(sloRatio({ op: '>=', limit: 20, actual: 40 })).toBe(0.5);
    expect(sloRatio({ op: '<=', limit: 0, actual: 0 })).toBe(0);
    expect(sloRatio({ op: '<=', limit: 0.01, actual: null })).toBeNull();
    expect(
      worstSlo([
        { name: 'ttft_p99', op: '<=', limit: 2000, actual: 500, passed: true },
        { name: 'tpot_p99', op: '<=', limit: 50, actual: 40, passed: true },
        { name: 'error_rate', op: '<=', limit: 0.01, actual: 0, passed: true },
      ]),
    ).toEqual({ metric: 'tpot_p99', ratio: 0.8 });
    expect(worstSlo([{ name: 'ttft_p99', op: '<=', limit: 2000, actual: null, passed: false }])).toEqual({ metric: 'ttft_p99', ratio: null });
  });
});
