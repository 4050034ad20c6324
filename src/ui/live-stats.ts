// The dashboard's view of a run, fed by record and snapshot events: Locust-style statistics, failures and windowed series.
import type { RequestRecord } from '../metrics/record.js';
import type { SnapshotEvent } from '../report/events.js';
import { LogHistogram } from './log-histogram.js';
import { percentileKey } from '../metrics/stats.js';
import { percentile } from '../metrics/stats.js';

/** Windowed percentiles and the current RPS describe the last WINDOW_MS, like the live line (metrics/live.ts). */
export const WINDOW_MS = 10_000;
/** Failure groups kept (kind, HTTP status, message); further distinct messages are counted under "other messages". */
const MAX_FAILURE_GROUPS = 200;
/** Longest error message shown (server text, redacted already, rendered as text by the page). */
const MAX_MESSAGE_CHARS = 300;

/** One row of the statistics table (Locust's layout plus TTFT and output tokens). */
export interface StatsRow {
  name: string;
  requests: number;
  failures: number;
  ttft: Dist;
  e2e: Dist;
  output_tok_s: number;
  current_rps: number;
}

export interface Dist {
  median: number | null;
  p90: number | null;
  p99: number | null;
  avg: number | null;
  min: number | null;
  max: number | null;
  /** The run's --percentiles beyond p50/p90/p99 (liveExtraPercentiles), ascending: a column each. */
  extra: { p: number; value: number | null }[];
}

export interface FailureRow {
  kind: string;
  http_status: number | null;
  message: string;
  count: number;
  /** Run time (s) of the last failure of this group. */
  last_seen_s: number;
}

/** What the page plots at each tick. */
export interface SeriesPoint {
  t: number;
  rps: number;
  out_tok_s: number;
  in_flight: number;
  ttft_p50: number | null;
  ttft_p99: number | null;
  tpot_p50: number | null;
  tpot_p99: number | null;
  itl_p50: number | null;
  itl_p99: number | null;
  /** At the run's extra --percentiles (DashboardStats.extra), in that order; empty without. */
  ttft_extra: (number | null)[];
  tpot_extra: (number | null)[];
  itl_extra: (number | null)[];
  /** Failures by kind in the window. */
  errors: Record<string, number>;
  /** Client health: p99 schedule lag of the window's requests (ms) and this process's event-loop delay p99 (ms). */
  lag_p99: number | null;
  loop_delay_p99: number | null;
  done: number;
  ok: number;
  failed: number;
  stage: number | null;
  /** The server's own view at its last scrape (--server-metrics), and GPU utilization (--gpu-metrics); null without. */
  server_running: number | null;
  server_waiting: number | null;
  kv_usage_pct: number | null;
  gpu_util_pct: number | null;
}

/** The latest telemetry the dashboard plots beside the requests. */
export interface LiveTelemetry {
  running: number | null;
  waiting: number | null;
  kvUsagePct: number | null;
  gpuUtilPct: number | null;
}

