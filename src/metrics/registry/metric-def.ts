// What a per-request metric is: its id, unit, formula over the request record, the statistics it supports and where it is shown.
import type { RequestRecord } from '../record.js';

/** The statistics a distribution can give (summary.json always carries count, mean, stdev, min, max and the percentiles). */
export type Aggregation = 'mean' | 'stdev' | 'min' | 'max' | 'percentiles';

/** Every statistic, for metrics that support them all. */
export const ALL_AGGREGATIONS: readonly Aggregation[] = ['mean', 'stdev', 'min', 'max', 'percentiles'];

/** Where a metric appears. summary: summary.json (every metric is there); the others are the views that read the registry. */
export type Place = 'summary' | 'terminal' | 'report' | 'compare' | 'sweep' | 'slo' | 'stats_csv' | 'prometheus';

/** A statistic compare can put in a row (`ttft_p50`). */
export type CompareStat = 'mean' | 'p50' | 'p90' | 'p95' | 'p99';

export interface MetricDef {
  /** The summary.json key, snake_case with its unit (`ttft_ms`): the metrics block holds its distribution under it. */
  id: string;
  /** The row label in the terminal and HTML tables (`TTFT (ms)`). */
  label: string;
  /** `ms`, `tokens`, `tok/s`, … (also what compare and SLO checks print). */
  unit: string;
  /** One request's value, null when it has none; several for metrics with one value per event (ITL: one per gap). */
  of(r: RequestRecord): number | null | readonly number[];
  /** Which measured records feed it: the ok ones (default) or all of them (schedule lag, which failed sends have too). */
  over?: 'ok' | 'all';
  /** exact (default): every value kept; histogram: exact up to ITL_EXACT_LIMIT values, then an HDR histogram (docs/metrics.md#itl-precision). */
  store?: 'exact' | 'histogram';
  aggregations: readonly Aggregation[];
  shown: readonly Place[];
  /** compare rows, `<key>_<stat>` (`ttft_p99`); `extraPercentiles`: a row per --percentiles value beyond p50/p90/p95/p99 too. */
  compare?: { key: string; label: string; unit: string; better: 'higher' | 'lower'; stats: readonly CompareStat[]; extraPercentiles?: boolean; sweepSuffix: string };
  /** stats.csv percentile columns `<name>_<pNN><suffix>` (`ttft_p99_ms`), at p50/p90/p95/p99 and each --percentiles value. */
  statsCsv?: { name: string; suffix: string };
  /** SLO objectives `<name>_<stat>`: a limit (`<=`, a time for ms metrics) or a floor (`>=`); `why`: why a run can lack it. */
  slo?: { name: string; op: '<=' | '>='; why?: string };
  /** A live Prometheus histogram of the value / `divisor` (ms → s: 1000). */
  prometheus?: { name: string; help: string; buckets: readonly number[]; divisor: number };
  /** sweep rows: `<name>_<pNN>_<suffix>` in extra_percentiles for --percentiles beyond p50/p90/p99. */
  sweep?: { name: string; suffix: string };
}

/** Whether `def` is shown in `place`. */
export const shownIn = (def: MetricDef, place: Place): boolean => def.shown.includes(place);
