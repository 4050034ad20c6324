// One sweep point as a flat row (sweep.csv / sweep.json): its load, lengths, throughputs, latency stats, stability and goodput.
import type { MetricsBlock, Summary } from '../metrics/summary.js';
import { percentileKey, type DistStats } from '../metrics/stats.js';
import type { RequestRecord } from '../metrics/record.js';
import { evaluateSlo, type GoodRequestCount, type Slo } from '../metrics/slo.js';
import type { SweepRow } from '../report/sweep-model.js';
import { pairLabel, type PointSpec } from './grid.js';
import { gradePoint, worstSlo } from './grade.js';
import { csvCell } from '../report/csv-cell.js';
import { distOf, metricsShownIn } from '../metrics/registry/index.js';

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
    ttft_mean_ms: m.ttft_ms.mean,
    ttft_p50_ms: m.ttft_ms.p50,
    ttft_p90_ms: m.ttft_ms.p90,
    ttft_p99_ms: m.ttft_ms.p99,
    tpot_mean_ms: m.tpot_ms.mean,
    tpot_p50_ms: m.tpot_ms.p50,
    tpot_p90_ms: m.tpot_ms.p90,
    tpot_p99_ms: m.tpot_ms.p99,
    itl_mean_ms: m.itl_ms.mean,
    itl_p50_ms: m.itl_ms.p50,
    itl_p90_ms: m.itl_ms.p90,
    itl_p99_ms: m.itl_ms.p99,
    e2e_mean_ms: m.e2e_ms.mean,
    e2e_p50_ms: m.e2e_ms.p50,
    e2e_p90_ms: m.e2e_ms.p90,
    e2e_p99_ms: m.e2e_ms.p99,
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
  const nulls = Object.fromEntries(LATENCY_COLUMNS.map((k) => [k, null])) as Pick<SweepRow, (typeof LATENCY_COLUMNS)[number]>;
  return {
    name: p.name, dir, mode: p.mode, load: p.load, concurrency: p.mode === 'concurrency' ? p.load : null, rate: p.mode === 'rate' ? p.load : null,
    input_tokens: p.inputTokens, output_tokens: p.outputTokens, lengths: pointLengths(p, configured), input_tokens_mean: null, output_tokens_mean: null,
    status: 'failed', error: reason, client_bound: false, requests: 0, ok: 0, failed: 0, error_rate: 0, duration_s: 0,
    request_throughput: 0, output_throughput: 0, total_token_throughput: 0, ...nulls, mean_in_flight: 0,
    goodput_req_s: 0, goodput_tok_s: 0, good_fraction: 0, slo_passed: null, slo_failed: [], ...serverColumns({}),
    slo_worst_metric: null, slo_worst_ratio: null, grade: null,
  };
}

const LATENCY_COLUMNS = [
  'ttft_mean_ms', 'ttft_p50_ms', 'ttft_p90_ms', 'ttft_p99_ms', 'tpot_mean_ms', 'tpot_p50_ms', 'tpot_p90_ms', 'tpot_p99_ms',
  'itl_mean_ms', 'itl_p50_ms', 'itl_p90_ms', 'itl_p99_ms', 'e2e_mean_ms', 'e2e_p50_ms', 'e2e_p90_ms', 'e2e_p99_ms',
  'output_speed_mean_tok_s', 'output_speed_p50_tok_s', 'tpot_cv', 'e2e_cv', 'concurrency_efficiency',
] as const;

/** Columns of sweep.csv, in order (every SweepRow field). */
export const SWEEP_COLUMNS: (keyof SweepRow)[] = [
  'name', 'dir', 'mode', 'load', 'concurrency', 'rate', 'input_tokens', 'output_tokens', 'requests', 'ok', 'failed', 'error_rate',
  'duration_s', 'request_throughput', 'output_throughput', 'total_token_throughput',
  'ttft_mean_ms', 'ttft_p50_ms', 'ttft_p90_ms', 'ttft_p99_ms', 'tpot_mean_ms', 'tpot_p50_ms', 'tpot_p90_ms', 'tpot_p99_ms',
  'itl_mean_ms', 'itl_p50_ms', 'itl_p90_ms', 'itl_p99_ms', 'e2e_mean_ms', 'e2e_p50_ms', 'e2e_p90_ms', 'e2e_p99_ms',
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

/** sweep.csv: a header line then one line per row; --percentiles extras (extra_percentiles) are the last columns. */
export function sweepCsv(rows: readonly SweepRow[]): string {
  // A point that never ran measured nothing: its counts and rates are empty cells, not zeros.
  const cell = (r: SweepRow, c: keyof SweepRow) => csvCell(r.status === 'failed' && NOT_MEASURED.has(c) ? null : r[c]);
  const extra = [...new Set(rows.flatMap((r) => Object.keys(r.extra_percentiles ?? {})))];
  const line = (r: SweepRow) => [...SWEEP_COLUMNS.map((c) => cell(r, c)), ...extra.map((k) => csvCell(r.extra_percentiles?.[k] ?? null))].join(',');
  return [[...SWEEP_COLUMNS, ...extra].join(','), ...rows.map(line)].join('\n') + '\n';
}
