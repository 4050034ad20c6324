// A new metric is one module: defined and registered here only, it reaches summary.json, the terminal table, compare, stats.csv and sweep rows (sweep.json, sweep.csv).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { simulate } from '../src/simulate.js';
import { ALL_AGGREGATIONS, registerMetric, type MetricDef } from '../src/metrics/registry/index.js';
import { renderSummary } from '../src/report/terminal.js';
import { fmt } from '../src/report/format.js';
import { compareResults, loadResult } from '../src/report/compare.js';
import { renderComparison } from '../src/report/compare-terminal.js';
import { evaluateSlo, parseSlo } from '../src/metrics/slo.js';
import type { DistStats } from '../src/metrics/stats.js';
import { resolveSweepConfig } from '../src/sweep/config.js';
import { runSweep } from '../src/sweep/sweep.js';
import type { SweepDoc } from '../src/report/sweep-model.js';
import { tmpDir } from './helpers.js';

/** ttft_share = ttft_ms / e2e_ms: the part of a request's time spent waiting for its first token. */
const ttftShare: MetricDef = {
  id: 'ttft_share',
  label: 'TTFT share of E2E',
  unit: 'share',
  of: (r) => (r.ttft_ms !== null && r.e2e_ms ? r.ttft_ms / r.e2e_ms : null),
  aggregations: ALL_AGGREGATIONS,
  shown: ['summary', 'terminal', 'report', 'compare', 'stats_csv', 'slo', 'sweep'],
  compare: { key: 'ttft_share', label: 'TTFT share', unit: 'share', better: 'lower', stats: ['p50', 'p99'], sweepSuffix: 'share' },
  statsCsv: { name: 'ttft_share', suffix: '' },
  slo: { name: 'ttft_share', op: '<=' },
  sweep: { name: 'ttft_share', suffix: 'share' },
};

let unregister: () => void;
let base: string;
let cand: string;
beforeAll(async () => {
  unregister = registerMetric(ttftShare);
  // Longer replies: the first token is a smaller share of each request.
  base = tmpDir();
  cand = tmpDir();
  await simulate({ requests: 20, concurrency: 4, inputTokens: 256, outputTokens: 8, out: base, quiet: true });
  await simulate({ requests: 20, concurrency: 4, inputTokens: 256, outputTokens: 64, out: cand, quiet: true });
});
afterAll(() => unregister());

const readJson = (dir: string, f: string) => JSON.parse(readFileSync(join(dir, f), 'utf8'));

