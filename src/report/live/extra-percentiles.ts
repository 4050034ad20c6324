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

export { percentile } from '../../metrics/stats.js';
