// Summary: the whole run's metrics computed from request records alone (the same code serves `report`).
import { distStats, type DistStats } from './stats.js';
import type { RequestRecord, RequestStatus } from './record.js';
import type { ClientHealth } from './health.js';

export interface ErrorCount {
  kind: RequestStatus;
  http_status: number | null;
  count: number;
  /** One example message (server text truncated, never interpreted). */
  example: string | null;
}

/** Failed records with one stable `code` (see src/backends/error-codes.ts). */
export interface CodeCount {
  code: string;
  kind: RequestStatus;
  count: number;
  example: string | null;
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
}

/** Every distribution in a metrics block, with its display label, in display order. */
export const DISTRIBUTION_METRICS: readonly [string, keyof MetricsBlock][] = [
  ['TTFT (ms)', 'ttft_ms'],
  ['TTFAT (ms)', 'ttfat_ms'],
  ['first event (ms)', 'first_event_ms'],
  ['TPOT (ms)', 'tpot_ms'],
  ['ITL (ms)', 'itl_ms'],
  ['E2E (ms)', 'e2e_ms'],
  ['output speed (tok/s/req)', 'output_speed_tok_s'],
  ['input tokens', 'input_tokens'],
  ['output tokens', 'output_tokens'],
  ['reasoning tokens', 'reasoning_tokens'],
  ['cached tokens', 'cached_tokens'],
  ['schedule lag (ms)', 'schedule_lag_ms'],
];

export interface Summary extends MetricsBlock {
  schema_version: 1;
  run: Record<string, unknown>;
  /** The same metrics for each traffic class, when requests carry one. */
  by_class?: Record<string, MetricsBlock>;
  /** The client's own health during the run: was the load generator the bottleneck? (docs/performance.md) */
  client?: ClientHealth;
}

const nonNull = (xs: (number | null)[]): number[] => xs.filter((x): x is number => x !== null);

/**
 * Compute the metrics block over the measured (non-warmup) records.
 * duration_s = (last end − first send) over measured requests; throughputs divide by it;
 * mean_in_flight = Σ e2e / duration (Little's law over the window); error_rate = failed / (total − cancelled).
 */
export function computeMetrics(all: readonly RequestRecord[], concurrency?: number): MetricsBlock {
  const recs = all.filter((r) => !r.warmup);
  const ok = recs.filter((r) => r.status === 'ok');
  const cancelled = recs.filter((r) => r.status === 'cancelled').length;
  const failed = recs.length - ok.length - cancelled;

  let start = Infinity;
  let end = -Infinity;
  let busyMs = 0;
  for (const r of recs) {
    start = Math.min(start, r.sent_at_ms);
    end = Math.max(end, r.sent_at_ms + (r.end_ms ?? 0));
    busyMs += r.end_ms ?? 0;
  }
  const durationMs = recs.length ? Math.max(end - start, 1e-3) : 0;
  const durationS = durationMs / 1000;
  const per = (x: number) => (durationS > 0 ? x / durationS : 0);

  let inTok = 0;
  let outTok = 0;
  for (const r of ok) {
    inTok += r.input_tokens ?? 0;
    outTok += r.output_tokens ?? 0;
  }
  const errMap = new Map<string, ErrorCount>();
  const codeMap = new Map<string, CodeCount>();
  for (const r of recs) {
    // cancelled requests are not failures (the run was stopped); HTTP status splits only http_error rows.
    if (r.status === 'ok' || r.status === 'cancelled') continue;
    const key = r.status === 'http_error' ? `${r.status}:${r.http_status ?? ''}` : r.status;
    const e = errMap.get(key);
    if (e) e.count++;
    else
      errMap.set(key, {
        kind: r.status,
        http_status: r.status === 'http_error' ? r.http_status : null,
        count: 1,
        example: r.error ? r.error.slice(0, 200) : null,
      });
    const code = r.code ?? r.status; // never null for a failure written by tokenflood; a hand-made record keeps its kind
    const c = codeMap.get(code);
    if (c) c.count++;
    else codeMap.set(code, { code, kind: r.status, count: 1, example: r.error ? r.error.slice(0, 200) : null });
  }
  const meanInFlight = durationMs > 0 ? busyMs / durationMs : 0;
  const outputThroughput = per(outTok);
  const conc = concurrency ?? meanInFlight;
  const itl: number[] = [];
  for (const r of ok) for (const g of r.itl_ms) itl.push(g);
  const denom = recs.length - cancelled;
  return {
    requests: {
      total: recs.length,
      ok: ok.length,
      failed,
      cancelled,
      error_rate: denom > 0 ? failed / denom : 0,
      warmup: all.length - recs.length,
      retries: recs.filter((r) => r.attempt > 1).length,
      reconnected: recs.filter((r) => r.reconnected).length,
      errors: [...errMap.values()].sort((a, b) => b.count - a.count),
      errors_by_code: [...codeMap.values()].sort((a, b) => b.count - a.count || (a.code < b.code ? -1 : 1)),
    },
    duration_s: durationS,
    request_throughput: per(ok.length),
    qpm: per(ok.length) * 60,
    input_throughput: per(inTok),
    output_throughput: outputThroughput,
    total_token_throughput: per(inTok + outTok),
    concurrency_efficiency: conc > 0 ? outputThroughput / conc : null,
    mean_in_flight: meanInFlight,
    ttft_ms: distStats(nonNull(ok.map((r) => r.ttft_ms))),
    ttfat_ms: distStats(nonNull(ok.map((r) => r.ttfat_ms))),
    first_event_ms: distStats(nonNull(ok.map((r) => r.first_event_ms))),
    tpot_ms: distStats(nonNull(ok.map((r) => r.tpot_ms))),
    itl_ms: distStats(itl),
    e2e_ms: distStats(nonNull(ok.map((r) => r.e2e_ms))),
    output_speed_tok_s: distStats(nonNull(ok.map((r) => r.output_speed_tok_s))),
    input_tokens: distStats(nonNull(ok.map((r) => r.input_tokens))),
    output_tokens: distStats(nonNull(ok.map((r) => r.output_tokens))),
    reasoning_tokens: distStats(nonNull(ok.map((r) => r.reasoning_tokens))),
    cached_tokens: distStats(nonNull(ok.map((r) => r.cached_tokens))),
    schedule_lag_ms: distStats(recs.map((r) => r.schedule_lag_ms)),
    token_source: {
      usage: ok.filter((r) => r.token_source === 'usage').length,
      tokenizer: ok.filter((r) => r.token_source === 'tokenizer').length,
      estimate: ok.filter((r) => r.token_source === 'estimate').length,
    },
  };
}

export function buildSummary(records: readonly RequestRecord[], run: Record<string, unknown>, concurrency?: number): Summary {
  const summary: Summary = { schema_version: 1, run, ...computeMetrics(records, concurrency) };
  if (run.client_health) summary.client = run.client_health as ClientHealth;
  const classes = [...new Set(records.map((r) => r.class).filter((c): c is string => !!c))].sort();
  if (classes.length > 0) {
    summary.by_class = {};
    for (const c of classes) summary.by_class[c] = computeMetrics(records.filter((r) => r.class === c), concurrency);
  }
  return summary;
}
