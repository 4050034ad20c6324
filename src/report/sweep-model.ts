// The sweep report model: the plain data a sweep produces (sweep.json) and every sweep reporter reads, with its labels.
import type { AutoRole, AutoSearchReport } from './auto-search-model.js';

export type LoadMode = 'concurrency' | 'rate';

/** Token lengths of a sweep's requests; 0 and 0 mean "as the run flags configure them" (a distribution, a dataset, a mix). */
export interface InputOutput {
  input: number;
  output: number;
}

export const isAsConfigured = (io: { input_tokens?: number; output_tokens?: number; input?: number; output?: number }): boolean =>
  (io.input ?? io.input_tokens) === 0 && (io.output ?? io.output_tokens) === 0;

/** "256x256", or "configured lengths" for 0 and 0 (AS_CONFIGURED). */
export const pairLabel = (io: InputOutput): string => (isAsConfigured(io) ? 'configured lengths' : `${io.input}x${io.output}`);

export const rowPairLabel = (r: { input_tokens: number; output_tokens: number }): string => pairLabel({ input: r.input_tokens, output: r.output_tokens });

/** A load in words: "concurrency 8" or "2 req/s". */
export const loadWords = (mode: LoadMode, load: number): string => (mode === 'concurrency' ? `concurrency ${load}` : `${load} req/s`);

/** The --percentiles extras of a sweep's rows (extra_percentiles keys, in order of first appearance), optionally of some metrics only. */
export function extraPercentileKeys(rows: readonly SweepRow[], metrics?: readonly string[]): string[] {
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r.extra_percentiles ?? {})))];
  return metrics ? keys.filter((k) => metrics.includes(k.split('_')[0])) : keys;
}

/** "TTFT p99.9" for ttft_p99_9_ms. */
export const extraPercentileLabel = (key: string): string =>
  key.replace(/^([a-z0-9]+)_p([\d_]+)_ms$/, (_, m: string, p: string) => `${m.toUpperCase()} p${p.replace('_', '.')}`);

