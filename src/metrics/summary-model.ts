// The summary's shape: the metrics block of a set of records, and the whole run's summary (schema_version 1).
import type { ShortBaselineSummary } from './short-slowdown.js';
import type { ByUserSummary } from './user-cache.js';
import type { CancellationSummary } from './cancellation.js';
import type { UsersSummary } from './users.js';
import type { ServerTimingField } from './server-timings.js';
import type { RequestStatus } from './record.js';
import type { DistStats } from './stats.js';
import type { ClientHealth } from './health.js';
import type { PromptCacheCheck } from './prompt-cache.js';
import type { ServerSummary } from './server-model.js';
import type { PrefixGroupsSummary } from './cache-locality.js';
import type { PrefixReuseSummary, SessionsSummary, TurnBlock } from './sessions.js';
import type { ImagesBlock, MediaSummary } from './media.js';
import { BUILTIN_METRICS } from './registry/index.js';

export interface ErrorCount {
  kind: RequestStatus;
  http_status: number | null;
  count: number;
  /** One example message (server text truncated, never interpreted). */
  example: string | null;
}

/** Failed records with one stable `code` (see src/metrics/error-codes.ts). */
export interface CodeCount {
  code: string;
  kind: RequestStatus;
  count: number;
  example: string | null;
  /** The error playbook's advice for this code (metrics/error-hints.ts); absent in summaries written before it existed. */
  hint?: string | null;
}

export interface MetricsBlock {
  requests: {
    total: number;
    ok: number;
    failed: number;
    cancelled: number;
    error_rate: number;
    warmup: number;
    /** Extra attempts made by --retry (each is also counted in total, and its failure in failed). */
    retries: number;
    /**
     * Requests re-sent once on a new connection because a reused keep-alive connection closed before any response
     * byte (docs/reliability.md): the server may have received, and even processed, such a request twice.
     */
    reconnected: number;
    errors: ErrorCount[];
    /** The same failures split by `code` (finer than errors[]: E_HEADERS_TIMEOUT vs E_STREAM_STALLED, ECONNRESET vs E_MALFORMED_RESPONSE). */
    errors_by_code: CodeCount[];
  };
  duration_s: number;
  request_throughput: number;
  qpm: number;
  input_throughput: number;
  output_throughput: number;
  total_token_throughput: number;
  concurrency_efficiency: number | null;
  mean_in_flight: number;
  ttft_ms: DistStats;
  /** TTFT from the scheduled send time (open loop: includes the client's lateness; see docs/metrics.md). */
  ttft_from_scheduled_ms: DistStats;
  ttfat_ms: DistStats;
  first_event_ms: DistStats;
  tpot_ms: DistStats;
  itl_ms: DistStats;
  e2e_ms: DistStats;
  output_speed_tok_s: DistStats;
  input_tokens: DistStats;
  output_tokens: DistStats;
  reasoning_tokens: DistStats;
  cached_tokens: DistStats;
  schedule_lag_ms: DistStats;
  token_source: { usage: number; tokenizer: number; estimate: number };
  /** What native engine APIs reported per request (server_* record fields), when any request carried them. */
  server_timings?: Partial<Record<ServerTimingField, DistStats>>;
  /**
   * 95% batch-means intervals of the block's rates (request_throughput, qpm, input_throughput, output_throughput,
   * total_token_throughput), over time slices of the run: docs/metrics.md#confidence-intervals. null per key when too
   * few slices; absent in summaries written before it.
   */
  ci95?: Record<string, [number, number] | null>;
  /** Embeddings and rerank runs only: results (vectors, scores) the ok requests returned, and per second. */
  samples?: number;
  sample_throughput?: number;
  /** Samples per second: sample_throughput for embeddings and rerank, else ok requests / duration_s (one request = one sample). Absent in older summaries. */
  samples_per_s?: number;
  /** Σ request body bytes of measured requests, and request_bytes / 10⁶ / duration_s (MB/s); absent when no record carries request_bytes. */
  request_bytes?: number;
  request_mb_per_s?: number;
  /** Σ response body bytes received (as on the wire) of measured requests, and response_bytes / 10⁶ / duration_s (MB/s). */
  response_bytes?: number;
  response_mb_per_s?: number;
}

