// sweep --runs N: a point's row from its runs' rows (means, summed counts, intervals) and sweep.csv's interval columns.
import { describe, expect, it } from 'vitest';
import { ciColumns, failedRow, sweepCsv, type SweepRow } from './row.js';
import { mergeRunRows } from './repeat-row.js';

const point = { name: 'c4-in64-out16', mode: 'concurrency' as const, load: 4, inputTokens: 64, outputTokens: 16 };

/** A done row of one run with the given figures (the rest null/0). */
function runRow(k: number, v: { tput: number; ttftP99: number; ok: number; clientBound?: boolean; slo?: boolean }): SweepRow {
  return {
    ...failedRow(point, `points/c4-in64-out16/run-${k}`, '', '64x16'),
    status: 'done',
    error: null,
    requests: v.ok,
    ok: v.ok,
    output_throughput: v.tput,
    ttft_p99_ms: v.ttftP99,
    client_bound: v.clientBound ?? false,
    slo_passed: v.slo ?? null,
    slo_failed: v.slo === false ? ['ttft_p99'] : [],
    extra_percentiles: { ttft_p99_9_ms: v.ttftP99 * 2 },
  };
}

describe('mergeRunRows', () => {
  const rows = [runRow(1, { tput: 100, ttftP99: 50, ok: 10 }), runRow(2, { tput: 110, ttftP99: 70, ok: 10, clientBound: true }), runRow(3, { tput: 120, ttftP99: 60, ok: 9 })];
  const m = mergeRunRows(rows, 'points/c4-in64-out16', 0.05);

  it('means of the measured columns, sums of the counts, the point\'s own load and directory', () => {
    expect(m.output_throughput).toBeCloseTo(110, 12);
    expect(m.ttft_p99_ms).toBeCloseTo(60, 12);
    expect(m.ok).toBe(29);
    expect(m.requests).toBe(29);
    expect(m.load).toBe(4);
    expect(m.dir).toBe('points/c4-in64-out16');
    expect(m.runs).toBe(3);
    expect(m.extra_percentiles!.ttft_p99_9_ms).toBeCloseTo(120, 12);
    // A null column stays null (no run measured it).
    expect(m.tpot_p99_ms).toBeNull();
  });

  it('flags take the worst run: client-bound if any was, SLOs passed only if every run passed', () => {
    expect(m.client_bound).toBe(true);
    const slo = mergeRunRows([runRow(1, { tput: 1, ttftP99: 1, ok: 1, slo: true }), runRow(2, { tput: 1, ttftP99: 1, ok: 1, slo: false })], 'p', 0.05);
    expect(slo.slo_passed).toBe(false);
    expect(slo.slo_failed).toEqual(['ttft_p99']);
  });

  it('ci95 per headline column: the t-interval of the runs\' values, null where fewer than 2 have one', () => {
    // [100, 110, 120]: sd 10, half-width t(0.975, 2)·10/√3 = 24.84.
    const [lo, hi] = m.ci95!.output_throughput!;
    expect((hi - lo) / 2).toBeCloseTo((4.302653 * 10) / Math.sqrt(3), 3);
    expect(m.ci95!.tpot_p99_ms).toBeNull();
    expect(Object.keys(m.ci95!)).toEqual(ciColumns());
  });

  it('sweep.csv gets runs and <col>_ci_low/_ci_high columns only when a row averages runs', () => {
    const [header, line] = sweepCsv([m]).trim().split('\n');
    const cols = header.split(',');
    expect(cols).toContain('runs');
    expect(cols).toContain('output_throughput_ci_low');
    expect(cols).toContain('ttft_p99_ms_ci_high');
    const cells = line.split(',');
    expect(Number(cells[cols.indexOf('runs')])).toBe(3);
    expect(Number(cells[cols.indexOf('output_throughput_ci_low')])).toBeCloseTo(m.ci95!.output_throughput![0], 6);
    expect(sweepCsv([rows[0]]).split('\n')[0]).not.toMatch(/_ci_low|,runs/);
  });
});
