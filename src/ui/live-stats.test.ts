// The dashboard's statistics: Locust-style rows per class and in total, failure groups, and the stats CSV.
import { describe, it, expect } from 'vitest';
import { DashboardStats, foldTelemetry, statsCsv, type LiveTelemetry } from './live-stats.js';
import { LogHistogram } from './log-histogram.js';
import type { RequestRecord } from '../metrics/record.js';

const rec = (o: Partial<RequestRecord>): RequestRecord =>
  ({ id: 0, attempt: 1, warmup: false, class: undefined, status: 'ok', http_status: 200, error: null, code: null, sent_at_ms: 0, end_ms: 100, ttft_ms: 10, e2e_ms: 100, tpot_ms: 1, itl_ms: [1, 1], output_tokens: 10, schedule_lag_ms: 0, ...o }) as RequestRecord;

describe('DashboardStats', () => {
  it('counts measured requests per class and in total, and groups failures by kind, status and message', () => {
    let t = 0;
    const s = new DashboardStats(() => t);
    s.record(rec({ class: 'chat', ttft_ms: 10 }));
    s.record(rec({ class: 'chat', ttft_ms: 30, sent_at_ms: 50, end_ms: 150 }));
    s.record(rec({ class: 'rag', status: 'http_error', http_status: 500, error: '<b>boom</b>', ttft_ms: null }));
    s.record(rec({ class: 'rag', status: 'http_error', http_status: 500, error: '<b>boom</b>', ttft_ms: null }));
    s.record(rec({ warmup: true }));
    s.record(rec({ status: 'cancelled' }));
    t = 2000;
    const rows = s.rows();
    expect(rows.map((r) => [r.name, r.requests, r.failures])).toEqual([
      ['chat', 2, 0],
      ['rag', 2, 2],
      ['Aggregated', 4, 2],
    ]);
    const chat = rows[0];
    expect(chat.ttft.min).toBe(10);
    expect(chat.ttft.max).toBe(30);
    expect(chat.ttft.avg).toBe(20);
    // 20 output tokens over 0..200 ms of the class's requests.
    expect(chat.output_tok_s).toBeCloseTo(100, 6);
    expect(s.failureRows()).toEqual([{ kind: 'http_error', http_status: 500, message: '<b>boom</b>', count: 2, last_seen_s: 0 }]);
  });

  it('adds a column per extra --percentiles value (ascending, p75 before p90, p99.9 after p99) to the rows and the CSV', () => {
    const s = new DashboardStats(() => 1000, [75, 99.9]);
    for (let i = 1; i <= 1000; i++) s.record(rec({ ttft_ms: i, e2e_ms: 10 * i }));
    const [row] = s.rows();
    const exact = (p: number) => Math.ceil((p / 100) * 1000 - 1e-9);
    // The histogram's buckets are within 1% of the value.
    for (const [i, p] of [75, 99.9].entries()) {
      expect(row.ttft.extra[i].p).toBe(p);
      expect(Math.abs(row.ttft.extra[i].value! - exact(p))).toBeLessThanOrEqual(exact(p) * 0.01);
      expect(Math.abs(row.e2e.extra[i].value! - 10 * exact(p))).toBeLessThanOrEqual(10 * exact(p) * 0.01);
    }
    const [head, line] = statsCsv(s.rows()).trim().split('\n').map((l) => l.split(','));
    expect(head.slice(3, 11)).toEqual(['ttft_median_ms', 'ttft_p75_ms', 'ttft_p90_ms', 'ttft_p99_ms', 'ttft_p99_9_ms', 'ttft_avg_ms', 'ttft_min_ms', 'ttft_max_ms']);
    expect(head).toContain('e2e_p99_9_ms');
    expect(Number(line[head.indexOf('ttft_p99_9_ms')])).toBeCloseTo(row.ttft.extra[1].value!, 2);
    // Each tick's point carries them for the charts: linear interpolation over the window's samples (1..1000, rank p/100 · 999).
    const pt = s.point({ elapsedS: 1, requestsPerS: 0, outputTokS: 0, inFlight: 0, done: 1000, ok: 1000, failed: 0 } as unknown as Parameters<DashboardStats['point']>[0], null);
    expect(pt.ttft_extra[0]).toBeCloseTo(750.25, 9);
    expect(pt.ttft_extra[1]).toBeCloseTo(999.001, 9);
    expect(pt.itl_extra).toEqual([1, 1]);
    // Without extra percentiles the 17 columns stay.
    expect(statsCsv(new DashboardStats(() => 0).rows()).split('\n')[0].split(',')).toHaveLength(17);
  });

  it('writes the table as CSV with quoting and no spreadsheet formulas', () => {
    const s = new DashboardStats(() => 1000);
    s.record(rec({ class: '=HYPERLINK("x"),1' }));
    const csv = statsCsv(s.rows()).trim().split('\n');
    expect(csv[0].split(',')).toHaveLength(17);
    expect(csv[1].startsWith(`"'=HYPERLINK(""x""),1",1,0,`)).toBe(true);
    expect(csv[2].startsWith('Aggregated,1,0,')).toBe(true);
  });

  it('reads the server queue, KV usage and GPU utilization from sample lines', () => {
    const t: LiveTelemetry = { running: null, waiting: null, kvUsagePct: null, gpuUtilPct: null };
    foldTelemetry(t, 'server', { gauges: { running: 3, waiting: 1, kv_usage: 0.25 } });
    foldTelemetry(t, 'gpu', { gpus: [{ util_pct: 80 }, { util_pct: 60 }] });
    foldTelemetry(t, 'gpu', { host: { cpu_pct: 5 } });
    expect(t).toEqual({ running: 3, waiting: 1, kvUsagePct: 25, gpuUtilPct: 70 });
  });
});

describe('LogHistogram', () => {
  it('gives quantiles within 1% and exact min, max and mean', () => {
    const h = new LogHistogram();
    for (let i = 1; i <= 1000; i++) h.record(i);
    expect(h.min).toBe(1);
    expect(h.max).toBe(1000);
    expect(h.mean).toBe(500.5);
    for (const [q, exact] of [[0.5, 500], [0.9, 900], [0.99, 990]]) expect(Math.abs(h.quantile(q)! - exact) / exact).toBeLessThan(0.01);
    expect(new LogHistogram().quantile(0.5)).toBeNull();
  });
});

describe('DashboardStats memory', () => {
  it('keeps only the last window of samples even when no page reads them', () => {
    let t = 0;
    const s = new DashboardStats(() => t);
    for (let i = 0; i < 50_000; i++) {
      t = i; // one record per ms: 10,000 within any 10 s window
      s.record(rec({ ttft_ms: 5 }));
    }
    const held = (s as unknown as { window: unknown[] }).window.length;
    expect(held).toBeLessThanOrEqual(10_000 + 1024);
    expect(s.rows().at(-1)!.requests).toBe(50_000);
  });
});
