// Service-level objectives: parse `ttft_p99=2000ms,error_rate=1%`, check a run against them and count goodput.
import { UsageError } from '../errors.js';
import type { DistStats } from './stats.js';
import { percentile } from './stats.js';
import type { MetricsBlock } from './summary.js';
import type { RequestRecord } from './record.js';

/** Latency metrics an SLO can bound (upper limits, in ms) and the request field holding each. */
const LATENCY_METRICS = {
  ttft: 'ttft_ms',
  ttfat: 'ttfat_ms',
  first_event: 'first_event_ms',
  tpot: 'tpot_ms',
  itl: 'itl_ms',
  e2e: 'e2e_ms',
} as const;
type LatencyMetric = keyof typeof LATENCY_METRICS;

const STATS = ['mean', 'p50', 'p90', 'p95', 'p99', 'max'] as const;
type Stat = (typeof STATS)[number];

export type SloObjective =
  /** A latency statistic at most `limit` ms; per request, the request's own value must be at most `limit`. */
  | { kind: 'latency'; name: string; metric: LatencyMetric; stat: Stat; limit: number }
  /** Per-request decode speed (tok/s) statistic at least `limit`; per request, its own speed must be at least `limit`. */
  | { kind: 'speed'; name: string; stat: Stat; limit: number }
  /** Failed / (total − cancelled) at most `limit` (a fraction). Run level only. */
  | { kind: 'error_rate'; name: 'error_rate'; limit: number }
  /** Output tokens/s of the whole run at least `limit`. Run level only. */
  | { kind: 'throughput'; name: 'output_throughput'; limit: number };

export interface Slo {
  objectives: SloObjective[];
  /** The canonical text form, e.g. "ttft_p99=2000ms,error_rate=1%". */
  text: string;
}

export interface SloCheck {
  name: string;
  /** "<=" for limits, ">=" for floors. */
  op: '<=' | '>=';
  limit: number;
  actual: number | null;
  unit: 'ms' | 'tok/s' | 'ratio';
  passed: boolean;
  /**
   * ok / failed, or n/a: no successful request has the metric (TPOT or ITL of 1-token replies), so it is not judged
   * (passed stays true, as goodput does per request). With no successful request at all, a missing value fails.
   * Absent in summaries written before it existed.
   */
  status?: 'ok' | 'failed' | 'n/a';
  /** Why an n/a check was not judged. */
  reason?: string;
}

/** What a successful request lacks when a latency statistic has no value. */
const MISSING_WHY: Partial<Record<LatencyMetric, string>> = {
  tpot: 'no successful request has a TPOT (it needs 2+ output tokens)',
  itl: 'no successful request has an ITL (it needs 2+ output tokens)',
};

/** A check from its actual value: a missing value is n/a while some request succeeded, else it fails. */
function check(c: Omit<SloCheck, 'passed' | 'status' | 'reason'>, ok: (x: number) => boolean, anyOk: boolean, why: string): SloCheck {
  if (c.actual === null) return anyOk ? { ...c, passed: true, status: 'n/a', reason: why } : { ...c, passed: false, status: 'failed' };
  const passed = ok(c.actual);
  return { ...c, passed, status: passed ? 'ok' : 'failed' };
}

export interface SloResult {
  passed: boolean;
  checks: SloCheck[];
  /** Requests that succeeded and met every per-request limit. */
  good_requests: number;
  /** good_requests / measured requests (cancelled excluded). */
  good_fraction: number;
  /** good requests / duration_s. */
  goodput_req_s: number;
  /** Σ output tokens of good requests / duration_s. */
  goodput_tok_s: number;
}

const TIME_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000 };

function parseTimeMs(v: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(v);
  return m ? Number(m[1]) * TIME_UNITS[m[2] ?? 'ms'] : NaN;
}

function parseFraction(v: string): number {
  const m = /^(\d+(?:\.\d+)?)(%)?$/.exec(v);
  if (!m) return NaN;
  return m[2] ? Number(m[1]) / 100 : Number(m[1]);
}

const fmtNum = (x: number): string => String(Math.round(x * 1e6) / 1e6);

