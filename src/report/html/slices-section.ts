// report.html "Time slices": throughput, in-flight and TTFT per slice (--slice), with the steady-state cut and the over-saturation verdict (docs/metrics.md#time-slices).
import type { Summary } from '../../metrics/summary.js';
import type { SliceBlock } from '../../metrics/summary-model.js';
import { chartBase as base, GRID_TOP_WITH_LEGEND, LEGEND_ROW, valueAxis } from './chart-kit.js';
import { num, statementsList } from './sections.js';
import { escapeHtml as esc } from './escape.js';

const AXIS = 's (run clock, slice middle)';
const mid = (x: SliceBlock) => Math.round(((x.start_s + x.end_s) / 2) * 1000) / 1000;

/** Requests and output tokens per second per slice (bars, left and right axes), with mean in flight (line, left axis). */
export function sliceThroughputChart(series: readonly SliceBlock[], trimmedS?: number): Record<string, unknown> {
  return {
    ...base('Per slice: throughput and requests in flight'),
    legend: LEGEND_ROW,
    grid: { left: 64, right: 64, top: GRID_TOP_WITH_LEGEND, bottom: 48 },
    xAxis: valueAxis(AXIS, { min: 0 }),
    yAxis: [valueAxis('req/s, in flight', { nameGap: 44 }), valueAxis('output tok/s', { position: 'right', nameGap: 40, splitLine: { show: false } })],
    series: [
      { type: 'line', name: 'req/s', step: 'middle', showSymbol: false, data: series.map((x) => [mid(x), x.request_throughput]) },
      { type: 'line', name: 'mean in flight', showSymbol: true, symbolSize: 4, data: series.map((x) => [mid(x), x.mean_in_flight]), ...(trimmedS !== undefined ? { markLine: { symbol: 'none', label: { formatter: 'steady state' }, data: [{ xAxis: trimmedS }] } } : {}) },
      { type: 'line', name: 'output tok/s', yAxisIndex: 1, step: 'middle', showSymbol: false, data: series.map((x) => [mid(x), x.output_throughput]) },
    ],
  };
}

/** TTFT p50/p99 and E2E p50 of the requests completed in each slice (ms); gaps where none completed. */
export function sliceLatencyChart(series: readonly SliceBlock[]): Record<string, unknown> {
  const line = (name: string, f: (x: SliceBlock) => number | null) => ({ type: 'line', name, showSymbol: true, symbolSize: 4, connectNulls: false, data: series.map((x) => [mid(x), f(x)]) });
  return {
    ...base('Per slice: TTFT and E2E of the requests completed in it'),
    legend: LEGEND_ROW,
    grid: { left: 64, right: 28, top: GRID_TOP_WITH_LEGEND, bottom: 48 },
    xAxis: valueAxis(AXIS, { min: 0 }),
    yAxis: valueAxis('ms', { nameGap: 44 }),
    series: [line('TTFT p50', (x) => x.ttft_ms.p50), line('TTFT p99', (x) => x.ttft_ms.p99), line('E2E p50', (x) => x.e2e_ms.p50)],
  };
}

/** The "Time slices" section, or undefined without --slice. Every text from the summary is escaped. */
export function slicesSection(s: Summary, charts: Record<string, unknown>): { id: string; title: string; html: string } | undefined {
  const sl = s.slices;
  if (!sl || sl.series.length === 0) return undefined;
  const st = s.steady_state && s.steady_state.truncated_batches > 0 ? s.steady_state : undefined;
  charts['c-slices-rate'] = sliceThroughputChart(sl.series, st?.trimmed_s);
  charts['c-slices-latency'] = sliceLatencyChart(sl.series);
  const notes: string[] = [];
  const ci = s.ci95?.request_throughput;
  if (ci) notes.push(`Request throughput ${num(s.request_throughput)} req/s, 95% interval ${num(ci[0])}–${num(ci[1])} (batch means over the full slices).`);
  if (st) notes.push(`--warmup auto (${st.rule} on ${st.series}): the ${st.trimmed_requests} requests sent before ${num(st.trimmed_s)} s are left out of the figures.`);
  if (s.saturation) notes.push(s.saturation.detail + (s.saturation.stopped ? ' The run was stopped (--stop-on-saturation).' : ''));
  return {
    id: 'slices',
    title: 'Time slices',
    html:
      `<p class="muted">Slices of ${esc(num(sl.slice_s))} s from the first measured send; a request counts in the slice it completed in; in flight is the time-weighted mean over the slice (docs/metrics.md#time-slices).</p>` +
      statementsList(notes) +
      '<div class="grid2"><div class="chart" id="c-slices-rate"></div><div class="chart" id="c-slices-latency"></div></div>',
  };
}
