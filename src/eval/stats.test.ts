// Wilson intervals and McNemar's exact test against values computed by hand (and by scipy/statsmodels).
import { describe, it, expect } from 'vitest';
import { mcnemarExact, wilson } from './stats.js';

describe('wilson', () => {
  it('matches the textbook values', () => {
    // 80 of 100: statsmodels proportion_confint(80, 100, method="wilson") = (0.7111, 0.8666)
    const w = wilson(80, 100);
    expect(w.low).toBeCloseTo(0.7111, 3);
    expect(w.high).toBeCloseTo(0.8666, 3);
    // 0 of 10: (0, 0.2775)
    expect(wilson(0, 10).low).toBe(0);
    expect(wilson(0, 10).high).toBeCloseTo(0.2775, 3);
    expect(wilson(0, 0)).toEqual({ low: 0, high: 1 });
  });
});

describe('mcnemarExact', () => {
  it('is the two-sided binomial tail of the discordant pairs', () => {
    expect(mcnemarExact(0, 0)).toBe(1);
    // b=1, c=5: 2·(1+6)/64 = 0.21875
    expect(mcnemarExact(1, 5)).toBeCloseTo(0.21875, 10);
    // b=0, c=6: 2/64
    expect(mcnemarExact(6, 0)).toBeCloseTo(0.03125, 10);
    expect(mcnemarExact(5, 5)).toBe(1);
    // scipy.stats.binomtest(2, 20).pvalue = 0.000402
    expect(mcnemarExact(18, 2)).toBeCloseTo(0.000402, 5);
  });
});