function canonical(o: SloObjective): string {
  if (o.kind === 'latency') return `${o.name}=${fmtNum(o.limit)}ms`;
  if (o.kind === 'error_rate') return `error_rate=${fmtNum(o.limit * 100)}%`;
  return `${o.name}=${fmtNum(o.limit)}`;
}

const KNOWN = [
  ...Object.keys(LATENCY_METRICS).map((m) => `${m}_<${STATS.join('|')}>`),
  `output_speed_<${STATS.join('|')}>`,
  'error_rate',
  'output_throughput',
].join(', ');

/**
 * Parse an SLO list: comma-separated `name=value`. Latency values take ms (default), s or m;
 * error_rate takes a percentage (`1%`) or a fraction (`0.01`); output_speed_* and output_throughput are tok/s floors.
 * Throws UsageError naming every bad item.
 */
export function parseSlo(text: string, flag = '--slo'): Slo {
  const objectives: SloObjective[] = [];
  const problems: string[] = [];
  for (const part of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    const eq = part.indexOf('=');
    const name = (eq > 0 ? part.slice(0, eq) : part).trim().toLowerCase();
    const value = eq > 0 ? part.slice(eq + 1).trim().toLowerCase() : '';
    if (eq <= 0 || !value) {
      problems.push(`${flag}: expected name=value, got "${part}"`);
      continue;
    }
    if (name === 'error_rate') {
      const limit = parseFraction(value);
      if (!Number.isFinite(limit) || limit > 1) problems.push(`${flag}: error_rate: expected a percentage such as 1% or a fraction such as 0.01, got "${value}"`);
      else objectives.push({ kind: 'error_rate', name: 'error_rate', limit });
      continue;
    }
    if (name === 'output_throughput') {
      const limit = Number(value.replace(/tok\/s$/, ''));
      if (!Number.isFinite(limit) || limit < 0) problems.push(`${flag}: output_throughput: expected tokens per second, got "${value}"`);
      else objectives.push({ kind: 'throughput', name: 'output_throughput', limit });
      continue;
    }
    const m = /^([a-z0-9_]+)_(mean|p50|p90|p95|p99|max)$/.exec(name);
    const metric = m?.[1];
    const stat = m?.[2] as Stat | undefined;
    if (m && metric === 'output_speed' && stat) {
      const limit = Number(value.replace(/tok\/s$/, ''));
      if (!Number.isFinite(limit) || limit < 0) problems.push(`${flag}: ${name}: expected tokens per second, got "${value}"`);
      else objectives.push({ kind: 'speed', name, stat, limit });
      continue;
    }
    if (!m || !stat || !Object.hasOwn(LATENCY_METRICS, metric!)) {
      problems.push(`${flag}: unknown objective "${name}" (known: ${KNOWN})`);
      continue;
    }
    const limit = parseTimeMs(value);
    if (!Number.isFinite(limit)) problems.push(`${flag}: ${name}: expected a time such as 500ms, 2s or 1m, got "${value}"`);
    else objectives.push({ kind: 'latency', name, metric: metric as LatencyMetric, stat, limit });
  }
  if (!problems.length && !objectives.length) problems.push(`${flag}: no objectives given`);
  if (problems.length) throw new UsageError(problems);
  return { objectives, text: objectives.map(canonical).join(',') };
}

function statOf(d: DistStats, stat: Stat): number | null {
  return d[stat];
}

/** One request's own value of a latency metric: its single value, or for ITL the same statistic over its gaps. */
export function requestLatencyMs(r: RequestRecord, metric: LatencyMetric, stat: Stat): number | null {
  if (metric !== 'itl') return r[LATENCY_METRICS[metric]] as number | null;
  if (r.itl_ms.length === 0) return null;
  const sorted = [...r.itl_ms].sort((a, b) => a - b);
  if (stat === 'mean') return sorted.reduce((a, b) => a + b, 0) / sorted.length;
  if (stat === 'max') return sorted[sorted.length - 1];
  return percentile(sorted, Number(stat.slice(1)));
}

