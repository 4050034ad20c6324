// The percentiles the live views (terminal view, --ui dashboard) add to their fixed p50/p90/p99 columns, from --percentiles.
import { DEFAULT_PERCENTILES } from '../../metrics/stats.js';

/** The columns every live view shows. */
export const LIVE_FIXED_PERCENTILES: readonly number[] = [50, 90, 99];

/**
 * The run's percentiles beyond LIVE_FIXED_PERCENTILES, ascending; none for the default list, so a run without
 * --percentiles keeps its three columns (the default's p95 stays in summary.json).
 */
export function liveExtraPercentiles(ps: readonly number[]): number[] {
  const isDefault = ps.length === DEFAULT_PERCENTILES.length && ps.every((p, i) => p === DEFAULT_PERCENTILES[i]);
  return isDefault ? [] : [...ps].filter((p) => !LIVE_FIXED_PERCENTILES.includes(p)).sort((a, b) => a - b);
}

/** Nearest-rank percentile p (0..100) of an ascending array: the value at rank ⌈p/100 · n⌉ (null when empty). */
export function nearestRank(sorted: ArrayLike<number>, p: number): number | null {
  const n = sorted.length;
  // The epsilon keeps an exact rank exact: 0.999 · 2000 is 1998.0000000000002 in floating point.
  return n ? sorted[Math.min(n - 1, Math.max(0, Math.ceil((p / 100) * n - 1e-9) - 1))] : null;
}
