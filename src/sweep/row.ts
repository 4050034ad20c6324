// One sweep point as a flat row (sweep.csv / sweep.json): its load, lengths, throughputs, latency stats, stability and goodput.
import type { MetricsBlock, Summary } from '../metrics/summary.js';
import { percentileKey, type DistStats } from '../metrics/stats.js';
import type { RequestRecord } from '../metrics/record.js';
import { evaluateSlo, type GoodRequestCount, type Slo } from '../metrics/slo.js';
import type { SweepRow } from '../report/sweep-model.js';
import { pairLabel, type PointSpec } from './grid.js';
import { gradePoint, worstSlo } from './grade.js';
import { csvCell } from '../report/csv-cell.js';
import { BUILTIN_METRICS, distOf, metricsShownIn, shownIn, type MetricDef } from '../metrics/registry/index.js';

export type { SweepRow } from '../report/sweep-model.js';

/** Coefficient of variation = stdev / mean, null when undefined. */
export function coefficientOfVariation(d: DistStats): number | null {
  return d.mean === null || d.stdev === null || d.mean === 0 ? null : d.stdev / d.mean;
}

/** How a point's lengths are labelled: the pair, or the run flags' description when the sweep leaves lengths to them. */
export const pointLengths = (p: Pick<PointSpec, 'inputTokens' | 'outputTokens'>, configured: string): string =>
  p.inputTokens === 0 && p.outputTokens === 0 ? configured : pairLabel({ input: p.inputTokens, output: p.outputTokens });

export interface RowContext {
  slo: Slo | undefined;
  /** Label of the configured lengths (see pointLengths). */
  configured: string;
  clientBound: boolean;
  /** Error rate above which the point is graded F (the sweep's error threshold). */
  maxErrorRate: number;
}

/** The row's own percentile columns; --percentiles adds the others it names (extraPercentiles). */
const ROW_PERCENTILES: readonly number[] = [50, 90, 99];

export type SweepMetric = MetricDef & Required<Pick<MetricDef, 'sweep'>>;
export const withSweep = (defs: readonly MetricDef[]): SweepMetric[] => defs.filter((d): d is SweepMetric => shownIn(d, 'sweep') && d.sweep !== undefined);

/** A sweep metric's row columns: `<name>_mean_<suffix>` and `<name>_p50|p90|p99_<suffix>` (ttft_p99_ms). */
export const metricColumns = (d: SweepMetric): string[] => ['mean', ...ROW_PERCENTILES.map(percentileKey)].map((st) => `${d.sweep.name}_${st}_${d.sweep.suffix}`);

/** The registry's sweep metrics' columns of one point (built-in and registered), null where the summary lacks them. */
function metricRowColumns(m: MetricsBlock, defs: readonly SweepMetric[] = withSweep(metricsShownIn('sweep'))): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const d of defs) {
    const dist = distOf(m, d);
    const stats = [dist?.mean, ...ROW_PERCENTILES.map((p) => dist?.[percentileKey(p)])];
    metricColumns(d).forEach((col, i) => (out[col] = stats[i] ?? null));
  }
  return out;
}

/** Registered metrics shown in sweeps (a library user's, a test's): their columns follow the built-in ones. */
const registeredSweepMetrics = (): SweepMetric[] => withSweep(metricsShownIn('sweep')).filter((d) => !BUILTIN_METRICS.includes(d));

/** The registry's sweep metrics (TTFT, TPOT, ITL, E2E) at each percentile the run asked for beyond ROW_PERCENTILES, keyed `ttft_p99_9_ms`; undefined when none. */
export function extraPercentiles(m: MetricsBlock & Partial<Pick<Summary, 'percentiles'>>): Record<string, number | null> | undefined {
  const extra = (m.percentiles ?? []).filter((p) => !ROW_PERCENTILES.includes(p));
  if (!extra.length) return undefined;
  const out: Record<string, number | null> = {};
  // The registry's sweep metrics (TTFT, TPOT, ITL, E2E and any registered one), keyed <name>_<pNN>_<suffix>.
  for (const def of metricsShownIn('sweep')) {
    const d = def.sweep && distOf(m, def);
    if (d) for (const p of extra) out[`${def.sweep!.name}_${percentileKey(p)}_${def.sweep!.suffix}`] = d[percentileKey(p)] ?? null;
  }
  return out;
}