describe('a metric registered by a library user', () => {
  it('is in summary.json, computed from the records by its formula', () => {
    const s = readJson(base, 'summary.json');
    const d = s.ttft_share as DistStats;
    const shares = readFileSync(join(base, 'requests.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((r) => r.status === 'ok' && !r.warmup).map((r) => r.ttft_ms / r.e2e_ms);
    expect(d.count).toBe(shares.length);
    expect(d.count).toBeGreaterThan(0);
    expect(d.mean).toBeCloseTo(shares.reduce((a, b) => a + b, 0) / shares.length, 9);
    expect(d.max).toBeCloseTo(Math.max(...shares), 12);
    // After the built-in distributions, before the counters that follow them.
    const keys = Object.keys(s);
    expect(keys.indexOf('ttft_share')).toBe(keys.indexOf('schedule_lag_ms') + 1);
  });

  it('has a row in the terminal table', () => {
    const s = readJson(base, 'summary.json');
    const row = renderSummary(s).split('\n').find((l) => l.startsWith('TTFT share of E2E'));
    expect(row).toBeDefined();
    const cells = row!.split(/\s{2,}/);
    expect(cells.slice(1, 3)).toEqual([fmt(s.ttft_share.mean), fmt(s.ttft_share.stdev)]);
    expect(cells.at(-1)).toBe(fmt(s.ttft_share.max));
  });

  it('has a row in report.html\'s percentile table', () => {
    const html = readFileSync(join(base, 'report.html'), 'utf8');
    expect(html).toContain('TTFT share of E2E');
    expect(readFileSync(join(cand, 'report.html'), 'utf8')).toContain('TTFT share of E2E');
  });

  it('has percentile columns in stats.csv', () => {
    const s = readJson(base, 'summary.json');
    const [head, all] = readFileSync(join(base, 'stats.csv'), 'utf8').trim().split('\n').map((l) => l.split(','));
    const at = head.indexOf('ttft_share_p50');
    expect(at).toBeGreaterThan(head.indexOf('e2e_p99_ms'));
    expect(head).toContain('ttft_share_p99');
    expect(Number(all[at])).toBeCloseTo(s.ttft_share.p50, 5);
  });

  it('is compared, with its direction, and can fail the comparison', () => {
    const res = compareResults(loadResult(base), [loadResult(cand)], 5, ['ttft_share_p50']);
    const d = res.comparisons[0].points[0].deltas.find((x) => x.metric === 'ttft_share_p50')!;
    expect(d.baseline).toBeCloseTo(readJson(base, 'summary.json').ttft_share.p50, 12);
    expect(d.candidate).toBeCloseTo(readJson(cand, 'summary.json').ttft_share.p50, 12);
    // 64-token replies: the first token is a smaller share, which is better for a lower-is-better metric.
    expect(d.candidate!).toBeLessThan(d.baseline!);
    expect(d.improved).toBe(true);
    expect(renderComparison(res)).toMatch(/TTFT share p50 \(share\)\s+lower/);
    const worse = compareResults(loadResult(cand), [loadResult(base)], 5, ['ttft_share_p50']);
    expect(worse.failed).toBe(true);
  });

  it('can be named in an SLO', () => {
    const s = readJson(base, 'summary.json');
    const slo = parseSlo(`ttft_share_p99=${s.ttft_share.p99 / 2}`);
    const res = evaluateSlo(s, [], slo);
    expect(res.checks[0]).toMatchObject({ name: 'ttft_share_p99', op: '<=', unit: 'share', passed: false });
    expect(res.checks[0].actual).toBeCloseTo(s.ttft_share.p99, 12);
  });

  it('has columns in sweep rows and sweep.csv, and is compared between sweeps', async () => {
    const sweep = async (outputTokens: string) => {
      const out = tmpDir();
      await runSweep(resolveSweepConfig({ flags: { concurrency: '1,4', requests: '8', out, simulate: true, quiet: true }, runFlags: { inputTokens: '256', outputTokens }, engineFlags: {} }));
      return out;
    };
    const a = await sweep('32');
    const doc = readJson(a, 'sweep.json') as SweepDoc;
    const [head, ...lines] = readFileSync(join(a, 'sweep.csv'), 'utf8').trim().split('\n').map((l) => l.split(','));
    for (const col of ['ttft_share_mean_share', 'ttft_share_p50_share', 'ttft_share_p90_share', 'ttft_share_p99_share']) expect(head).toContain(col);
    expect(head.indexOf('ttft_share_mean_share')).toBeGreaterThan(head.indexOf('auto_role'));
    expect(doc.points.length).toBe(2);
    for (const [i, r] of doc.points.entries()) {
      const d = readJson(join(a, r.dir), 'summary.json').ttft_share as DistStats;
      const row = r as unknown as Record<string, number>;
      expect(d.count).toBeGreaterThan(0);
      expect(row.ttft_share_p50_share).toBeCloseTo(d.p50!, 12);
      expect(row.ttft_share_mean_share).toBeCloseTo(d.mean!, 12);
      expect(Number(lines[i][head.indexOf('ttft_share_p99_share')])).toBeCloseTo(d.p99!, 5);
    }
    // compare of two sweeps reads the rows' columns (point by point; a sweep against itself: no change).
    const res = compareResults(loadResult(a), [loadResult(a)], 5, ['ttft_share_p50']);
    const deltas = res.comparisons[0].points.map((p) => p.deltas.find((x) => x.metric === 'ttft_share_p50'));
    expect(deltas.map((d) => d?.baseline)).toEqual(doc.points.map((r) => (r as unknown as Record<string, number>).ttft_share_p50_share));
    expect(deltas.every((d) => d!.delta === 0 && !d!.regressed)).toBe(true);
  }, 30_000);
});
