// Which percentiles the breakdown tables (by class, endpoint, model, stage) show, from the run's --percentiles.
import { DEFAULT_PERCENTILES, percentileKey, type DistStats } from '../metrics/stats.js';
import type { MetricsBlock } from '../metrics/summary.js';

/**
 * The tail of a list: every percentile from p99 up, or the highest one when none reaches p99. A breakdown table has
 * a row per class and several metrics per row, so it shows the tail rather than all of the list (docs/output-format.md).
 */
export function tailPercentiles(ps: readonly number[] = DEFAULT_PERCENTILES): number[] {
  const high = ps.filter((p) => p >= 99);
  return high.length ? high : ps.length ? [ps[ps.length - 1]] : [99];
}

/** TTFT's percentiles in a breakdown table: the list's lowest (normally the median) and its tail. */
export function ttftPercentiles(ps: readonly number[] = DEFAULT_PERCENTILES): number[] {
  return [...new Set([ps[0] ?? 50, ...tailPercentiles(ps)])];
}

/** What a latency column reads: a metrics block, or a by_turn block (summary.json, which has these three). */
export type LatencyDists = Pick<MetricsBlock, 'ttft_ms' | 'tpot_ms' | 'e2e_ms'>;

export interface BreakdownColumn {
  head: string;
  value: (m: LatencyDists) => number | null;
}

const at = (k: 'ttft_ms' | 'tpot_ms' | 'e2e_ms', p: number) => (m: LatencyDists) => (m[k] as DistStats)[percentileKey(p)] ?? null;

/** The latency columns of a breakdown table: TTFT at ttftPercentiles, TPOT p50 (unless `tpot: false`), E2E at tailPercentiles (defaults: TTFT p50, p99, TPOT p50, E2E p99). */
export function latencyColumns(ps: readonly number[] = DEFAULT_PERCENTILES, o: { tpot?: boolean } = {}): BreakdownColumn[] {
  return [
    ...ttftPercentiles(ps).map((p) => ({ head: `TTFT p${p}`, value: at('ttft_ms', p) })),
    ...(o.tpot === false ? [] : [{ head: 'TPOT p50', value: at('tpot_ms', 50) }]),
    ...tailPercentiles(ps).map((p) => ({ head: `E2E p${p}`, value: at('e2e_ms', p) })),
  ];
}
