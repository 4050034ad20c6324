// compare's rows for the percentiles a run asked for beyond its fixed ones (--percentiles 99.9 → TTFT/TPOT/ITL/E2E p99.9).
import type { MetricsBlock, Summary } from '../metrics/summary-model.js';
import { percentileKey, type DistStats } from '../metrics/stats.js';
import type { SweepRow } from './sweep-model.js';

/** The latency distributions that get a row per extra percentile, by metric-key prefix. */
const DISTS = [['ttft', 'TTFT', 'ttft_ms'], ['tpot', 'TPOT', 'tpot_ms'], ['itl', 'ITL', 'itl_ms'], ['e2e', 'E2E', 'e2e_ms']] as const;

/** The distributions' metric-key prefixes (ttft_p99_9, …). */
export const EXTRA_PERCENTILE_METRICS = DISTS.map(([k]) => k);

/** Percentiles that compare's fixed rows (p50, p99, …) already cover or that every summary carries. */
const FIXED: readonly number[] = [50, 90, 95, 99];

/** A metric key such as ttft_p99_9 (accepted by --fail-on). */
export const EXTRA_PERCENTILE_KEY = /^(ttft|tpot|itl|e2e)_p\d+(_\d+)?$/;

export interface ExtraPercentileMetric {
  key: string;
  label: string;
  unit: 'ms';
  better: 'lower';
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
  return ps.flatMap((p) => DISTS.map(([k, label]) => ({ key: `${k}_${percentileKey(p)}`, label: `${label} p${p}`, unit: 'ms' as const, better: 'lower' as const })));
}

/** The values of those rows in a run's metrics block. */
export function extraValuesFromMetrics(m: MetricsBlock, ps: readonly number[]): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const p of ps) for (const [k, , field] of DISTS) out[`${k}_${percentileKey(p)}`] = (m[field] as DistStats)[percentileKey(p)] ?? null;
  return out;
}

/** The values of those rows in a sweep row (its extra_percentiles, keyed ttft_p99_9_ms). */
export function extraValuesFromRow(r: SweepRow, ps: readonly number[]): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const p of ps) for (const [k] of DISTS) out[`${k}_${percentileKey(p)}`] = r.extra_percentiles?.[`${k}_${percentileKey(p)}_ms`] ?? null;
  return out;
}
