// One scrape → one normalized server sample (server_metrics.jsonl line): mapped gauges, counters, histograms, raw rest.
import { ENGINE_METRICS, ENGINE_PREFIX, PROCESS_METRICS, detectEngine, type CounterField, type Engine, type GaugeField, type HistogramField, type MappingRow } from './engines.js';
import type { PromSample, PromText } from './prom-text.js';
import { saneNumber, SERVER_NUMBER_RANGES, type ServerNumberKind } from '../util/server-number.js';

/** Cumulative histogram: `buckets` are [upper bound in seconds, cumulative count], +Inf last; empty when only a mean is published. */
export interface CumHistogram {
  sum: number;
  count: number;
  buckets: [number, number][];
}

export interface ServerSample {
  /** Run clock (ms since the run started) when the scrape's response arrived. */
  t_ms: number;
  engine: Engine | null;
  gauges: Partial<Record<GaugeField, number>>;
  counters: Partial<Record<CounterField, number>>;
  histograms: Partial<Record<HistogramField, CumHistogram>>;
  /**
   * Samples no mapping row used, `name{label="v",...}` → value (NaN and ±Inf as strings): only the detected engine's
   * own series, no histogram parts, at most MAX_RAW_SERIES, so a huge page never makes a huge line.
   */
  raw: Record<string, number | string>;
  /** Values out of their kind's range (src/util/server-number.ts), dropped: how many, and the first as `name=value`. */
  rejected?: { count: number; first: string };
}

/** Unmapped series kept per sample in `raw`. */
export const MAX_RAW_SERIES = 64;

const AVERAGED = new Set<GaugeField>(['kv_usage', 'prefix_hit_rate', 'spec_accept_length', 'spec_accept_rate']);
/** The range each gauge must be in; counters and histogram counts are `count`, histogram means `seconds`. */
const GAUGE_KIND: Record<GaugeField, ServerNumberKind> = { running: 'count', waiting: 'count', kv_usage: 'ratio', prefix_hit_rate: 'ratio', spec_accept_length: 'count', spec_accept_rate: 'ratio', process_rss_bytes: 'count' };

const matches = (s: PromSample, labels: Record<string, string> | undefined): boolean => !labels || Object.entries(labels).every(([k, v]) => s.labels[k] === v);

/** Label set without `le`, as a key: one histogram series per key. */
function seriesKey(labels: Record<string, string>): string {
  return Object.entries(labels)
    .filter(([k]) => k !== 'le')
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(',');
}

export function rawKey(s: PromSample): string {
  const l = seriesKey(s.labels) + (s.labels.le !== undefined ? `${seriesKey(s.labels) ? ',' : ''}le=${JSON.stringify(s.labels.le)}` : '');
  return l ? `${s.name}{${l}}` : s.name;
}

/** Histogram `row` summed over its series; undefined when the family is absent. */
function histogramOf(row: Extract<MappingRow, { kind: 'histogram' }>, byName: Map<string, PromSample[]>, used: Set<PromSample>): CumHistogram | undefined {
  const scale = row.toSeconds ?? 1;
  const take = (name: string): PromSample[] => (byName.get(name) ?? []).filter((s) => matches(s, row.labels) && (used.add(s), true));
  if (row.sum && row.count) {
    const sums = take(row.sum);
    const counts = take(row.count);
    if (!sums.length || !counts.length) return undefined;
    return { sum: sums.reduce((a, s) => a + s.value, 0) * scale, count: counts.reduce((a, s) => a + s.value, 0), buckets: [] };
  }
  const buckets = take(`${row.name}_bucket`);
  const sums = take(`${row.name}_sum`);
  const counts = take(`${row.name}_count`);
  if (!buckets.length && !counts.length) return undefined;
  const byLe = new Map<number, number>();
  for (const b of buckets) {
    const le = b.labels.le === '+Inf' ? Infinity : Number(b.labels.le);
    if (Number.isNaN(le)) continue;
    byLe.set(le, (byLe.get(le) ?? 0) + b.value);
  }
  return {
    sum: sums.reduce((a, s) => a + s.value, 0) * scale,
    count: counts.reduce((a, s) => a + s.value, 0),
    buckets: [...byLe.entries()].sort((a, b) => a[0] - b[0]).map(([le, n]) => [le === Infinity ? Infinity : le * scale, n]),
  };
}

/** A histogram is kept only when its counts are counts and its mean a time: sum ≥ 0 and sum/count within `seconds`. */
function saneHistogram(h: CumHistogram): boolean {
  if (!saneNumber('count', h.count) || !Number.isFinite(h.sum) || h.sum < 0) return false;
  if (h.count > 0 ? h.sum / h.count > SERVER_NUMBER_RANGES.seconds[1] : h.sum !== 0) return false;
  return h.buckets.every(([, n]) => saneNumber('count', n));
}

/** Normalize one parsed scrape; `engine` overrides detection (null: detect from the name prefixes). */
export function normalizeScrape(tMs: number, text: PromText, engine: Engine | null = null): ServerSample {
  const eng = engine ?? detectEngine(text.samples);
  const byName = new Map<string, PromSample[]>();
  for (const s of text.samples) {
    const list = byName.get(s.name);
    if (list) list.push(s);
    else byName.set(s.name, [s]);
  }
  const used = new Set<PromSample>();
  const out: ServerSample = { t_ms: Math.round(tMs * 1000) / 1000, engine: eng, gauges: {}, counters: {}, histograms: {}, raw: {} };
  const reject = (what: string, v: number): void => {
    if (out.rejected) out.rejected.count++;
    else out.rejected = { count: 1, first: `${what}=${v}` };
  };
  for (const row of [...(eng ? ENGINE_METRICS[eng] : []), ...PROCESS_METRICS]) {
    if (row.kind === 'histogram') {
      if (out.histograms[row.field]) continue;
      const hist = histogramOf(row, byName, used);
      if (hist && saneHistogram(hist)) out.histograms[row.field] = hist;
      else if (hist) reject(`${row.name} mean`, hist.count > 0 ? hist.sum / hist.count : hist.sum);
      continue;
    }
    const kind = row.kind === 'gauge' ? GAUGE_KIND[row.field] : 'count';
    const series = (byName.get(row.name) ?? []).filter((s) => matches(s, row.labels));
    for (const s of series) used.add(s);
    const found = series.filter((s) => Number.isFinite(s.value));
    for (const s of found) if (!saneNumber(kind, s.value)) reject(rawKey(s), s.value);
    // One series out of range makes the sum meaningless: the field is not reported in this scrape.
    if (!found.length || found.some((s) => !saneNumber(kind, s.value))) continue;
    const total = found.reduce((a, s) => a + s.value, 0);
    if (row.kind === 'gauge') out.gauges[row.field] ??= AVERAGED.has(row.field) ? total / found.length : total;
    else out.counters[row.field] ??= total;
  }
  const prefix = eng ? ENGINE_PREFIX[eng] : '';
  let kept = 0;
  for (const s of text.samples) {
    if (kept >= MAX_RAW_SERIES) break;
    if (used.has(s) || (prefix && !s.name.startsWith(prefix)) || s.name.endsWith('_bucket')) continue;
    out.raw[rawKey(s)] = Number.isFinite(s.value) ? s.value : String(s.value);
    kept++;
  }
  return out;
}
