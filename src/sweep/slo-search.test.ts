import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { bracketWidth, sloSearchAdvance, sloSearchStart, type SloSearchOptions, type SloSearchState } from './slo-search.js';
import { profileRates, roundSig } from './rates.js';

const CONC: SloSearchOptions = { start: 1, min: 1, max: 256, integer: true, precision: { kind: 'absolute', value: 1 }, maxRuns: 30 };

/** Drive the search against a synthetic service whose verdict is `passes(load)`. */
function drive(passes: (load: number) => boolean, opt: SloSearchOptions): SloSearchState {
  let st = sloSearchStart(opt);
  while (st.next !== null) {
    st = sloSearchAdvance(st, st.next, passes(st.next), opt);
    if (st.steps.length > 100) throw new Error('runaway');
  }
  return st;
}

describe('SLO search (concurrency)', () => {
  it('doubles to bracket the limit, then bisects to adjacent concurrencies', () => {
    const st = drive((c) => c <= 8, { ...CONC, max: 16 });
    expect(st.steps.map((s) => [s.load, s.passed])).toEqual([[1, true], [2, true], [4, true], [8, true], [16, false], [12, false], [10, false], [9, false]]);
    expect([st.pass, st.fail, st.stop]).toEqual([8, 9, 'precision']);
    expect(bracketWidth(st)).toEqual({ absolute: 1, relative: 1 / 8 });
  });

  it('finds every limit exactly, never measures a load twice, in at most 2·log2(max) + 1 runs', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 2, max: 256 }), (limit, max) => {
        const st = drive((c) => c <= limit, { ...CONC, max });
        const loads = st.steps.map((s) => s.load);
        expect(new Set(loads).size).toBe(loads.length);
        expect(loads.every((c) => c >= 1 && c <= max && Number.isInteger(c))).toBe(true);
        expect(loads.length).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(max)) + 1);
        if (limit === 0) expect([st.pass, st.fail, st.stop]).toEqual([null, 1, 'min_load_fails']);
        else if (limit >= max) expect([st.pass, st.fail, st.stop]).toEqual([max, null, 'max_load_passes']);
        else expect([st.pass, st.fail, st.stop]).toEqual([limit, limit + 1, 'precision']);
      }),
    );
  });

  it('a coarser precision stops earlier with a wider bracket that still holds the limit', () => {
    const st = drive((c) => c <= 37, { ...CONC, precision: { kind: 'absolute', value: 8 } });
    expect(st.stop).toBe('precision');
    expect(st.pass!).toBeLessThanOrEqual(37);
    expect(st.fail!).toBeGreaterThan(37);
    expect(st.fail! - st.pass!).toBeLessThanOrEqual(8);
    expect(st.steps.length).toBeLessThan(drive((c) => c <= 37, CONC).steps.length);
  });

  it('stops at --auto-max-runs with the bracket reached so far', () => {
    const st = drive((c) => c <= 37, { ...CONC, maxRuns: 7 });
    expect(st.steps).toHaveLength(7);
    expect(st.stop).toBe('max_runs');
    // 1 … 32 pass, 64 fails: [32, 64] after 7 runs.
    expect([st.pass, st.fail]).toEqual([32, 64]);
  });
});

describe('SLO search (rate)', () => {
  const RATE: SloSearchOptions = { start: 3.7, min: 3.7 / 64, max: 1e6, integer: false, precision: { kind: 'relative', value: 0.05 }, maxRuns: 40 };

  it('brackets up or down from the start and bisects to the relative precision', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.1, max: 2000, noNaN: true }), (limit) => {
        const st = drive((r) => r <= limit, RATE);
        const loads = st.steps.map((s) => s.load);
        expect(new Set(loads).size).toBe(loads.length);
        expect(loads.every((r) => r === roundSig(r, 15) && r > 0)).toBe(true);
        expect(st.stop).toBe('precision');
        expect(st.pass!).toBeLessThanOrEqual(limit);
        expect(st.fail!).toBeGreaterThan(limit);
        expect((st.fail! - st.pass!) / st.pass!).toBeLessThanOrEqual(0.05 + 1e-9);
      }),
    );
  });

  it('gives up after halving to the minimum when every rate fails', () => {
    const st = drive(() => false, RATE);
    expect(st.stop).toBe('min_load_fails');
    expect(st.pass).toBeNull();
    expect(st.steps.map((s) => s.load)).toEqual([3.7, 1.85, 0.925, 0.463, 0.232, 0.116, 0.058]);
  });
});

describe('open-loop profile rates', () => {
  it('spaces n rates evenly strictly between the synchronous and the maximal rate', () => {
    expect(profileRates(2, 20, 8)).toEqual([4, 6, 8, 10, 12, 14, 16, 18]);
    expect(profileRates(1.37, 9.81, 3)).toEqual([3.48, 5.59, 7.7]);
    // Close bounds need more digits; none equals a bound or another.
    const close = profileRates(10, 10.05, 4);
    expect(close).toHaveLength(4);
    expect(close.every((r, i) => r > (close[i - 1] ?? 10) && r < 10.05)).toBe(true);
    expect(profileRates(5, 5, 8)).toEqual([]);
    expect(profileRates(5, 4, 8)).toEqual([]);
  });
});
