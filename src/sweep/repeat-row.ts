// sweep --runs N: one point's row from its N runs' rows: the means, the summed counts and a t-interval per headline column.
import { meanInterval } from '../metrics/inference/index.js';
import { RUNS_CONFIDENCE } from '../runs/aggregate.js';
import type { SweepRow } from '../report/sweep-model.js';
import { gradePoint } from './grade.js';
import { ciColumns } from './row.js';

/** Counts of requests: summed over the runs (the point sent them all), not averaged. */
const SUMMED = new Set<string>(['requests', 'ok', 'failed']);

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Each key's mean over the rows where it is a number; null where no row has one. */
function meanRecord(recs: readonly Record<string, number | null>[]): Record<string, number | null> {
  const keys = [...new Set(recs.flatMap((r) => Object.keys(r)))];
  return Object.fromEntries(keys.map((k) => {
    const xs = recs.map((r) => r[k]).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
    return [k, xs.length ? mean(xs) : null];
  }));
}

/**
 * The point's row from its runs' rows (each built by sweepRow from one run): numbers are the mean over the runs that
 * have them (counts the sum), flags the worst case (client_bound if any run was, slo_passed only if every run passed),
 * and `ci95` the t-interval of each ciColumns() value. The insights and the knee read these means.
 */
export function mergeRunRows(rows: readonly SweepRow[], dir: string, maxErrorRate: number): SweepRow {
  const first = rows[0];
  const merged = { ...first, dir } as unknown as Record<string, unknown>;
  for (const [k, v] of Object.entries(first)) {
    if (typeof v !== 'number' && v !== null) continue;
    const xs = rows.map((r) => (r as unknown as Record<string, unknown>)[k]).filter((x): x is number => typeof x === 'number' && Number.isFinite(x));
    if (!xs.length) continue;
    merged[k] = SUMMED.has(k) ? xs.reduce((a, b) => a + b, 0) : mean(xs);
  }
  // Not averages: the load and the asked lengths are the point's own.
  for (const k of ['load', 'concurrency', 'rate', 'input_tokens', 'output_tokens'] as const) merged[k] = first[k];
  const row = merged as unknown as SweepRow;
  row.client_bound = rows.some((r) => r.client_bound);
  row.slo_passed = first.slo_passed === null ? null : rows.every((r) => r.slo_passed === true);
  row.slo_failed = [...new Set(rows.flatMap((r) => r.slo_failed))];
  if (first.server_findings) row.server_findings = [...new Set(rows.flatMap((r) => r.server_findings ?? []))];
  const extras = rows.map((r) => r.extra_percentiles).filter((x): x is Record<string, number | null> => x !== undefined);
  if (extras.length) row.extra_percentiles = meanRecord(extras);
  row.runs = rows.length;
  row.ci95 = Object.fromEntries(
    ciColumns().map((col) => {
      const xs = rows.map((r) => (r as unknown as Record<string, unknown>)[col]).filter((x): x is number => typeof x === 'number' && Number.isFinite(x));
      return [col, meanInterval(xs, RUNS_CONFIDENCE).ci];
    }),
  );
  row.grade = gradePoint(row, maxErrorRate);
  return row;
}