export function sweepRow(p: PointSpec, dir: string, m: MetricsBlock & Partial<Pick<Summary, 'server' | 'gpu' | 'percentiles'>>, records: Iterable<RequestRecord> | GoodRequestCount, ctx: RowContext): SweepRow {
  const extra = extraPercentiles(m);
  const slo = ctx.slo;
  const ev = evaluateSlo(m, records, slo);
  const worst = slo ? worstSlo(ev.checks) : undefined;
  const row: SweepRow = {
    name: p.name,
    dir,
    mode: p.mode,
    load: p.load,
    concurrency: p.mode === 'concurrency' ? p.load : null,
    rate: p.mode === 'rate' ? p.load : null,
    input_tokens: p.inputTokens,
    output_tokens: p.outputTokens,
    lengths: pointLengths(p, ctx.configured),
    input_tokens_mean: m.input_tokens.mean,
    output_tokens_mean: m.output_tokens.mean,
    status: 'done',
    error: null,
    client_bound: ctx.clientBound,
    requests: m.requests.total,
    ok: m.requests.ok,
    failed: m.requests.failed,
    error_rate: m.requests.error_rate,
    duration_s: m.duration_s,
    request_throughput: m.request_throughput,
    output_throughput: m.output_throughput,
    total_token_throughput: m.total_token_throughput,
    // TTFT, TPOT, ITL, E2E and any registered sweep metric: mean, p50, p90, p99 each, from the registry.
    ...(metricRowColumns(m) as unknown as Pick<SweepRow, (typeof BUILTIN_LATENCY)[number]>),
    output_speed_mean_tok_s: m.output_speed_tok_s.mean,
    output_speed_p50_tok_s: m.output_speed_tok_s.p50,
    tpot_cv: coefficientOfVariation(m.tpot_ms),
    e2e_cv: coefficientOfVariation(m.e2e_ms),
    concurrency_efficiency: m.concurrency_efficiency,
    mean_in_flight: m.mean_in_flight,
    goodput_req_s: ev.goodput_req_s,
    goodput_tok_s: ev.goodput_tok_s,
    good_fraction: ev.good_fraction,
    slo_passed: slo ? ev.passed : null,
    slo_failed: ev.checks.filter((c) => !c.passed).map((c) => c.name),
    ...serverColumns(m),
    slo_worst_metric: worst?.metric ?? null,
    slo_worst_ratio: worst?.ratio ?? null,
    grade: null,
    ...(extra ? { extra_percentiles: extra } : {}),
  };
  row.grade = gradePoint(row, ctx.maxErrorRate);
  return row;
}

/** A point that could not run (the server went away, the run threw): no measurements, the reason in `error`. */
/** The server and GPU columns of a point: what its /metrics and --gpu-metrics said, null when they were not sampled. */
function serverColumns(m: Partial<Pick<Summary, 'server' | 'gpu'>>): Pick<SweepRow, 'server_queue_mean_ms' | 'server_prefill_mean_ms' | 'server_waiting_mean' | 'server_kv_usage_mean' | 'server_findings' | 'gpu_util_pct_mean'> {
  const s = m.server;
  const util = m.gpu?.util_pct_mean;
  return {
    server_queue_mean_ms: s?.ttft_decomposition?.queue_mean_ms ?? s?.times.queue?.mean_ms ?? null,
    server_prefill_mean_ms: s?.ttft_decomposition?.prefill_mean_ms ?? s?.times.prefill?.mean_ms ?? null,
    server_waiting_mean: s?.waiting_mean ?? null,
    server_kv_usage_mean: s?.kv_usage_mean ?? null,
    server_findings: s ? s.findings.map((f) => f.kind) : [],
    gpu_util_pct_mean: typeof util === 'number' ? util : null,
  };
}

export function failedRow(p: PointSpec, dir: string, reason: string, configured: string): SweepRow {
  const nulls = Object.fromEntries([...LATENCY_COLUMNS, ...registeredSweepMetrics().flatMap(metricColumns)].map((k) => [k, null])) as Pick<SweepRow, (typeof LATENCY_COLUMNS)[number]>;
  return {
    name: p.name, dir, mode: p.mode, load: p.load, concurrency: p.mode === 'concurrency' ? p.load : null, rate: p.mode === 'rate' ? p.load : null,
    input_tokens: p.inputTokens, output_tokens: p.outputTokens, lengths: pointLengths(p, configured), input_tokens_mean: null, output_tokens_mean: null,
    status: 'failed', error: reason, client_bound: false, requests: 0, ok: 0, failed: 0, error_rate: 0, duration_s: 0,
    request_throughput: 0, output_throughput: 0, total_token_throughput: 0, ...nulls, mean_in_flight: 0,
    goodput_req_s: 0, goodput_tok_s: 0, good_fraction: 0, slo_passed: null, slo_failed: [], ...serverColumns({}),
    slo_worst_metric: null, slo_worst_ratio: null, grade: null,
  };
}

