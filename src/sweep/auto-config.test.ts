import { describe, it, expect } from 'vitest';
import { parsePrecision, resolveSweepConfig } from './config.js';
import { UsageError } from '../errors.js';

const problems = (flags: Record<string, unknown>): string[] => {
  try {
    resolveSweepConfig({ flags, runFlags: {}, env: {} });
  } catch (e) {
    if (e instanceof UsageError) return e.problems;
    throw e;
  }
  return [];
};

describe('--auto flags', () => {
  it('resolve the mode and the precision: 1 for concurrency, 5% for rate, or as given', () => {
    const sweep = (flags: Record<string, unknown>) => resolveSweepConfig({ flags: { auto: true, ...flags }, runFlags: {}, env: {} }).sweep;
    expect(sweep({ slo: 'ttft_p99=1s' })).toMatchObject({ mode: 'concurrency', searchPrecision: { kind: 'absolute', value: 1 }, autoMaxRuns: 20 });
    expect(sweep({ autoMode: 'rate', slo: 'ttft_p99=1s' })).toMatchObject({ mode: 'rate', searchPrecision: { kind: 'relative', value: 0.05 } });
    expect(sweep({ autoMode: 'rate', autoRates: '4' })).toMatchObject({ mode: 'rate', autoRates: 4 });
    expect(sweep({ slo: 'ttft_p99=1s', autoPrecision: '4', autoMaxRuns: '9' })).toMatchObject({ searchPrecision: { kind: 'absolute', value: 4 }, autoMaxRuns: 9 });
    expect(parsePrecision(' 2.5% ', 'concurrency')).toEqual({ kind: 'relative', value: 0.025 });
  });

  it('refuse, all at once and by flag name, what would do nothing or cannot be read', () => {
    expect(problems({ autoMode: 'rate', autoRates: '3', concurrency: '1' })).toEqual(['--auto-mode: only with --auto', '--auto-rates: only with --auto']);
    expect(problems({ auto: true, slo: 'ttft_p99=1s', autoRates: '3', refine: '1' })).toEqual([
      '--auto-rates: only for the open-loop profile (--auto --auto-mode rate without --slo)',
      '--refine: only for the concurrency --auto search without --slo; the SLO search bisects to --auto-precision',
    ]);
    expect(problems({ auto: true, autoMode: 'rate', autoPrecision: '5%', minGain: '10%' })).toEqual([
      '--auto-precision: only with --auto --slo (the SLO search)',
      '--min-gain: only for the concurrency --auto search without --slo; the open-loop profile runs --auto-rates rates',
    ]);
    expect(problems({ auto: true, slo: 'ttft_p99=1s', autoPrecision: '0%' })).toEqual(['--auto-precision: must be more than 0']);
    expect(problems({ auto: true, slo: 'ttft_p99=1s', autoPrecision: 'fine' })[0]).toMatch(/^--auto-precision: expected a load step such as 1 or 0\.5, or a percentage such as 5%/);
    expect(problems({ auto: true, autoMode: 'open' })[0]).toMatch(/^--auto-mode: .*concurrency.*rate/);
    expect(problems({ auto: true, slo: 'ttft_p99=1s', autoMaxRuns: '1' })[0]).toMatch(/^--auto-max-runs: /);
    expect(problems({ auto: true, rate: '1,2' })).toEqual(['--auto: chooses the levels itself; drop --rate/points (--auto-mode rate searches request rates)']);
  });
});