/** Every built-in distribution in a metrics block, with its display label, in display order (the registry's; metricsShownIn adds registered ones). */
export const DISTRIBUTION_METRICS: readonly [string, keyof MetricsBlock][] = BUILTIN_METRICS.map((d) => [d.label, d.id as keyof MetricsBlock]);

/**
 * Measured requests per phase, in a run with ramps or stages (docs/metrics.md#phases). `summarized` says which the
 * headline figures (and by_class) cover: the steady ones, or all of them when none was steady.
 */
export interface PhaseCounts {
  steady: number;
  ramp_up: number;
  ramp_down: number;
  summarized: 'steady' | 'all';
}

/** A live load stage's figures: started_at_ms, concurrency and rate come from run.json load_stages (null when absent). */
export interface StageBlock {
  stage: number;
  started_at_ms: number | null;
  concurrency: number | null;
  rate: number | null;
  metrics: MetricsBlock;
}

/** One time slice of a run (--slice): requests that completed in [start_s, end_s) of the run clock. */
export interface SliceBlock {
  index: number;
  start_s: number;
  end_s: number;
  /** Requests completed in the slice (ok and failed). */
  completed: number;
  ok: number;
  failed: number;
  request_throughput: number;
  output_throughput: number;
  /** Time-weighted mean of requests in flight over the slice. */
  mean_in_flight: number;
  ttft_ms: { mean: number | null; p50: number | null; p90: number | null; p99: number | null };
  tpot_ms: { mean: number | null; p50: number | null; p90: number | null; p99: number | null };
  e2e_ms: { mean: number | null; p50: number | null; p90: number | null; p99: number | null };
}

/** Per-slice figures (--slice): docs/metrics.md#time-slices. */
export interface SlicesSummary {
  slice_s: number;
  series: SliceBlock[];
}

/** What --warmup auto trimmed: the start of the steady state found by `rule` on the slice series. */
export interface SteadyStateSummary {
  rule: 'MSER-5';
  /** The series the rule ran on (e.g. ttft_ms.mean per batch of 5 slices' requests). */
  series: string;
  /** Seconds of the run clock trimmed as the transient ([0, trimmed_s)). */
  trimmed_s: number;
  /** Measured requests left out because they were sent in the transient. */
  trimmed_requests: number;
  /** Batches of 5 the rule ran on, and how many of them it dropped (d). */
  batches: number;
  truncated_batches: number;
  /** Why nothing was trimmed, when the series was too short for the rule. */
  note?: string;
}

/** The over-saturation test on the slice series: docs/metrics.md#over-saturation. */
export interface SaturationSummary {
  saturated: boolean;
  /** The run stopped early because of it (--stop-on-saturation). */
  stopped: boolean;
  /** What grew without bound: in_flight, ttft, or both; empty when not saturated. */
  growing: string[];
  /** Human-readable statement of the test and its figures. */
  detail: string;
  /** Slice length (s) and how many full slices the test saw: the last half of them is the window tested. */
  slice_s: number;
  slices: number;
  /** Per series tested: least-squares slope per second over the window, its 95% lower bound, and growth last/first third. */
  tests: Record<string, { slope_per_s: number; slope_low: number; growth: number; growing: boolean } | null>;
}

