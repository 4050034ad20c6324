import { describe, it, expect } from 'vitest';
import { resolveSweepConfig } from './config.js';
import { runAutoPair, type PointOutcome } from './auto-run.js';
import type { PointSpec } from './grid.js';
import type { SweepRow } from '../report/sweep-model.js';
import type { RateProfileReport, SloSearchReport } from '../report/auto-search-model.js';

/** A synthetic service: its request rate and TTFT p99 at each point, judged against the sweep's SLO. */
function service(flags: Record<string, unknown>, model: (p: PointSpec) => { reqS: number; ttftMs: number; errorRate?: number }) {
  const s = resolveSweepConfig({ flags: { auto: true, inputOutput: '32x32', ...flags }, runFlags: {}, env: {} }).sweep;
  const ran: string[] = [];
  const limit = s.slo?.objectives[0]?.limit ?? Infinity;
  const run = async (p: PointSpec): Promise<PointOutcome> => {
    ran.push(p.name);
    const m = model(p);
    const passed = m.ttftMs <= limit;
    const row = { name: p.name, mode: p.mode, load: p.load, ok: 10, error_rate: m.errorRate ?? 0, request_throughput: m.reqS, output_throughput: m.reqS * 32, slo_passed: s.slo ? passed : null } as SweepRow;
    return { row, checks: s.slo ? [{ name: 'ttft_p99', op: '<=', limit, actual: m.ttftMs, unit: 'ms', passed }] : [] };
  };
  const acceptable = (r: SweepRow) => r.ok > 0 && r.error_rate <= s.maxErrorRate && (r.slo_passed ?? true);
  return { ran, go: () => runAutoPair({ s, io: s.pairs[0], run, stopped: () => false, acceptable }) };
}

describe('--auto drivers', () => {
  it('open-loop profile: probes, then rates between their measured request rates; a throughput run at concurrency 1 is not run twice', async () => {
    const svc = service({ autoMode: 'rate', autoRates: '3', maxConcurrency: '64' }, (p) => ({ reqS: p.mode === 'rate' ? p.load : Math.min(p.load, 8) * 2, ttftMs: 10 }));
    const r = await svc.go();
    const prof = r.search as RateProfileReport;
    expect(svc.ran).toEqual(['c1-in32-out32', 'c64-in32-out32', 'r5.5-in32-out32', 'r9-in32-out32', 'r12.5-in32-out32']);
    expect([prof.synchronous_rate, prof.max_rate, prof.rates, prof.runs]).toEqual([2, 16, [5.5, 9, 12.5], 5]);
    expect(prof.steps.map((x) => [x.role, x.passed])).toEqual([['synchronous', null], ['throughput', null], [null, null], [null, null], [null, null]]);
    expect(r.reason).toBe('open-loop profile: synchronous probe (concurrency 1) 2 req/s, throughput run (concurrency 64) 16 req/s; 3 rates between them (5.5, 9, 12.5 req/s); 5 runs');

    const one = service({ autoMode: 'rate', maxConcurrency: '1' }, () => ({ reqS: 2, ttftMs: 10 }));
    const r1 = await one.go();
    expect(one.ran).toEqual(['c1-in32-out32']);
    expect((r1.search as RateProfileReport).rates).toEqual([]);
    expect(r1.reason).toMatch(/no higher request rate than one stream/);
  });

  it('SLO search over concurrency: each run with what it missed and by how much, the error threshold included', async () => {
    const svc = service({ slo: 'ttft_p99=100ms', maxConcurrency: '16' }, (p) => ({ reqS: p.load, ttftMs: p.load <= 6 ? 20 : 150, errorRate: p.load >= 16 ? 0.5 : 0 }));
    const r = await svc.go();
    const s = r.search as SloSearchReport;
    expect(s.steps.map((x) => [x.load, x.passed])).toEqual([[1, true], [2, true], [4, true], [8, false], [6, true], [7, false]]);
    expect([s.bracket, s.runs, s.stop, s.converged]).toEqual([[6, 7], 6, 'precision', true]);
    expect(s.steps[3].failed).toEqual([{ name: 'ttft_p99', op: '<=', limit: 100, actual: 150, unit: 'ms', excess: 0.5 }]);
    expect(r.reason).toBe('highest load meeting the SLOs: concurrency 6; lowest failing: concurrency 7 — ttft_p99 150 ms > 100 ms (50.0% over); bracket [6, 7], width 1 (16.7%), target 1 reached; 6 runs');

    const errs = service({ slo: 'ttft_p99=100ms', maxConcurrency: '4' }, (p) => ({ reqS: p.load, ttftMs: 20, errorRate: p.load >= 4 ? 0.2 : 0 }));
    const e = (await errs.go()).search as SloSearchReport;
    expect(e.steps.find((x) => x.load === 4)?.failed).toEqual([{ name: 'max_error_rate', op: '<=', limit: 0.05, actual: 0.2, unit: 'ratio', excess: expect.closeTo(3, 9) }]);
    expect(e.bracket).toEqual([3, 4]);
  });

  it('SLO search over rates: starts at the synchronous probe\'s rate; says when the limit lies above --max-concurrency or below every load', async () => {
    const svc = service({ autoMode: 'rate', slo: 'ttft_p99=100ms' }, (p) => ({ reqS: p.mode === 'rate' ? p.load : 3.14159, ttftMs: p.mode === 'rate' && p.load > 20 ? 300 : 30 }));
    const s = (await svc.go()).search as SloSearchReport;
    expect(s.steps.slice(0, 5).map((x) => `${x.mode}:${x.load}`)).toEqual(['concurrency:1', 'rate:3.14', 'rate:6.28', 'rate:12.6', 'rate:25.2']);
    expect(s.bracket[0]!).toBeLessThanOrEqual(20);
    expect(s.bracket[1]!).toBeGreaterThan(20);
    expect(s.precision_reached!.relative!).toBeLessThanOrEqual(0.05);
    expect(s.runs).toBe(svc.ran.length);

    const high = await service({ slo: 'ttft_p99=100ms', maxConcurrency: '8' }, () => ({ reqS: 1, ttftMs: 1 })).go();
    expect((high.search as SloSearchReport).stop).toBe('max_load_passes');
    expect(high.reason).toBe('concurrency 8, the highest allowed (--max-concurrency 8), still meets the SLOs: the limit is higher; 4 runs');
    const low = await service({ slo: 'ttft_p99=100ms' }, () => ({ reqS: 1, ttftMs: 101 })).go();
    expect(low.reason).toBe('no load meets the SLOs: even concurrency 1 fails — ttft_p99 101 ms > 100 ms (1.0% over); 1 run');
    const capped = await service({ slo: 'ttft_p99=100ms', autoMaxRuns: '3' }, (p) => ({ reqS: 1, ttftMs: p.load > 50 ? 200 : 1 })).go();
    expect(capped.reason).toBe('highest load meeting the SLOs: concurrency 4; stopped at --auto-max-runs 3 before the precision was reached: bracket [4, –], open, target 1; 3 runs');
  });
});
