// Which percentiles the breakdown tables (by class, endpoint, model, stage, length band, priority) show, from the run's
// --percentiles, and the rows of the tables keyed by one label (length band, priority) in the terminal and report.html.
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
export type LatencyDists = Pick<MetricsBlock, 'ttft_ms' | 'tpot_ms' | 'e2e_ms'> & Partial<Pick<MetricsBlock, 'itl_ms'>>;

export interface BreakdownColumn {
  head: string;
  value: (m: LatencyDists) => number | null;
}

const at = (k: 'ttft_ms' | 'tpot_ms' | 'e2e_ms' | 'itl_ms', p: number) => (m: LatencyDists) => (m[k] as DistStats | undefined)?.[percentileKey(p)] ?? null;

/** The latency columns of a breakdown table: TTFT at ttftPercentiles, TPOT p50 (unless `tpot: false`), E2E at tailPercentiles (defaults: TTFT p50, p99, TPOT p50, E2E p99). */
export function latencyColumns(ps: readonly number[] = DEFAULT_PERCENTILES, o: { tpot?: boolean } = {}): BreakdownColumn[] {
  return [
    ...ttftPercentiles(ps).map((p) => ({ head: `TTFT p${p}`, value: at('ttft_ms', p) })),
    ...(o.tpot === false ? [] : [{ head: 'TPOT p50', value: at('tpot_ms', 50) }]),
    ...tailPercentiles(ps).map((p) => ({ head: `E2E p${p}`, value: at('e2e_ms', p) })),
  ];
}

/**
 * The columns of the per-priority table (summary.json by_priority): TTFT, E2E and ITL each at the list's lowest
 * percentile (normally the median) and its tail, so an urgent class's gain and the rest's cost read side by side.
 */
export function priorityColumns(ps: readonly number[] = DEFAULT_PERCENTILES): BreakdownColumn[] {
  const each = ttftPercentiles(ps);
  return (['ttft_ms', 'e2e_ms', 'itl_ms'] as const).flatMap((k) => each.map((p) => ({ head: `${k.slice(0, -3).toUpperCase()} p${p}`, value: at(k, p) })));
}

/** by_priority's entries lowest priority (most urgent) first; JSON keeps "-1" after "0", so the order is made here. */
export const priorityEntries = (b: Record<string, MetricsBlock>): [string, MetricsBlock][] => Object.entries(b).sort(([x], [y]) => Number(x) - Number(y));

/**
 * The rows of a table keyed by one label (input-length band, priority): label, ok, error rate, each column, output
 * tok/s. `num` and `pct` format for the terminal or report.html.
 */
export function labelledRows(entries: readonly [string, MetricsBlock][], cols: readonly BreakdownColumn[], num: (v: number | null) => string, pct: (v: number) => string): string[][] {
  return entries.map(([k, m]) => [k, String(m.requests.ok), pct(m.requests.error_rate), ...cols.map((col) => num(col.value(m))), num(m.output_throughput)]);
}

/** A labelled table's head and rows: `label`, ok, `errors`, each column's head, `throughput` (the terminal's and report.html's words). */
export function labelledTable(
  label: string,
  entries: readonly [string, MetricsBlock][],
  cols: readonly BreakdownColumn[],
  f: { num: (v: number | null) => string; pct: (v: number) => string; errors: string; throughput: string },
): { head: string[]; rows: string[][] } {
  return { head: [label, 'ok', f.errors, ...cols.map((col) => col.head), f.throughput], rows: labelledRows(entries, cols, f.num, f.pct) };
}
