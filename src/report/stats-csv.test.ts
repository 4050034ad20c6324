// stats.csv: its columns (with --percentiles extras), formulas and one row per class, from a summary.
import { describe, it, expect } from 'vitest';
import { buildSummary, type MetricsBlock } from '../metrics/summary.js';
import { statsColumns, statsCsv } from './stats-csv.js';

const block = (over: { ttft: number; e2e: number; ok: number; qps: number; extra?: number }): MetricsBlock => {
  const m = buildSummary([], { config: { percentiles: [50, 99.9] } });
  return {
    ...m,
    requests: { ...m.requests, total: over.ok + 1, ok: over.ok, failed: 1, error_rate: 1 / (over.ok + 1) },
    request_throughput: over.qps,
    qpm: over.qps * 60,
    ttft_ms: { ...m.ttft_ms, mean: over.ttft, p50: over.ttft, p99_9: over.extra ?? null },
    e2e_ms: { ...m.e2e_ms, mean: over.e2e, p99_9: (over.extra ?? 0) * 2 },
  };
};

describe('stats.csv', () => {
  it('has the fixed Locust columns, and TTFT/E2E columns for each extra percentile', () => {
    const cols = statsColumns([50, 99.9]);
    expect(cols.slice(0, 8)).toEqual(['class', 'requests', 'ok', 'failed', 'fail_rate', 'duration_s', 'qps', 'qpm']);
    expect(cols).toContain('ttft_p99_9_ms');
    expect(cols.indexOf('ttft_p99_9_ms')).toBe(cols.indexOf('ttft_p99_ms') + 1);
    expect(cols.indexOf('e2e_p99_9_ms')).toBe(cols.indexOf('e2e_p99_ms') + 1);
    // The practice's headline means (first-token time, whole-request time) sit just before their percentiles.
    expect(cols.indexOf('ttft_mean_ms')).toBe(cols.indexOf('ttft_p50_ms') - 1);
    expect(cols.indexOf('e2e_mean_ms')).toBe(cols.indexOf('e2e_p50_ms') - 1);
    expect(statsColumns().filter((c) => /_p\d/.test(c))).toEqual(['ttft_p50_ms', 'ttft_p90_ms', 'ttft_p95_ms', 'ttft_p99_ms', 'e2e_p50_ms', 'e2e_p90_ms', 'e2e_p95_ms', 'e2e_p99_ms']);
  });

  it('writes the run as class all, then each class by name, with output time = mean E2E − mean TTFT', () => {
    const s = { ...buildSummary([], { config: { percentiles: [50, 99.9] } }), ...block({ ttft: 100, e2e: 350, ok: 9, qps: 2, extra: 120 }) };
    s.by_class = { long: block({ ttft: 200, e2e: 600, ok: 4, qps: 1 }), short: block({ ttft: 50, e2e: 90, ok: 5, qps: 1 }) };
    const [head, ...lines] = statsCsv(s).trim().split('\n');
    const cols = head.split(',');
    const rows = lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [cols[i], v])));
    expect(rows.map((r) => r.class)).toEqual(['all', 'long', 'short']);
    expect(rows.map((r) => Number(r.output_time_mean_ms))).toEqual([250, 400, 40]);
    expect(rows.map((r) => Number(r.qpm))).toEqual([120, 60, 60]);
    expect(rows.map((r) => Number(r.ttft_mean_ms))).toEqual([100, 200, 50]);
    expect(rows.map((r) => Number(r.e2e_mean_ms))).toEqual([350, 600, 90]);
    expect(Number(rows[0].fail_rate)).toBeCloseTo(0.1, 6);
    expect(rows[0].ttft_p99_9_ms).toBe('120');
    expect(rows[0].e2e_p99_9_ms).toBe('240');
    // No value (no request had one): an empty cell, not 0.
    expect(rows[1].ttft_p99_9_ms).toBe('');
  });
});
