// Distribution statistics over exact samples: mean, stdev, min, max and percentiles.

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
}

/**
 * Percentile by linear interpolation between closest ranks (numpy's default "linear" method, as used by
 * vLLM's benchmark_serving): rank = p/100 · (n − 1). `sorted` must be ascending.
 */
export function percentile(sorted: readonly number[], p: number): number | null {
  const n = sorted.length;
  if (n === 0) return null;
  const rank = (p / 100) * (n - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo);
}

/** Population standard deviation (numpy's default, ddof = 0). */
export function distStats(values: ArrayLike<number>): DistStats {
  const n = values.length;
  if (n === 0) return { count: 0, mean: null, stdev: null, min: null, max: null, p50: null, p90: null, p95: null, p99: null };
  const sorted = Float64Array.from(values).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  const mean = sum / n;
  let ss = 0;
  for (const v of sorted) ss += (v - mean) * (v - mean);
  const arr = sorted as unknown as number[];
  return {
    count: n,
    mean,
    stdev: Math.sqrt(ss / n),
    min: sorted[0],
    max: sorted[n - 1],
    p50: percentile(arr, 50),
    p90: percentile(arr, 90),
    p95: percentile(arr, 95),
    p99: percentile(arr, 99),
  };
}
