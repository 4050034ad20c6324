// ECharts options for a sweep: throughput vs load (knee, recommended point), latency vs throughput (Pareto), box plots, decomposition.
import { rowPairLabel, type GroupInsights, type SweepRow } from '../sweep-model.js';
import { chartBase, COLORS, GRID_TOP_WITH_LEGEND, LEGEND_ROW, valueAxis } from './chart-kit.js';

const r3 = (x: number | null): number | null => (x === null ? null : Math.round(x * 1000) / 1000);
const base = (title: string) =>
  chartBase(title, { grid: { left: 68, right: 36, top: GRID_TOP_WITH_LEGEND, bottom: 52 }, legend: LEGEND_ROW });
const axis = valueAxis;
export const groupLabel = (g: { lengths?: string; input_tokens: number; output_tokens: number }): string => g.lengths ?? rowPairLabel(g);
const loadAxisName = (mode: string) => (mode === 'rate' ? 'request rate (req/s, log scale)' : 'concurrency (log scale)');
const loadAxis = (mode: string) => axis(loadAxisName(mode), { type: 'log', logBase: 2 });

export interface SweepGroup {
  insights: GroupInsights;
  rows: SweepRow[];
}

/** Output throughput (and goodput) vs load; knee and peak marked as points, the recommended load as a vertical line. */
export function throughputChart(groups: readonly SweepGroup[], hasSlo: boolean): Record<string, unknown> {
  const mode = groups[0]?.insights.mode ?? 'concurrency';
  const series: Record<string, unknown>[] = [];
  groups.forEach((g, i) => {
    const label = groupLabel(g.insights);
    const color = COLORS[i % COLORS.length];
    const marks: Record<string, unknown>[] = [];
    if (g.insights.knee) marks.push({ name: 'knee', coord: [g.insights.knee.load, r3(g.insights.knee.output_throughput)], value: 'knee', itemStyle: { color: '#d64545' } });
    if (g.insights.peak && g.insights.peak.load !== g.insights.knee?.load)
      marks.push({ name: 'peak', coord: [g.insights.peak.load, r3(g.insights.peak.output_throughput)], value: 'peak', itemStyle: { color: '#7f8c8d' } });
    const rec = g.insights.recommended;
    const range = g.insights.recommended_range;
    series.push({
      type: 'line',
      name: `${label} output tok/s`,
      symbolSize: 8,
      itemStyle: { color },
      data: g.rows.map((r) => [r.load, r3(r.output_throughput)]),
      markPoint: marks.length ? { symbolSize: 46, label: { fontSize: 10 }, data: marks } : undefined,
      markLine: rec
        ? { symbol: 'none', silent: true, lineStyle: { type: 'dashed', color: '#1f9d6b', width: 2 }, label: { formatter: `recommended ${rec.load}`, position: 'insideEndTop' }, data: [{ xAxis: rec.load }] }
        : undefined,
      // The recommended range as a band (a single load has no width to shade).
      markArea: range && range.low < range.high ? { silent: true, itemStyle: { color: 'rgba(31,157,107,0.10)' }, label: { show: false }, data: [[{ xAxis: range.low }, { xAxis: range.high }]] } : undefined,
    });
    if (hasSlo) series.push({ type: 'line', name: `${label} goodput tok/s`, lineStyle: { type: 'dotted' }, itemStyle: { color }, symbol: 'circle', symbolSize: 5, data: g.rows.map((r) => [r.load, r3(r.goodput_tok_s)]) });
  });
  return { ...base('Output throughput vs load'), xAxis: loadAxis(mode), yAxis: axis('output tok/s', { nameGap: 50 }), series };
}

/** p99 E2E and p99 TTFT vs output throughput; the Pareto frontier (throughput vs p99 E2E) drawn as a line. */
export function latencyThroughputChart(groups: readonly SweepGroup[]): Record<string, unknown> {
  const series: Record<string, unknown>[] = [];
  groups.forEach((g, i) => {
    const label = groupLabel(g.insights);
    const color = COLORS[i % COLORS.length];
    const pts = (k: 'e2e_p99_ms' | 'ttft_p99_ms') => g.rows.filter((r) => r[k] !== null).map((r) => ({ value: [r3(r.output_throughput), r3(r[k])], name: String(r.load) }));
    series.push({ type: 'scatter', name: `${label} p99 E2E`, symbolSize: 10, itemStyle: { color }, label: { show: true, position: 'top', formatter: '{b}', fontSize: 10 }, data: pts('e2e_p99_ms') });
    series.push({ type: 'scatter', name: `${label} p99 TTFT`, symbol: 'diamond', symbolSize: 8, itemStyle: { color, opacity: 0.55 }, data: pts('ttft_p99_ms') });
    const front = g.rows.filter((r) => g.insights.pareto.includes(r.load)).sort((a, b) => a.output_throughput - b.output_throughput);
    series.push({ type: 'line', name: `${label} Pareto frontier`, step: false, symbol: 'none', lineStyle: { color, width: 2, type: 'dashed' }, data: front.map((r) => [r3(r.output_throughput), r3(r.e2e_p99_ms)]) });
  });
  return {
    ...base('Latency vs throughput (labels: load level)'),
    tooltip: { trigger: 'item', confine: true },
    xAxis: axis('output tok/s', { scale: true }),
    yAxis: axis('latency p99 (ms)', { nameGap: 50, scale: true }),
    series,
  };
}