export interface SweepRow {
  name: string;
  /** Point directory relative to the sweep directory. */
  dir: string;
  mode: LoadMode;
  /** The level's load: concurrency (closed loop) or requests per second (open loop). */
  load: number;
  concurrency: number | null;
  rate: number | null;
  input_tokens: number;
  output_tokens: number;
  /** "256x256", or what the run flags configure when the sweep does not fix the pair ("in normal:512,64 out 128", "mix ..."). */
  lengths: string;
  /** Measured mean prompt and output tokens of the point's successful requests (null when none succeeded). */
  input_tokens_mean: number | null;
  output_tokens_mean: number | null;
  /** "done": the point ran (its requests may still have failed); "failed": it could not run (reason in `error`). */
  status: 'done' | 'failed';
  error: string | null;
  /** The load generator itself was a bottleneck at this point (see docs/metrics.md, client health). */
  client_bound: boolean;
  /** From the server's /metrics (summary.server), null when it was not scraped: mean queue and prefill time (ms), mean waiting requests, mean KV-cache usage (0..1). */
  server_queue_mean_ms?: number | null;
  server_prefill_mean_ms?: number | null;
  server_waiting_mean?: number | null;
  server_kv_usage_mean?: number | null;
  /** Kinds of the server findings at this point (queue_bound, kv_bound, ...), in the order found. */
  server_findings?: string[];
  /** Mean GPU utilization (%) over every GPU and sample (summary.gpu), null without --gpu-metrics. */
  gpu_util_pct_mean?: number | null;
  /** Percentiles --percentiles asked for beyond the fixed p50/p90/p99 columns, e.g. ttft_p99_9_ms (sweep.csv: one column each, after the others). */
  extra_percentiles?: Record<string, number | null>;
  requests: number;
  ok: number;
  failed: number;
  error_rate: number;
  duration_s: number;
  request_throughput: number;
  output_throughput: number;
  total_token_throughput: number;
  ttft_mean_ms: number | null;
  ttft_p50_ms: number | null;
  ttft_p90_ms: number | null;
  ttft_p99_ms: number | null;
  tpot_mean_ms: number | null;
  tpot_p50_ms: number | null;
  tpot_p90_ms: number | null;
  tpot_p99_ms: number | null;
  itl_mean_ms: number | null;
  itl_p50_ms: number | null;
  itl_p90_ms: number | null;
  itl_p99_ms: number | null;
  e2e_mean_ms: number | null;
  e2e_p50_ms: number | null;
  e2e_p90_ms: number | null;
  e2e_p99_ms: number | null;
  output_speed_mean_tok_s: number | null;
  output_speed_p50_tok_s: number | null;
  /** Coefficients of variation (stdev / mean) of per-request TPOT and E2E: lower is steadier. */
  tpot_cv: number | null;
  e2e_cv: number | null;
  concurrency_efficiency: number | null;
  mean_in_flight: number;
  /** Good requests (ok and within every per-request SLO limit) per second, and their output tokens per second. */
  goodput_req_s: number;
  goodput_tok_s: number;
  good_fraction: number;
  /** Whether the point met every SLO; null when the sweep has none. */
  slo_passed: boolean | null;
  /** Names of the SLO checks that failed. */
  slo_failed: string[];
  /** The SLO check that used most of its allowance and that share (measured / limit; limit / measured for a floor); null without SLOs. */
  slo_worst_metric?: string | null;
  slo_worst_ratio?: number | null;
  /** A–F from the SLO margins (docs/commands/sweep.md#grades); null without SLOs or for a point that did not run. */
  grade?: 'A' | 'B' | 'C' | 'D' | 'F' | null;
  /** The open-loop --auto profile's probes: `synchronous` (concurrency 1) and `throughput` (--max-concurrency); null otherwise. */
  auto_role?: AutoRole | null;
  /**
   * sweep --runs N: the runs this point's figures average (its measured columns are the means over them; requests,
   * ok and failed the sums); absent for a point run once. Its runs are in `<dir>/run-K/`, their aggregate in `<dir>/runs.json`.
   */
  runs?: number;
  /** sweep --runs N: the 95% t-interval of the mean of each headline column over the runs (`ttft_p99_ms: [low, high]`), null for fewer than 2 runs. */
  ci95?: Record<string, [number, number] | null>;
}

export type KneeMetric = 'output_throughput' | 'ttft_p99_ms' | 'tpot_p99_ms' | 'e2e_p99_ms';

export interface KneeResult {
  load: number;
  output_throughput: number;
  /** Normalised distance from the chord (0..1): how pronounced the bend is. */
  strength: number;
  /** The metric whose bend defines the knee: the one that bends at the lowest load (absent in sweeps before 0.x). */
  metric?: KneeMetric;
  /** Name of the point at the knee. */
  point?: string;
  /** The client-bound points this finding rests on (the knee's point and the ends of its chord); empty when none. */
  client_bound_points?: string[];
}

/** A point's grade within its slice (see SweepRow.grade). */
export interface PointGrade {
  load: number;
  name: string;
  grade: 'A' | 'B' | 'C' | 'D' | 'F' | null;
  worst_metric: string | null;
  worst_ratio: number | null;
}

