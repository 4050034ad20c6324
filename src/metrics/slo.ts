// Service-level objectives: parse `ttft_p99=2000ms,error_rate=1%`, check a run against them and count goodput.
import { UsageError } from '../errors.js';
import type { DistStats } from './stats.js';
import { percentile } from './stats.js';
import type { MetricsBlock } from './summary.js';
import type { RequestRecord } from './record.js';
import { distOf, metricDefs, shownIn, type MetricDef } from './registry/index.js';

type SloMetric = MetricDef & { slo: NonNullable<MetricDef['slo']> };

/** The registry's metrics an SLO can name, by SLO name (`ttft`, `output_speed`), in registry order. */
function sloMetrics(): Map<string, SloMetric> {
  return new Map(metricDefs().filter((d): d is SloMetric => shownIn(d, 'slo') && d.slo !== undefined).map((d) => [d.slo.name, d]));
}
/** An SLO name's metric (parseSlo only makes objectives of known ones; a metric unregistered since then has none). */
const sloMetric = (name: string): SloMetric | undefined => sloMetrics().get(name);

const STATS = ['mean', 'p50', 'p90', 'p95', 'p99', 'max'] as const;
type Stat = (typeof STATS)[number];

export type SloObjective =
  /** A registry metric's statistic at most `limit` (ms for latencies: TTFT, TPOT, …); per request, its own value must be at most `limit`. */
  | { kind: 'latency'; name: string; metric: string; stat: Stat; limit: number }
  /** A registry metric's statistic at least `limit` (decode speed, tok/s); per request, its own value must be at least `limit`. */
  | { kind: 'speed'; name: string; metric: string; stat: Stat; limit: number }
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
  /** ms, tok/s or ratio for the built-in objectives; a registered metric's own unit. */
  unit: string;
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
  if (o.kind === 'latency') return `${o.name}=${fmtNum(o.limit)}${sloMetric(o.metric)?.unit === 'ms' ? 'ms' : ''}`;
  if (o.kind === 'error_rate') return `error_rate=${fmtNum(o.limit * 100)}%`;
  return `${o.name}=${fmtNum(o.limit)}`;
}

/** The objectives --slo knows: each registry metric's `<name>_<stat>`, error_rate, output_throughput. */
const known = (): string => [...[...sloMetrics().keys()].map((m) => `${m}_<${STATS.join('|')}>`), 'error_rate', 'output_throughput'].join(', ');

/** Whether a metric supports a statistic (mean, max, or a percentile) by its aggregations. */
const supports = (d: MetricDef, stat: Stat): boolean => d.aggregations.includes(stat === 'mean' || stat === 'max' ? stat : 'percentiles');

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
    const def = metric === undefined ? undefined : sloMetric(metric);
    if (!m || !stat || !def || !supports(def, stat)) {
      problems.push(`${flag}: unknown objective "${name}" (known: ${known()})`);
      continue;
    }
    if (def.slo.op === '>=') {
      // A floor: tokens per second for decode speed, else a number in the metric's unit.
      const limit = Number(value.endsWith(def.unit.toLowerCase()) ? value.slice(0, -def.unit.length) : value);
      if (!Number.isFinite(limit) || limit < 0) problems.push(`${flag}: ${name}: expected ${def.unit === 'tok/s' ? 'tokens per second' : `a number (${def.unit})`}, got "${value}"`);
      else objectives.push({ kind: 'speed', name, metric: def.slo.name, stat, limit });
      continue;
    }
    const limit = def.unit === 'ms' ? parseTimeMs(value) : Number(value);
    if (!Number.isFinite(limit)) problems.push(`${flag}: ${name}: expected ${def.unit === 'ms' ? 'a time such as 500ms, 2s or 1m' : `a number (${def.unit})`}, got "${value}"`);
    else objectives.push({ kind: 'latency', name, metric: def.slo.name, stat, limit });
  }
  if (!problems.length && !objectives.length) problems.push(`${flag}: no objectives given`);
  if (problems.length) throw new UsageError(problems);
  return { objectives, text: objectives.map(canonical).join(',') };
}

function statOf(d: DistStats | undefined, stat: Stat): number | null {
  return d ? d[stat] : null;
}

/** One request's own value of an SLO metric (`ttft`): its single value, or for one with several (ITL) the same statistic over them. */
export function requestLatencyMs(r: RequestRecord, metric: string, stat: Stat): number | null {
  const v = sloMetric(metric)?.of(r) ?? null;
  if (v === null || typeof v === 'number') return v;
  if (v.length === 0) return null;
  const sorted = [...v].sort((a, b) => a - b);
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
      const v = requestLatencyMs(r, o.metric, o.stat);
      if (v !== null && v < o.limit) return false;
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
    if (o.kind === 'latency' || o.kind === 'speed') {
      const def = sloMetric(o.metric);
      const actual = def ? statOf(distOf(summary, def), o.stat) : null;
      const why = def?.slo.why ?? `no successful request has a ${o.metric} value`;
      const unit = def?.unit ?? '';
      if (o.kind === 'latency') checks.push(check({ name: o.name, op: '<=', limit: o.limit, actual, unit }, (x) => x <= o.limit, anyOk, why));
      else checks.push(check({ name: o.name, op: '>=', limit: o.limit, actual, unit }, (x) => x >= o.limit, anyOk, why));
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

export function describeSloChecks(res: SloResult): string[] {
  const show = (x: number | null, unit: SloCheck['unit']) =>
    x === null ? 'n/a' : unit === 'ratio' ? `${(x * 100).toFixed(2)}%` : `${x >= 100 ? x.toFixed(0) : x.toFixed(2)} ${unit}`;
  const verdict = (c: SloCheck) => (c.status === 'n/a' ? `not judged: ${c.reason}` : c.passed ? 'ok' : 'FAILED');
  return res.checks.map((c) => `${c.name} ${show(c.actual, c.unit)} ${c.op} ${show(c.limit, c.unit)}  ${verdict(c)}`);
}