/** The built-in sweep metrics' columns (the registry's TTFT, TPOT, ITL, E2E), typed as SweepRow's fields. */
const BUILTIN_LATENCY = [
  'ttft_mean_ms', 'ttft_p50_ms', 'ttft_p90_ms', 'ttft_p99_ms', 'tpot_mean_ms', 'tpot_p50_ms', 'tpot_p90_ms', 'tpot_p99_ms',
  'itl_mean_ms', 'itl_p50_ms', 'itl_p90_ms', 'itl_p99_ms', 'e2e_mean_ms', 'e2e_p50_ms', 'e2e_p90_ms', 'e2e_p99_ms',
] as const;
// The registry and SweepRow's typed fields agree (a renamed metric or suffix fails at load, not in a file).
if (withSweep(BUILTIN_METRICS).flatMap(metricColumns).join() !== BUILTIN_LATENCY.join()) throw new Error('sweep/row.ts: the built-in sweep metrics changed; update BUILTIN_LATENCY');

const LATENCY_COLUMNS = [
  ...BUILTIN_LATENCY,
  'output_speed_mean_tok_s', 'output_speed_p50_tok_s', 'tpot_cv', 'e2e_cv', 'concurrency_efficiency',
] as const;

/** Columns of sweep.csv, in order (every SweepRow field). */
export const SWEEP_COLUMNS: (keyof SweepRow)[] = [
  'name', 'dir', 'mode', 'load', 'concurrency', 'rate', 'input_tokens', 'output_tokens', 'requests', 'ok', 'failed', 'error_rate',
  'duration_s', 'request_throughput', 'output_throughput', 'total_token_throughput',
  ...BUILTIN_LATENCY,
  'output_speed_mean_tok_s', 'output_speed_p50_tok_s', 'tpot_cv', 'e2e_cv', 'concurrency_efficiency', 'mean_in_flight',
  'goodput_req_s', 'goodput_tok_s', 'good_fraction', 'slo_passed', 'slo_failed',
  'lengths', 'input_tokens_mean', 'output_tokens_mean', 'status', 'error', 'client_bound',
  'server_queue_mean_ms', 'server_prefill_mean_ms', 'server_waiting_mean', 'server_kv_usage_mean', 'server_findings', 'gpu_util_pct_mean',
  'grade', 'slo_worst_metric', 'slo_worst_ratio',
  'auto_role',
];

const NOT_MEASURED = new Set<keyof SweepRow>([
  'requests', 'ok', 'failed', 'error_rate', 'duration_s', 'request_throughput', 'output_throughput', 'total_token_throughput',
  'mean_in_flight', 'goodput_req_s', 'goodput_tok_s', 'good_fraction',
]);

/**
 * sweep --runs N: the columns that carry an interval (sweep.json `ci95`, sweep.csv `<col>_ci_low`/`<col>_ci_high`): the
 * throughputs and every registry sweep metric's mean/p50/p90/p99 columns (TTFT, TPOT, ITL, E2E and any registered one).
 */
export function ciColumns(): string[] {
  return ['request_throughput', 'output_throughput', 'total_token_throughput', ...withSweep(metricsShownIn('sweep')).flatMap(metricColumns)];
}

/** sweep.csv's interval columns when a row averages several runs: `runs`, then `<col>_ci_low`, `<col>_ci_high` per ciColumns(). */
const intervalColumns = (rows: readonly SweepRow[]): string[] =>
  rows.some((r) => r.runs !== undefined) ? ['runs', ...ciColumns().flatMap((c) => [`${c}_ci_low`, `${c}_ci_high`])] : [];

/** A row's cell of an intervalColumns() column. */
function intervalCell(r: SweepRow, col: string): string {
  if (col === 'runs') return csvCell(r.runs ?? null);
  const m = /^(.*)_ci_(low|high)$/.exec(col)!;
  const ci = r.ci95?.[m[1]];
  return csvCell(ci ? ci[m[2] === 'low' ? 0 : 1] : null);
}

/** sweep.csv: a header line then one line per row; --percentiles extras (extra_percentiles) are the last columns. */
export function sweepCsv(rows: readonly SweepRow[]): string {
  // A point that never ran measured nothing: its counts and rates are empty cells, not zeros.
  const cell = (r: SweepRow, c: keyof SweepRow) => csvCell(r.status === 'failed' && NOT_MEASURED.has(c) ? null : r[c]);
  // Registered sweep metrics' columns come after the fixed ones, then the --percentiles extras.
  const registered = registeredSweepMetrics().flatMap(metricColumns);
  const own = (r: SweepRow, k: string) => csvCell((r as unknown as Record<string, number | null | undefined>)[k] ?? null);
  const extra = [...new Set(rows.flatMap((r) => Object.keys(r.extra_percentiles ?? {})))];
  // sweep --runs N: the runs and each headline column's interval, before the --percentiles extras.
  const intervals = intervalColumns(rows);
  const line = (r: SweepRow) => [...SWEEP_COLUMNS.map((c) => cell(r, c)), ...registered.map((k) => own(r, k)), ...intervals.map((k) => intervalCell(r, k)), ...extra.map((k) => csvCell(r.extra_percentiles?.[k] ?? null))].join(',');
  return [[...SWEEP_COLUMNS, ...registered, ...intervals, ...extra].join(','), ...rows.map(line)].join('\n') + '\n';
}