export interface GroupInsights {
  mode: LoadMode;
  input_tokens: number;
  output_tokens: number;
  /** The rows' `lengths` label ("256x256", or what the run flags configure). */
  lengths: string;
  levels: number[];
  peak: { load: number; output_throughput: number } | null;
  knee: KneeResult | null;
  /** Highest level such that it and every lower level met the SLOs (and the error threshold); null when none did. */
  max_load_meeting_slo: number | null;
  /** HEADROOM_FACTOR × knee load (rounded down to a whole concurrency), null without a knee. */
  headroom_load: number | null;
  /**
   * Null when no level was acceptable or the sweep is incomplete. `interpolated`: the load was not measured, and
   * expected_output_throughput interpolates the two measured levels around it.
   */
  recommended: { load: number; reason: string; expected_output_throughput: number | null; interpolated: boolean; client_bound_points?: string[] } | null;
  /** Levels where the client itself was the bottleneck: still analysed, but marked, and every finding drawn from them says so. */
  client_bound_levels: number[];
  /** Levels that could not run (status "failed"). */
  failed_levels: number[];
  most_stable: { load: number; tpot_cv: number | null; e2e_cv: number | null } | null;
  /** Levels on the Pareto frontier of output throughput (higher is better) vs p99 E2E (lower is better). */
  pareto: number[];
  /** Every metric that bends, where (Kneedle per curve); the first is the knee. */
  knees?: { metric: KneeMetric; load: number; strength: number; point: string }[];
  /** Grades per point from the SLO margins; empty without SLOs. */
  grades?: PointGrade[];
  /**
   * From the highest load with comfortable SLO margin (grade A or B; without SLOs: 70% of the knee) to the knee
   * (capped at max_load_meeting_slo). `interpolated`: the low end was not measured. Null when no range can be given.
   */
  recommended_range?: { low: number; high: number; low_reason: string; high_reason: string; interpolated: boolean; points: string[]; client_bound_points?: string[] } | null;
  /**
   * Anomalous points: throughput drops, variance spikes, error bursts, client-bound levels. Each finding's
   * `client_bound_points` (knee, recommended, recommended_range, anomalies) lists the client-bound points it rests on.
   */
  anomalies?: { kind: 'throughput_drop' | 'variance_spike' | 'error_burst' | 'client_bound'; load: number; points: string[]; detail: string; client_bound_points?: string[] }[];
  /** The findings in plain words. */
  statements: string[];
}

export interface SweepDoc {
  schema_version: 1;
  kind: 'sweep';
  tool: 'tokenflood';
  version: string;
  started_at: string;
  finished_at: string;
  target_url: string;
  embedded_server: boolean;
  /** Present (true) when every point was predicted on the engine model (`sweep --simulate`): no server was measured. */
  simulated?: true;
  /** With `simulated`: the engine the points were predicted for, as each point's run.json `engine` has it. */
  engine?: Record<string, unknown> | null;
  model: string | null;
  mode: 'concurrency' | 'rate';
  auto: boolean;
  /** Why --auto stopped, per input/output pair ("256x256": reason). */
  auto_stop: Record<string, string> | null;
  /** The open-loop profile or SLO search per input/output pair: runs, bracket, precision, each run's misses (null otherwise). */
  auto_search?: Record<string, AutoSearchReport> | null;
  /** --then-grid: per input/output pair, the knee and the grid run around it (sweep/then-grid.ts). */
  then_grid?: Record<string, ThenGrid>;
  slo: string | null;
  max_error_rate: number;
  /** The run config shared by every point (API key and secret headers redacted). */
  config: Record<string, unknown>;
  /** True when the sweep was stopped (Ctrl-C/SIGTERM) before every point ran. */
  interrupted: boolean;
  /** Why the sweep ended before every point ran, when a point could not run (e.g. the server went away); null otherwise. */
  failure: string | null;
  /** x-tokenflood-time-scale of a simulated server (simulated ms per wall-clock ms); null for a real server. */
  sim_time_scale: number | null;
  /** What the run flags configure when the sweep leaves lengths to them (rows with input/output 0). */
  configured_lengths: string;
  /** Plain-word warnings that qualify the numbers: scaled simulated time, client-bound levels, an early end. */
  warnings: string[];
  points: SweepRow[];
  insights: GroupInsights[];
}

/** --then-grid: the knee of one input/output pair and the grid run around it (sweep/then-grid.ts builds it). */
export interface ThenGrid {
  /** The load the grid is centred on, and where it came from. */
  knee: number | null;
  knee_from: 'slo_search' | 'output_throughput' | 'ttft_p99_ms' | 'tpot_p99_ms' | 'e2e_p99_ms' | 'highest_acceptable' | null;
  factors: readonly number[];
  /** The grid's loads (rounded: whole streams for concurrency, 3 significant digits for rates), measured in this sweep. */
  loads: number[];
  /** Of those, the ones the search had already measured (not run again). */
  reused: number[];
}