export interface Summary extends MetricsBlock {
  schema_version: 1;
  run: Record<string, unknown>;
  /** The percentiles asked for (--percentiles, default 50,90,95,99); distributions also always carry p50/p90/p95/p99. Absent in summaries written before it existed. */
  percentiles?: number[];
  /** Only in runs with a ramp: how many requests each phase had, and which phase the figures below cover. */
  phases?: PhaseCounts;
  /** Per-slice figures, with --slice (docs/metrics.md#time-slices). */
  slices?: SlicesSummary;
  /** With --warmup auto: the transient the steady-state rule trimmed. */
  steady_state?: SteadyStateSummary;
  /** The over-saturation test's verdict, when the run had enough slices for it. */
  saturation?: SaturationSummary;
  /** The same metrics for each traffic class, when requests carry one. */
  by_class?: Record<string, MetricsBlock>;
  /** The same metrics per endpoint (target name), when requests went to two or more (docs/routing.md). */
  by_endpoint?: Record<string, MetricsBlock>;
  /**
   * The same metrics per input-length band (--length-bands, default 0-4k,4k-16k,16k-32k,32k+; k = 1024 tokens), keyed by
   * band in band order, by each request's intended prompt length: docs/metrics.md#input-length-bands.
   */
  by_length_band?: Record<string, MetricsBlock>;
  /**
   * The same metrics per request priority (the record's `priority`: data field, --priority-mix or --extra-body), keyed
   * by the priority as text; only when the measured requests hold two or more priorities:
   * docs/metrics.md#priority-classes. JSON keeps integer-like keys ("0", "10") ascending ahead of the others ("-1"),
   * so readers order the entries themselves (report/breakdown-columns.ts priorityEntries: lowest, most urgent, first).
   */
  by_priority?: Record<string, MetricsBlock>;
  /** The same metrics per model, when requests asked for two or more. */
  by_model?: Record<string, MetricsBlock>;
  /** With shared-prefix groups: the share of requests that reached a server that had served their prefix before (docs/metrics.md#cache-locality). */
  cache_locality?: number | null;
  /** With shared-prefix groups: per group, where it was served and its cached-token rate. */
  prefix_groups?: PrefixGroupsSummary;
  /** One entry per live load stage (records carry `stage`): the load it ran under (run.json load_stages) and its metrics. */
  by_stage?: StageBlock[];
  /** Requests the client cancelled on purpose (--cancel-after/--cancel-rate): docs/metrics.md#request-cancellation. */
  cancellation?: CancellationSummary;
  /** Per user of the data (`user` field) or of --users: requests, TTFT and cached-token rate, top 10 and "others" (docs/metrics.md#users-and-their-cache). */
  by_user?: ByUserSummary;
  /** With --short-baseline: the short requests' TTFT/TPOT/E2E in this mixed run against a short-only run at the same load (docs/metrics.md#short-vs-long-baseline). */
  short_baseline?: ShortBaselineSummary;
  /** The user-centric executor (--users/--user-rate): docs/metrics.md#user-centric-rate. */
  users?: UsersSummary;
  /** Per 0-based turn index (turns 16 and later pooled as "16+"), when records carry `turn`: docs/metrics.md#sessions-and-turns. */
  by_turn?: Record<string, TurnBlock>;
  /** Per-session figures (duration, turns, join and tool waits, subagents), when records carry `session`. */
  sessions?: SessionsSummary;
  /** Prompt tokens, the trace's cache ceiling and the server's cached tokens, overall and per turn, when records carry `ceiling_tokens`. */
  prefix_reuse?: PrefixReuseSummary;
  /** Images, video and audio totals, rates and the client's encode cost, when records carry media (docs/metrics.md#images-video-and-audio). */
  media?: MediaSummary;
  /** TTFT/TPOT/ITL/E2E per image count of a request ("0" … "7", "8+"), when records carry media. */
  by_images?: Record<string, ImagesBlock>;
  /** The client's own health during the run: was the load generator the bottleneck? (docs/performance.md) */
  client?: ClientHealth;
  /** The cached share of prompt tokens, and a warning when a prefix cache answered a run that did not ask for it (docs/output-format.md#prompt-cache). */
  prompt_cache?: PromptCacheCheck;
  /** What the target's /metrics said during the run, when it served them (docs/output-format.md#server). */
  server?: ServerSummary;
  /** GPU and host telemetry (--gpu-metrics, --server-pid), derived from gpu_metrics.jsonl: docs/gpu-telemetry.md. */
  gpu?: Record<string, unknown>;
}