export interface BoxStats {
  load: number;
  /** [p1, p25, p50, p75, p99] per metric, null when the level has no values. */
  ttft: number[] | null;
  tpot: number[] | null;
  e2e: number[] | null;
}

/** One box plot per level for one metric (whiskers at p1 and p99). */
export function boxChart(title: string, mode: string, boxes: readonly BoxStats[], key: 'ttft' | 'tpot' | 'e2e'): Record<string, unknown> {
  return {
    ...base(title),
    tooltip: { trigger: 'item', confine: true },
    legend: undefined,
    grid: { left: 68, right: 36, top: 48, bottom: 52 },
    xAxis: { type: 'category', name: mode === 'rate' ? 'req/s' : 'concurrency', nameLocation: 'middle', nameGap: 30, data: boxes.map((b) => String(b.load)) },
    yAxis: axis('ms', { nameGap: 50, scale: true }),
    series: [{ type: 'boxplot', name: title, data: boxes.map((b) => (b[key] ?? [0, 0, 0, 0, 0]).map((x) => r3(x))) }],
  };
}

/** Mean E2E per level split into mean TTFT (waiting for the first token) and mean decode time (E2E − TTFT). */
export function decompositionChart(mode: string, rows: readonly SweepRow[]): Record<string, unknown> {
  return {
    ...base('Latency decomposition per level (means)'),
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' }, confine: true },
    xAxis: { type: 'category', name: mode === 'rate' ? 'req/s' : 'concurrency', nameLocation: 'middle', nameGap: 30, data: rows.map((r) => String(r.load)) },
    yAxis: axis('ms', { nameGap: 50 }),
    series: [
      // With the server's /metrics, TTFT splits into the server's queue and prefill and the rest (network, API server, client).
      ...(rows.some((r) => r.server_queue_mean_ms != null)
        ? [
            { type: 'bar', name: 'server queue', stack: 'd', itemStyle: { color: '#d64545' }, data: rows.map((r) => r3(r.server_queue_mean_ms ?? null)) },
            { type: 'bar', name: 'server prefill', stack: 'd', itemStyle: { color: '#e8a33a' }, data: rows.map((r) => r3(r.server_prefill_mean_ms ?? null)) },
            {
              type: 'bar', name: 'rest of TTFT (network, API server, client)', stack: 'd', itemStyle: { color: '#9aa5b1' },
              data: rows.map((r) => (r.ttft_mean_ms !== null ? r3(Math.max(0, r.ttft_mean_ms - (r.server_queue_mean_ms ?? 0) - (r.server_prefill_mean_ms ?? 0))) : null)),
            },
          ]
        : [{ type: 'bar', name: 'TTFT (prefill + queueing)', stack: 'd', itemStyle: { color: '#e8a33a' }, data: rows.map((r) => r3(r.ttft_mean_ms)) }]),
      { type: 'bar', name: 'decode (E2E − TTFT)', stack: 'd', itemStyle: { color: '#3b6fd8' }, data: rows.map((r) => (r.e2e_mean_ms !== null && r.ttft_mean_ms !== null ? r3(r.e2e_mean_ms - r.ttft_mean_ms) : null)) },
    ],
  };
}

/** p50 and p99 TTFT, TPOT and E2E vs load. */
export function latencyVsLoadChart(groups: readonly SweepGroup[]): Record<string, unknown> {
  const mode = groups[0]?.insights.mode ?? 'concurrency';
  const series: Record<string, unknown>[] = [];
  for (const g of groups) {
    const label = groupLabel(g.insights);
    for (const [name, k] of [['TTFT p99', 'ttft_p99_ms'], ['TTFT p50', 'ttft_p50_ms'], ['E2E p99', 'e2e_p99_ms']] as const)
      series.push({ type: 'line', name: `${label} ${name}`, symbolSize: 6, lineStyle: name.endsWith('p50') ? { type: 'dashed' } : undefined, data: g.rows.map((r) => [r.load, r3(r[k])]) });
  }
  return { ...base('Latency vs load'), xAxis: loadAxis(mode), yAxis: axis('ms', { type: 'log', nameGap: 50 }), series };
}
