// Distribution statistics over exact samples: mean, stdev, min, max and percentiles (p50/p90/p95/p99 always, more on request).

declare const percentilesBrand: unique symbol;

/**
 * A parsed percentile list: ascending, without repeats, each a number in (0, 100). Only parsePercentiles (from the
 * flag, a config file or run.json) and DEFAULT_PERCENTILES make one, so code that takes it never checks it again.
 */
export type Percentiles = readonly number[] & { readonly [percentilesBrand]: true };

/** The percentiles every distribution carries (`--percentiles` adds to them, never removes them). */
export const DEFAULT_PERCENTILES = [50, 90, 95, 99] as readonly number[] as Percentiles;

export interface DistStats {
  count: number;
  mean: number | null;
  stdev: number | null;
  min: number | null;
  max: number | null;
  p50: number | null;
  p90: number | null;
  p95: number | null;
  p99: number | null;
  /**
   * 95% confidence intervals, keyed like the figures they belong to (mean, p50, p90, …, p99_9): [low, high], or null
   * when the sample is too small for one (docs/metrics.md#confidence-intervals). Absent in summaries written before it.
   */
  ci95?: Record<string, [number, number] | null>;
  /** Extra percentiles asked for with --percentiles, keyed by percentileKey (p99.9 → p99_9). */
  [extra: `p${number}_${number}` | `p${number}`]: number | null;
}

/** The key of a percentile in a DistStats: `p` + the number with `.` → `_` (99 → p99, 99.9 → p99_9). */
export const percentileKey = (p: number): `p${number}` => `p${String(p).replace('.', '_')}` as `p${number}`;

/** The percentiles a distribution carries: the four defaults and `asked`, ascending, without repeats. */
export function carriedPercentiles(asked: readonly number[] = DEFAULT_PERCENTILES): number[] {
  return [...new Set([...DEFAULT_PERCENTILES, ...asked])].sort((a, b) => a - b);
}

/**
 * Parse a percentile list such as "50,90,95,99,99.9": each a plain decimal number strictly between 0 and 100.
 * Returns the sorted list without repeats, or the problems (each naming `flag` when one is given).
 */
export function parsePercentiles(v: unknown, flag = '--percentiles'): { percentiles: Percentiles } | { problems: string[] } {
  const items = Array.isArray(v) ? v.map(String) : String(v).split(',');
  const problems: string[] = [];
  const out: number[] = [];
  const at = flag ? `${flag}: ` : '';
  for (const raw of items.map((s) => s.trim())) {
    const p = Number(raw);
    if (!/^\d+(\.\d+)?$/.test(raw) || !(p > 0 && p < 100)) problems.push(`${at}"${raw}" is not a percentile: expected a number between 0 and 100 (exclusive), e.g. 50,90,99,99.9`);
    else out.push(p);
  }
  if (!items.length || (items.length === 1 && items[0].trim() === '')) return { problems: [`${at}expected a list of percentiles, e.g. 50,90,99,99.9`] };
  return problems.length ? { problems } : { percentiles: [...new Set(out)].sort((a, b) => a - b) as readonly number[] as Percentiles };
}

/**
 * Percentile by linear interpolation between closest ranks (numpy's default "linear" method, as used by
 * vLLM's benchmark_serving): rank = p/100 · (n − 1). `sorted` must be ascending. The one percentile of the project:
 * summaries, compare, sweeps and the live windows (live line, terminal view, --ui) all use it.
 */
export function percentile(sorted: ArrayLike<number>, p: number): number | null {
  const n = sorted.length;
  if (n === 0) return null;
  const rank = (p / 100) * (n - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo);
}

/** The percentile keys of a distribution, each from `at(p)` (null for an empty distribution). */
export function percentileFields(at: (p: number) => number | null, asked?: readonly number[]): Pick<DistStats, 'p50' | 'p90' | 'p95' | 'p99'> & Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const p of carriedPercentiles(asked)) out[percentileKey(p)] = at(p);
  return out as Pick<DistStats, 'p50' | 'p90' | 'p95' | 'p99'> & Record<string, number | null>;
}

/** Population standard deviation (numpy's default, ddof = 0); percentiles exact (see percentile) for each of `asked` and the defaults. */
export function distStats(values: ArrayLike<number>, asked?: readonly number[]): DistStats {
  return sortedDistStats(Float64Array.from(values).sort(), asked);
}

/** distStats of values already in ascending order (no copy, no sort). */
export function sortedDistStats(sorted: Float64Array, asked?: readonly number[]): DistStats {
  const n = sorted.length;
  if (n === 0) return { count: 0, mean: null, stdev: null, min: null, max: null, ...percentileFields(() => null, asked) };
  let sum = 0;
  for (const v of sorted) sum += v;
  const mean = sum / n;
  let ss = 0;
  for (const v of sorted) ss += (v - mean) * (v - mean);
  return { count: n, mean, stdev: Math.sqrt(ss / n), min: sorted[0], max: sorted[n - 1], ...percentileFields((p) => percentile(sorted, p), asked) };
}
