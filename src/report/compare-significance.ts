// compare's test of each row: per-request tests between two single runs, Welch's t-test between repeated runs (docs/metrics.md#tests-in-compare).
import { bootstrapDiffs, mannWhitney, sampleMean, sampleVariance, tCdf, tQuantile, welchTest, type BootStat, type Interval, type TestResult } from '../metrics/inference/index.js';
import { metricDefs, shownIn, type MetricDef } from '../metrics/registry/index.js';
import type { RunSamples } from './compare-samples.js';

/** How a row's p-value was found (null: no test applies, `note` says why). */
export type CompareTest = 'mann-whitney' | 'bootstrap' | 'welch' | 'one-run-t';

export interface Significance {
  test: CompareTest | null;
  /** 95% interval of the difference candidate − baseline (same unit as the row). */
  ci95: Interval | null;
  /** Two-sided p-value of "no difference". */
  p: number | null;
  /** Why there is no test, when there is none. */
  note?: string;
}

export const untested = (note: string): Significance => ({ test: null, ci95: null, p: null, note });

/** What a row measures: the summary distribution it reads and the statistic (`mean` or a percentile 0–100). */
type RowStat = { def: MetricDef; stat: 'mean' | number };

/** `ttft_p99_9` → (ttft_ms, 99.9); `tpot_mean` → (tpot_ms, mean); undefined for rows without a distribution (rates, error_rate). */
export function rowStat(key: string): RowStat | undefined {
  // The longest compare key first, so a prefix such as `ttft` never claims another metric's row.
  const defs = metricDefs().filter((d) => shownIn(d, 'compare') && d.compare).sort((a, b) => b.compare!.key.length - a.compare!.key.length);
  for (const def of defs) {
    const pre = `${def.compare!.key}_`;
    if (!key.startsWith(pre)) continue;
    const rest = key.slice(pre.length);
    if (rest === 'mean') return { def, stat: 'mean' };
    const m = /^p(\d+)(?:_(\d+))?$/.exec(rest);
    if (m) return { def, stat: Number(m[2] ? `${m[1]}.${m[2]}` : m[1]) };
  }
  return undefined;
}

/** The statistics bootstrapped together for a metric (its rows share the resamples); a row asking another adds it. */
const BOOT_STATS: readonly BootStat[] = ['mean', 50, 90, 95, 99];

/** Bootstraps already drawn, per pair of runs and metric, so a metric's rows (p50, p99, p99.9 …) resample once. */
const boots = new WeakMap<Float64Array, WeakMap<Float64Array, Map<BootStat, TestResult | null>>>();

function bootstrapOf(xa: Float64Array, xb: Float64Array, stat: BootStat): TestResult | null {
  let byB = boots.get(xa);
  if (!byB) boots.set(xa, (byB = new WeakMap()));
  let done = byB.get(xb);
  if (!done?.has(stat)) {
    const stats = done ? [stat] : [...new Set([...BOOT_STATS, stat])];
    const res = bootstrapDiffs(xa, xb, stats);
    done ??= new Map();
    stats.forEach((s, i) => done!.set(s, res[i]));
    byB.set(xb, done);
  }
  return done.get(stat)!;
}

const RATE_ROWS = new Set(['output_throughput', 'request_throughput', 'total_token_throughput']);

/**
 * Two single runs, from their per-request values. p50 and mean: Mann–Whitney's p (a shift of one distribution against
 * the other); other percentiles: the bootstrap's p. The interval is always the seeded percentile bootstrap of the
 * difference in that statistic. error_rate: Mann–Whitney on the 0/1 failure indicators (the two-proportion test).
 * Rates have no per-request sample: untested.
 */
export function perRequestTest(key: string, a: RunSamples, b: RunSamples): Significance {
  if (RATE_ROWS.has(key)) return untested('a rate has no per-request sample (repeat the runs: run --runs N)');
  if (key === 'error_rate') {
    if (a.errors.length < 2 || b.errors.length < 2) return untested('fewer than 2 requests on a side');
    const mw = mannWhitney(a.errors, b.errors)!;
    return { test: 'mann-whitney', ci95: bootstrapOf(a.errors, b.errors, 'mean')!.ci, p: mw.p };
  }
  const rs = rowStat(key);
  if (!rs) return untested('no per-request sample for this row');
  const xa = a.values.get(rs.def.id);
  const xb = b.values.get(rs.def.id);
  if (!xa || !xb || xa.length < 2 || xb.length < 2) return untested('fewer than 2 values on a side');
  const boot = bootstrapOf(xa, xb, rs.stat)!;
  if (rs.stat === 'mean' || rs.stat === 50) return { test: 'mann-whitney', ci95: boot.ci, p: mannWhitney(xa, xb)!.p };
  return { test: 'bootstrap', ci95: boot.ci, p: boot.p };
}

/**
 * Repeated runs on both sides: Welch's t-test of the run-level values (each run's figure is one observation).
 * One side a single run: the one-run t-test, t = (x̄ − x₁) / (s·√(1 + 1/n)), df = n − 1, whose s is the repeated side's
 * run-to-run deviation (the single run is assumed to vary as much). Null values (a run without the metric) are left out.
 */
export function runLevelTest(a: readonly (number | null)[], b: readonly (number | null)[]): Significance {
  const xa = a.filter((x): x is number => x !== null);
  const xb = b.filter((x): x is number => x !== null);
  if (xa.length >= 2 && xb.length >= 2) {
    const w = welchTest(xa, xb)!;
    return { test: 'welch', ci95: w.ci, p: w.p };
  }
  if (xa.length === 1 && xb.length >= 2) return oneRunT(xa[0], xb, 1);
  if (xb.length === 1 && xa.length >= 2) return oneRunT(xb[0], xa, -1);
  return untested('fewer than 2 runs on either side');
}

/** The one-run t-test above; `sign` 1: the single run is the baseline (diff = mean of runs − x), −1: the candidate. */
function oneRunT(x: number, runs: readonly number[], sign: 1 | -1): Significance {
  const n = runs.length;
  const m = sampleMean(runs);
  const diff = sign * (m - x);
  const se = Math.sqrt(sampleVariance(runs, m)) * Math.sqrt(1 + 1 / n);
  if (se === 0) return { test: 'one-run-t', ci95: [diff, diff], p: diff === 0 ? 1 : 0 };
  const half = tQuantile(0.975, n - 1) * se;
  return { test: 'one-run-t', ci95: [diff - half, diff + half], p: Math.min(1, 2 * tCdf(-Math.abs(diff / se), n - 1)) };
}