/** Drop the entries before the first one at or after `from` (oldest first): one splice, not a shift per entry. */
function dropBefore<T>(list: T[], from: number, at: (x: T) => number): void {
  let i = 0;
  while (i < list.length && at(list[i]) < from) i++;
  if (i) list.splice(0, i);
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** Fold one timeline sample line (server_metrics.jsonl or gpu_metrics.jsonl shape) into the latest telemetry. */
export function foldTelemetry(t: LiveTelemetry, source: 'server' | 'gpu', line: Record<string, unknown>): void {
  if (source === 'server') {
    const g = (line.gauges ?? {}) as Record<string, unknown>;
    t.running = num(g.running);
    t.waiting = num(g.waiting);
    const kv = num(g.kv_usage);
    t.kvUsagePct = kv === null ? null : kv * 100;
    return;
  }
  if (!Array.isArray(line.gpus)) return;
  const utils = (line.gpus as Record<string, unknown>[]).map((x) => num(x.util_pct)).filter((x): x is number => x !== null);
  t.gpuUtilPct = utils.length ? utils.reduce((a, b) => a + b, 0) / utils.length : null;
}

class Row {
  constructor(private readonly extra: readonly number[]) {}
  requests = 0;
  failures = 0;
  outputTokens = 0;
  firstSentMs = Infinity;
  lastEndMs = 0;
  readonly ttft = new LogHistogram();
  readonly e2e = new LogHistogram();
  /** Finish times (ms) within the window, oldest first: the current RPS. */
  readonly recent: number[] = [];

  add(r: RequestRecord, at: number): void {
    this.requests++;
    if (r.status !== 'ok') this.failures++;
    else {
      this.outputTokens += r.output_tokens ?? 0;
      if (r.ttft_ms !== null) this.ttft.record(r.ttft_ms);
      if (r.e2e_ms !== null) this.e2e.record(r.e2e_ms);
    }
    this.firstSentMs = Math.min(this.firstSentMs, r.sent_at_ms);
    this.lastEndMs = Math.max(this.lastEndMs, r.sent_at_ms + (r.end_ms ?? 0));
    this.recent.push(at);
  }

  view(name: string, now: number): StatsRow {
    dropBefore(this.recent, now - WINDOW_MS, (x) => x);
    const span = this.lastEndMs - this.firstSentMs;
    return {
      name,
      requests: this.requests,
      failures: this.failures,
      ttft: dist(this.ttft, this.extra),
      e2e: dist(this.e2e, this.extra),
      output_tok_s: span > 0 ? (this.outputTokens * 1000) / span : 0,
      current_rps: (this.recent.length * 1000) / Math.min(WINDOW_MS, Math.max(1000, now)),
    };
  }
}

const dist = (h: LogHistogram, extra: readonly number[]): Dist => {
  // quantiles() wants them ascending: one pass over the fixed three and the extra ones together.
  const ps = [...new Set([50, 90, 99, ...extra])].sort((a, b) => a - b);
  const q = h.quantiles(ps.map((p) => p / 100));
  const at = (p: number) => q[ps.indexOf(p)];
  return { median: at(50), p90: at(90), p99: at(99), avg: h.mean, min: h.count ? h.min : null, max: h.count ? h.max : null, extra: extra.map((p) => ({ p, value: at(p) })) };
};

/** p50, p99 and each of `extra` (linear interpolation, as the summary) of a sample; a typed array sorts numerically and several times faster than an Array. */
function p50p99(v: number[], extra: readonly number[] = []): [number | null, number | null, (number | null)[]] {
  if (!v.length) return [null, null, extra.map(() => null)];
  const a = Float64Array.from(v).sort();
  return [percentile(a, 50), percentile(a, 99), extra.map((p) => percentile(a, p))];
}

interface Sample {
  at: number;
  ttft: number | null;
  tpot: number | null;
  itl: number[];
  lag: number;
  kind: string | null;
}

/**
 * Counts every measured record (warmup and cancelled requests are left out, as in the summary's statistics); the
 * clock `now` is the run clock, the same one the records and snapshots use.
 */
export class DashboardStats {
  private total: Row;
  private classes = new Map<string, Row>();
  private failures = new Map<string, FailureRow>();
  private otherFailures = 0;
  private window: Sample[] = [];
  stage: number | null = null;
  private sinceTrim = 0;
  readonly telemetry: LiveTelemetry = { running: null, waiting: null, kvUsagePct: null, gpuUtilPct: null };

  /** `extra`: the run's --percentiles beyond p50/p90/p99 (liveExtraPercentiles), a column each in the statistics table. */
  constructor(
    private readonly now: () => number,
    readonly extra: readonly number[] = [],
  ) {
    this.total = new Row(extra);
  }

  record(r: RequestRecord): void {
    if (r.warmup || r.status === 'cancelled') return;
    const at = this.now();
    this.total.add(r, at);
    if (r.class !== undefined) {
      let row = this.classes.get(r.class);
      if (!row) this.classes.set(r.class, (row = new Row(this.extra)));
      row.add(r, at);
    }
    const ok = r.status === 'ok';
    this.window.push({ at, ttft: ok ? r.ttft_ms : null, tpot: ok ? r.tpot_ms : null, itl: ok ? r.itl_ms : [], lag: r.schedule_lag_ms, kind: ok ? null : r.status });
    if (!ok) this.failure(r, at);
    // With no page connected nothing reads the windows: trim them here too, so memory does not grow with the run.
    if (++this.sinceTrim >= 1024) {
      this.sinceTrim = 0;
      dropBefore(this.window, at - WINDOW_MS, (x) => x.at);
      for (const row of [this.total, ...this.classes.values()]) dropBefore(row.recent, at - WINDOW_MS, (x) => x);
    }
  }

  private failure(r: RequestRecord, at: number): void {
    const message = (r.error ?? r.code ?? r.status).slice(0, MAX_MESSAGE_CHARS);
    const key = `${r.status}\u0000${r.http_status}\u0000${message}`;
    const f = this.failures.get(key);
    if (f) {
      f.count++;
      f.last_seen_s = at / 1000;
    } else if (this.failures.size < MAX_FAILURE_GROUPS) this.failures.set(key, { kind: r.status, http_status: r.http_status, message, count: 1, last_seen_s: at / 1000 });
    else this.otherFailures++;
  }

  /** The point plotted for snapshot `s`, from the window's samples. */
  point(s: SnapshotEvent, loopDelayP99: number | null): SeriesPoint {
    const t = this.now();
    dropBefore(this.window, t - WINDOW_MS, (x) => x.at);
    const ttft: number[] = [];
    const tpot: number[] = [];
    const itl: number[] = [];
    const lag: number[] = [];
    const errors: Record<string, number> = {};
    for (const w of this.window) {
      if (w.ttft !== null) ttft.push(w.ttft);
      if (w.tpot !== null) tpot.push(w.tpot);
      for (const g of w.itl) itl.push(g);
      lag.push(w.lag);
      if (w.kind) errors[w.kind] = (errors[w.kind] ?? 0) + 1;
    }
    const [ttftP50, ttftP99, ttftExtra] = p50p99(ttft, this.extra);
    const [tpotP50, tpotP99, tpotExtra] = p50p99(tpot, this.extra);
    const [itlP50, itlP99, itlExtra] = p50p99(itl, this.extra);
    return {
      t: s.elapsedS,
      rps: s.requestsPerS,
      out_tok_s: s.outputTokS,
      in_flight: s.inFlight,
      ttft_p50: ttftP50,
      ttft_p99: ttftP99,
      tpot_p50: tpotP50,
      tpot_p99: tpotP99,
      itl_p50: itlP50,
      itl_p99: itlP99,
      ttft_extra: ttftExtra,
      tpot_extra: tpotExtra,
      itl_extra: itlExtra,
      errors,
      lag_p99: p50p99(lag)[1],
      loop_delay_p99: loopDelayP99,
      done: s.done,
      ok: s.ok,
      failed: s.failed,
      stage: this.stage,
      server_running: this.telemetry.running,
      server_waiting: this.telemetry.waiting,
      kv_usage_pct: this.telemetry.kvUsagePct,
      gpu_util_pct: this.telemetry.gpuUtilPct,
    };
  }

  /** One row per class (sorted by name), then the total ("Aggregated", as Locust calls it). */
  rows(): StatsRow[] {
    const t = this.now();
    return [...[...this.classes.keys()].sort().map((k) => this.classes.get(k)!.view(k, t)), this.total.view('Aggregated', t)];
  }

  failureRows(): FailureRow[] {
    const rows = [...this.failures.values()].sort((a, b) => b.count - a.count);
    if (this.otherFailures) rows.push({ kind: 'other', http_status: null, message: `${this.otherFailures} failures with further distinct messages`, count: this.otherFailures, last_seen_s: this.now() / 1000 });
    return rows;
  }
}

/** A distribution's percentile columns, ascending: the median, p90, p99 and each extra one (ttft_p99_9_ms for p99.9). */
const percentileColumns = (extra: readonly number[]): { p: number; name: string; get: (x: Dist) => number | null }[] =>
  [
    { p: 50, name: 'median', get: (x: Dist) => x.median },
    { p: 90, name: 'p90', get: (x: Dist) => x.p90 },
    { p: 99, name: 'p99', get: (x: Dist) => x.p99 },
    ...extra.map((p, i) => ({ p, name: percentileKey(p), get: (x: Dist) => x.extra[i]?.value ?? null })),
  ].sort((a, b) => a.p - b.p);

/** A CSV cell: quoted when it holds a comma, quote or line break; a leading =+-@ is neutralised (spreadsheets run formulas). */
function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  let s = typeof v === 'number' ? String(Math.round(v * 1000) / 1000) : String(v);
  if (/^[=+\-@]/.test(s) && typeof v !== 'number') s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** The statistics table as CSV (one line per row), as the page's download offers it. */
export function statsCsv(rows: readonly StatsRow[]): string {
  const cols = percentileColumns(rows[0]?.ttft.extra.map((e) => e.p) ?? []);
  const head = (m: string) => [...cols.map((c) => `${m}_${c.name}_ms`), `${m}_avg_ms`, `${m}_min_ms`, `${m}_max_ms`];
  const d = (x: Dist) => [...cols.map((c) => c.get(x)), x.avg, x.min, x.max];
  const lines = rows.map((r) => [r.name, r.requests, r.failures, ...d(r.ttft), ...d(r.e2e), r.output_tok_s, r.current_rps].map(cell).join(','));
  return [['name', 'requests', 'failures', ...head('ttft'), ...head('e2e'), 'output_tok_s', 'current_rps'].join(','), ...lines].join('\n') + '\n';
}
