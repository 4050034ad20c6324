// Repeated runs (--runs N): each headline metric across runs as n, mean, sd, CV, a t-interval and an unreliable flag (docs/metrics.md#repeated-runs).
import { meanInterval, type Interval } from '../metrics/inference/index.js';
import type { MetricsBlock } from '../metrics/summary.js';
import { compareMetrics, valuesFromMetrics, type CompareMetric, type MetricValues } from '../report/compare.js';
import { distOf, metricDefs, shownIn, type MetricDef } from '../metrics/registry/index.js';

/** Which CV limit a metric's spread is judged by. */
export type RunMetricKind = 'percentile' | 'mean' | 'throughput' | 'rate';

/**
 * CV (sd / |mean| of the per-run values) above which a metric is flagged unreliable. Means and throughputs average
 * every request of a run, so repeats of one setup should agree closely (5%); a percentile rests on few requests in
 * its tail (p99 of 100 requests is about the 2nd-largest value) and moves more between runs (10%). The error rate
 * is often 0 in every run (CV undefined): it is reported, never flagged.
 */
export const CV_LIMITS: Readonly<Record<RunMetricKind, number | null>> = { percentile: 0.1, mean: 0.05, throughput: 0.05, rate: null };

/** The interval's confidence. */
export const RUNS_CONFIDENCE = 0.95;

export interface RunMetric extends CompareMetric {
  kind: RunMetricKind;
}

type Compared = MetricDef & Required<Pick<MetricDef, 'compare'>>;
const compared = (defs: readonly MetricDef[]): Compared[] => defs.filter((d): d is Compared => shownIn(d, 'compare') && d.compare !== undefined);

/**
 * The headline metrics of a repeated run, from the metric registry: the throughputs, then each metric compare shows
 * with its mean and its compare statistics (`tpot_mean`, `tpot_p50`, `tpot_p99`), then the error rate. The keys are
 * compare's (report/compare.ts), so a compare of two repeated runs finds the same rows.
 */
export function runMetrics(defs: readonly MetricDef[] = metricDefs()): RunMetric[] {
  const fixed = compareMetrics([]);
  const registry = compared(defs).flatMap((d) =>
    (['mean', ...d.compare.stats.filter((s) => s !== 'mean')] as const).map(
      (st): RunMetric => ({ key: `${d.compare.key}_${st}`, label: `${d.compare.label} ${st}`, unit: d.compare.unit, better: d.compare.better, kind: st === 'mean' ? 'mean' : 'percentile' }),
    ),
  );
  return [
    ...fixed.filter((m) => m.key !== 'error_rate').map((m): RunMetric => ({ ...m, kind: 'throughput' })),
    ...registry,
    ...fixed.filter((m) => m.key === 'error_rate').map((m): RunMetric => ({ ...m, kind: 'rate' })),
  ];
}

/** One run's value of every headline metric (null where its summary has none). */
export function runValues(m: MetricsBlock, defs: readonly MetricDef[] = metricDefs()): MetricValues {
  const out = valuesFromMetrics(m);
  for (const d of compared(defs)) out[`${d.compare.key}_mean`] = distOf(m, d)?.mean ?? null;
  return out;
}

/** runs.json `metrics.<key>`: one metric across the runs. */
export interface RunsMetricAggregate {
  label: string;
  unit: string;
  better: 'higher' | 'lower';
  kind: RunMetricKind;
  /** Runs with a value. */
  n: number;
  mean: number | null;
  /** Sample standard deviation of the per-run values (n − 1). */
  sd: number | null;
  /** sd / |mean|; null when the mean is 0 or n < 2. */
  cv: number | null;
  /** t-interval of the mean: mean ± t(0.975, n − 1)·sd/√n; null for n < 2. */
  ci95: Interval | null;
  min: number | null;
  max: number | null;
  /** Each run's value in run order (null: that run had none). */
  values: (number | null)[];
  /** The CV limit this metric is judged by (CV_LIMITS), null when it is not judged. */
  cv_limit: number | null;
  unreliable: boolean;
  /** Why it is unreliable, or null. */
  reason: string | null;
}

/** Aggregate one metric's per-run values; `limit` from CV_LIMITS. */
export function aggregateMetric(m: RunMetric, values: readonly (number | null)[]): RunsMetricAggregate {
  const xs = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  const { mean, sd, ci } = meanInterval(xs, RUNS_CONFIDENCE);
  const cv = sd !== null && mean !== null && mean !== 0 ? sd / Math.abs(mean) : null;
  const limit = CV_LIMITS[m.kind];
  let reason: string | null = null;
  if (limit !== null) {
    if (xs.length < 2) reason = `${xs.length === 0 ? 'no run has' : 'only one run has'} a value: no spread to judge`;
    else if (cv !== null && cv > limit) reason = `CV ${(cv * 100).toFixed(1)}% exceeds ${(limit * 100).toFixed(0)}% (the limit for ${m.kind === 'percentile' ? 'percentiles' : m.kind === 'mean' ? 'means' : 'throughputs'})`;
  }
  return {
    label: m.label,
    unit: m.unit,
    better: m.better,
    kind: m.kind,
    n: xs.length,
    mean,
    sd,
    cv,
    ci95: ci,
    min: xs.length ? Math.min(...xs) : null,
    max: xs.length ? Math.max(...xs) : null,
    values: [...values],
    cv_limit: limit,
    unreliable: reason !== null,
    reason,
  };
}

/** Every headline metric across runs, keyed as compare keys them (`ttft_p99`), in display order. */
export function aggregateRuns(perRun: readonly MetricValues[], metrics: readonly RunMetric[] = runMetrics()): Record<string, RunsMetricAggregate> {
  return Object.fromEntries(metrics.map((m) => [m.key, aggregateMetric(m, perRun.map((v) => v[m.key] ?? null))]));
}
