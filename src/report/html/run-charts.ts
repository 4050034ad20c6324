// ECharts options (plain JSON, no functions) for one run: distributions, timeline, load over time, stalls and errors.
import type { RequestRecord } from '../../metrics/record.js';
import type { MetricsBlock } from '../../metrics/summary.js';
import { chartBase, COLORS, GRID_TOP_WITH_LEGEND, LEGEND_ROW, valueAxis } from './chart-kit.js';
import { cdf, histogram, itlStalls, overTime, timeline, type SortedValues, type Stalls } from './run-data.js';

const r3 = (x: number): number => Math.round(x * 1000) / 1000;
/** Untrusted text placed in chart labels (ECharts tooltips are HTML): markup characters replaced, length capped. */
export const chartText = (s: string): string => s.replace(/[<>&"'`\u2028\u2029]/g, '_').slice(0, 60);
/** A short axis label: 3 significant digits. */
const label = (x: number): string => (Math.abs(x) >= 100 ? String(Math.round(x)) : String(Number(x.toPrecision(3))));
const base = (title: string) => chartBase(title);

/** Histogram as a bar chart of bin lower edges (ms). */
export function histogramChart(title: string, values: readonly number[], unit: string): Record<string, unknown> {
  const h = histogram(values);
  return {
    ...base(title),
    xAxis: { type: 'category', name: unit, nameLocation: 'middle', nameGap: 30, data: (h?.edges ?? []).map((e) => label(e)) },
    yAxis: valueAxis('requests', { nameGap: 40 }),
    series: [{ type: 'bar', name: 'requests', data: h?.counts ?? [], barCategoryGap: '8%' }],
  };
}

/** CDFs of several metrics on one chart. */
export function cdfChart(title: string, series: { name: string; values: readonly number[] | SortedValues }[], unit: string): Record<string, unknown> {
  return {
    ...base(title),
    legend: LEGEND_ROW,
    grid: { left: 64, right: 28, top: GRID_TOP_WITH_LEGEND, bottom: 48 },
    tooltip: { trigger: 'item', confine: true },
    xAxis: valueAxis(unit, { scale: true }),
    yAxis: valueAxis('% of requests ≤', { min: 0, max: 100, nameGap: 40 }),
    series: series.map((s) => ({ type: 'line', name: s.name, showSymbol: false, step: 'end', data: cdf(s.values).map(([v, p]) => [r3(v), r3(p)]) })),
  };
}

/** Each request a horizontal bar: invisible offset to its send time, waiting for the first token, then decoding (or failed). */
export function timelineChart(records: readonly RequestRecord[]): { option: Record<string, unknown>; note: string } {
  const tl = timeline(records);
  const classes = [...new Set(tl.bars.map((b) => b.class).filter((c): c is string => c !== null))].sort().slice(0, 6);
  const byClass = classes.length > 1;
  const decode = byClass ? classes.map((c) => ({ name: `decoding: ${chartText(c)}`, match: (b: (typeof tl.bars)[number]) => b.class === c })) : [{ name: 'decoding', match: () => true }];
  const series: Record<string, unknown>[] = [
    { type: 'bar', name: 'offset', stack: 't', itemStyle: { color: 'rgba(0,0,0,0)' }, emphasis: { disabled: true }, tooltip: { show: false }, data: tl.bars.map((b) => r3(b.start_s)) },
    { type: 'bar', name: 'waiting for first token', stack: 't', itemStyle: { color: '#e8a33a' }, data: tl.bars.map((b) => r3(b.wait_s)) },
    ...decode.map((d, i) => ({
      type: 'bar',
      name: d.name,
      stack: 't',
      itemStyle: { color: COLORS[[0, 2, 3, 5, 7, 6][i % 6]] },
      data: tl.bars.map((b) => (b.status === 'ok' && (classes.length <= 1 || d.match(b)) ? r3(b.rest_s) : 0)),
    })),
    { type: 'bar', name: 'failed', stack: 't', itemStyle: { color: '#d64545' }, data: tl.bars.map((b) => (b.status !== 'ok' ? r3(b.rest_s) : 0)) },
  ];
  const option = {
    ...base('Requests over time (send → first token → end)'),
    legend: { ...LEGEND_ROW, data: series.slice(1).map((s) => s.name) },
    grid: { left: 64, right: 28, top: GRID_TOP_WITH_LEGEND, bottom: 48 },
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' }, confine: true },
    xAxis: valueAxis('seconds since the first request'),
    yAxis: { type: 'category', inverse: true, name: 'request id', data: tl.bars.map((b) => String(b.id)), axisLabel: { show: tl.bars.length <= 60 } },
    series,
  };
  const note = tl.sampled ? `Showing ${tl.bars.length} of ${tl.total} requests, evenly sampled in send order.` : `All ${tl.total} requests.`;
  return { option, note };
}

/** Output tokens/s and requests in flight over time (two y axes), with failures as bars. */
export function overTimeChart(records: readonly RequestRecord[]): Record<string, unknown> {
  const ot = overTime(records);
  const xs = ot.t_s.map(r3);
  return {
    ...base('Output tokens/s and requests in flight over time'),
    legend: LEGEND_ROW,
    grid: { left: 64, right: 64, top: GRID_TOP_WITH_LEGEND, bottom: 48 },
    xAxis: valueAxis('seconds since the first request'),
    yAxis: [valueAxis('output tok/s', { nameGap: 48 }), valueAxis('in flight / failures', { position: 'right', nameGap: 40, splitLine: { show: false } })],
    series: [
      { type: 'line', name: 'output tok/s', showSymbol: false, areaStyle: { opacity: 0.12 }, data: xs.map((t, i) => [t, r3(ot.output_tok_s[i])]) },
      { type: 'line', name: 'in flight', yAxisIndex: 1, showSymbol: false, step: 'middle', data: xs.map((t, i) => [t, r3(ot.in_flight[i])]) },
      { type: 'bar', name: 'failures', yAxisIndex: 1, itemStyle: { color: '#d64545' }, data: xs.map((t, i) => [t, ot.failures[i]]) },
    ],
  };
}

/** ITL stalls over time, with the threshold line. */
export function stallsChart(st: Stalls): Record<string, unknown> {
  return {
    ...base(`ITL stalls: gaps above ${st.threshold_ms === null ? '–' : r3(st.threshold_ms)} ms`),
    tooltip: { trigger: 'item', confine: true },
    xAxis: valueAxis('seconds since the first request'),
    yAxis: valueAxis('gap (ms)', { nameGap: 44, scale: true }),
    series: [
      {
        type: 'scatter',
        name: 'stall',
        symbolSize: 6,
        itemStyle: { color: '#d64545', opacity: 0.7 },
        data: st.points.map(([t, g, id]) => [r3(t), r3(g), id]),
        markLine: st.threshold_ms === null ? undefined : { silent: true, symbol: 'none', lineStyle: { type: 'dashed', color: '#7f8c8d' }, data: [{ yAxis: r3(st.threshold_ms), name: 'threshold' }] },
      },
    ],
  };
}

/** Failed requests by kind (and HTTP status). */
export function errorsChart(m: MetricsBlock): Record<string, unknown> {
  const errs = m.requests.errors;
  return {
    ...base('Errors by kind'),
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' }, confine: true },
    grid: { left: 160, right: 28, top: 48, bottom: 40 },
    xAxis: valueAxis('requests'),
    yAxis: { type: 'category', data: errs.map((e) => `${e.kind}${e.http_status ? ` ${e.http_status}` : ''}`) },
    series: [{ type: 'bar', name: 'requests', itemStyle: { color: '#d64545' }, data: errs.map((e) => e.count) }],
  };
}

export { itlStalls };
