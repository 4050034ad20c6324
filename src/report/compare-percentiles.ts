// compare's rows for the percentiles a run asked for beyond its fixed ones (--percentiles 99.9 → TTFT/TPOT/ITL/E2E p99.9).
import type { MetricsBlock, Summary } from '../metrics/summary-model.js';
import { percentileKey } from '../metrics/stats.js';
import type { SweepRow } from './sweep-model.js';
import { BUILTIN_METRICS, metricDefs, distOf, shownIn, type MetricDef } from '../metrics/registry/index.js';

type WithRows = MetricDef & { compare: NonNullable<MetricDef['compare']> };
/** The registry's metrics that get a row per extra percentile (compare.extraPercentiles): TTFT, TPOT, ITL, E2E and any registered. */
const dists = (defs: readonly MetricDef[] = metricDefs()): WithRows[] => defs.filter((d): d is WithRows => shownIn(d, 'compare') && d.compare?.extraPercentiles === true);

/** The built-in distributions' metric-key prefixes (ttft_p99_9, …). */
export const EXTRA_PERCENTILE_METRICS = dists(BUILTIN_METRICS).map((d) => d.compare.key) as ('ttft' | 'tpot' | 'itl' | 'e2e')[];

/** The metric-key prefixes of every metric with extra-percentile rows, registered ones included. */
export const extraPercentilePrefixes = (): string[] => dists().map((d) => d.compare.key);

/** Percentiles that compare's fixed rows (p50, p99, …) already cover or that every summary carries. */
const FIXED: readonly number[] = [50, 90, 95, 99];

/** A metric key such as ttft_p99_9 (accepted by --fail-on), of the built-in distributions. */
export const EXTRA_PERCENTILE_KEY = /^(ttft|tpot|itl|e2e)_p\d+(_\d+)?$/;

/** Whether `k` is `<prefix>_p<P>` of a metric with extra-percentile rows (registered ones included). */
export const isExtraPercentileKey = (k: string): boolean => extraPercentilePrefixes().some((pre) => k.startsWith(`${pre}_`) && /^p\d+(_\d+)?$/.test(k.slice(pre.length + 1)));

export interface ExtraPercentileMetric {
  key: string;
  label: string;
  unit: string;
  better: 'higher' | 'lower';
}

/** The extra percentiles of a run's summary (its --percentiles beyond p50/p90/p95/p99), or of a sweep's rows. */
export function extraPercentilesOf(x: { metrics: MetricsBlock & Partial<Pick<Summary, 'percentiles'>> } | { rows: readonly SweepRow[] } | { percentiles: readonly number[] }): number[] {
  if ('percentiles' in x) return x.percentiles.filter((p) => !FIXED.includes(p));
  if ('metrics' in x) return (x.metrics.percentiles ?? []).filter((p) => !FIXED.includes(p));
  const keys = new Set(x.rows.flatMap((r) => Object.keys(r.extra_percentiles ?? {})));
  const ps = [...keys].map((k) => /^ttft_p([\d_]+)_ms$/.exec(k)?.[1]).filter((p): p is string => p !== undefined).map((p) => Number(p.replace('_', '.')));
  return ps.filter((p) => !FIXED.includes(p)).sort((a, b) => a - b);
}

/** One row per distribution and extra percentile: ttft_p99_9 "TTFT p99.9" (ms, lower is better). */
export function extraPercentileMetrics(ps: readonly number[]): ExtraPercentileMetric[] {
  return ps.flatMap((p) => dists().map((d) => ({ key: `${d.compare.key}_${percentileKey(p)}`, label: `${d.compare.label} p${p}`, unit: d.compare.unit, better: d.compare.better })));
}

/** The values of those rows in a run's metrics block. */
export function extraValuesFromMetrics(m: MetricsBlock, ps: readonly number[]): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const p of ps)
    for (const d of dists()) {
      const dist = distOf(m, d);
      if (dist) out[`${d.compare.key}_${percentileKey(p)}`] = dist[percentileKey(p)] ?? null;
    }
  return out;
}

/** The values of those rows in a sweep row (its extra_percentiles, keyed ttft_p99_9_ms). */
export function extraValuesFromRow(r: SweepRow, ps: readonly number[]): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const p of ps) for (const d of dists()) out[`${d.compare.key}_${percentileKey(p)}`] = r.extra_percentiles?.[`${d.compare.key}_${percentileKey(p)}_${d.compare.sweepSuffix}`] ?? null;
  return out;
}