/** A request is good when it succeeded and met every per-request limit (metrics it lacks, e.g. TPOT of a 1-token reply, are not held against it). */
export function isGoodRequest(r: RequestRecord, slo: Slo | undefined): boolean {
  if (r.status !== 'ok') return false;
  for (const o of slo?.objectives ?? []) {
    if (o.kind === 'latency') {
      const v = requestLatencyMs(r, o.metric, o.stat);
      if (v !== null && v > o.limit) return false;
    } else if (o.kind === 'speed') {
      if (r.output_speed_tok_s !== null && r.output_speed_tok_s < o.limit) return false;
    }
  }
  return true;
}

/** Goodput's counts taken one record at a time: a run feeds it each record as it is kept, so its verdict reads no record back. */
export class GoodRequestCount {
  /** Measured requests (warmup and cancelled ones excluded). */
  measured = 0;
  good = 0;
  goodOutputTokens = 0;
  constructor(readonly slo: Slo | undefined) {}
  add(r: RequestRecord): void {
    if (r.warmup || r.status === 'cancelled') return;
    this.measured++;
    if (!isGoodRequest(r, this.slo)) return;
    this.good++;
    this.goodOutputTokens += r.output_tokens ?? 0;
  }
}

/**
 * Check a run (or one class of it) against the SLOs. Run-level checks read the summary's statistics;
 * goodput counts the measured requests that were good: goodput_req_s = good / duration_s,
 * goodput_tok_s = Σ output_tokens(good) / duration_s. Without objectives, every successful request is good.
 */
export function evaluateSlo(summary: MetricsBlock, records: Iterable<RequestRecord> | GoodRequestCount, slo: Slo | undefined): SloResult {
  const checks: SloCheck[] = [];
  const anyOk = summary.requests.ok > 0;
  for (const o of slo?.objectives ?? []) {
    if (o.kind === 'latency') {
      const actual = statOf(summary[LATENCY_METRICS[o.metric]], o.stat);
      const why = MISSING_WHY[o.metric] ?? `no successful request has a ${o.metric} value`;
      checks.push(check({ name: o.name, op: '<=', limit: o.limit, actual, unit: 'ms' }, (x) => x <= o.limit, anyOk, why));
    } else if (o.kind === 'speed') {
      const actual = statOf(summary.output_speed_tok_s, o.stat);
      checks.push(check({ name: o.name, op: '>=', limit: o.limit, actual, unit: 'tok/s' }, (x) => x >= o.limit, anyOk, 'no successful request has a decode speed (it needs 2+ output tokens)'));
    } else if (o.kind === 'error_rate') {
      const actual = summary.requests.error_rate;
      checks.push(check({ name: o.name, op: '<=', limit: o.limit, actual, unit: 'ratio' }, (x) => x <= o.limit, anyOk, ''));
    } else {
      const actual = summary.output_throughput;
      checks.push(check({ name: o.name, op: '>=', limit: o.limit, actual, unit: 'tok/s' }, (x) => x >= o.limit, anyOk, ''));
    }
  }
  // One pass over any iterable, so a report can stream the records instead of holding them; or counts taken already.
  let counts = records instanceof GoodRequestCount ? records : undefined;
  if (!counts) {
    counts = new GoodRequestCount(slo);
    for (const r of records as Iterable<RequestRecord>) counts.add(r);
  }
  const { measured, good, goodOutputTokens: goodTok } = counts;
  const d = summary.duration_s;
  return {
    passed: checks.every((c) => c.passed),
    checks,
    good_requests: good,
    good_fraction: measured ? good / measured : 0,
    goodput_req_s: d > 0 ? good / d : 0,
    goodput_tok_s: d > 0 ? goodTok / d : 0,
  };
}

/** One line per check, e.g. "ttft_p99 812 ms <= 2000 ms  ok" (or "FAILED", or "not judged: <why>" for an n/a check). */
export function describeSloChecks(res: SloResult): string[] {
  const show = (x: number | null, unit: SloCheck['unit']) =>
    x === null ? 'n/a' : unit === 'ratio' ? `${(x * 100).toFixed(2)}%` : `${x >= 100 ? x.toFixed(0) : x.toFixed(2)} ${unit}`;
  const verdict = (c: SloCheck) => (c.status === 'n/a' ? `not judged: ${c.reason}` : c.passed ? 'ok' : 'FAILED');
  return res.checks.map((c) => `${c.name} ${show(c.actual, c.unit)} ${c.op} ${show(c.limit, c.unit)}  ${verdict(c)}`);
}
