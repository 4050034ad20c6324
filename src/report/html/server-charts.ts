// The run report's server charts, on the run's time axis: running/waiting with KV usage, per-interval server times, TTFT decomposition.
import type { ServerSample } from '../../telemetry/normalize.js';
import type { ServerSummary } from '../../metrics/server-model.js';
import { chartBase as base, fromZero, GRID_TOP_WITH_LEGEND, LEGEND_ROW, valueAxis } from './chart-kit.js';

const r3 = (x: number): number => Math.round(x * 1000) / 1000;
const AXIS = 'seconds since the first request';

/** Running and waiting requests, KV-cache usage (%) and preemptions per interval; `t0Ms` is the first request's send. */
export function serverLoadChart(samples: readonly ServerSample[], t0Ms: number): Record<string, unknown> {
  const t = (s: ServerSample) => r3((s.t_ms - t0Ms) / 1000);
  const pre = samples.slice(1).map((s, i) => [t(s), Math.max(0, (s.counters.preemptions ?? 0) - (samples[i].counters.preemptions ?? 0))]);
  return {
    ...base('Server: running and waiting requests, KV-cache usage'),
    legend: LEGEND_ROW,
    grid: { left: 64, right: 64, top: GRID_TOP_WITH_LEGEND, bottom: 48 },
    xAxis: valueAxis(AXIS, { min: 0 }),
    yAxis: [valueAxis('requests', { nameGap: 44 }), valueAxis('KV usage %', { position: 'right', nameGap: 40, max: 100, min: 0, splitLine: { show: false } })],
    series: [
      { type: 'line', name: 'running', showSymbol: false, step: 'end', data: fromZero(samples.map((s) => [t(s), s.gauges.running ?? null])) },
      { type: 'line', name: 'waiting', showSymbol: false, step: 'end', data: fromZero(samples.map((s) => [t(s), s.gauges.waiting ?? null])) },
      { type: 'line', name: 'KV usage %', yAxisIndex: 1, showSymbol: false, areaStyle: { opacity: 0.1 }, data: fromZero(samples.map((s) => [t(s), s.gauges.kv_usage === undefined ? null : r3(s.gauges.kv_usage * 100)])) },
      { type: 'bar', name: 'preemptions', itemStyle: { color: '#d64545' }, data: pre.filter((p) => p[0] >= 0) },
    ],
  };
}

/** Mean queue, prefill and decode time of the requests the server finished in each scrape interval (Δsum/Δcount), in ms. */
export function serverTimesChart(samples: readonly ServerSample[], t0Ms: number, timeScale: number): Record<string, unknown> {
  const series = (['queue', 'prefill', 'decode'] as const).map((f) => ({
    type: 'line',
    name: f,
    showSymbol: true,
    symbolSize: 4,
    data: samples.slice(1).flatMap((s, i) => {
      const a = samples[i].histograms[f];
      const b = s.histograms[f];
      if (!b || b.count <= (a?.count ?? 0)) return [];
      return [[r3((s.t_ms - t0Ms) / 1000), r3((((b.sum - (a?.sum ?? 0)) / (b.count - (a?.count ?? 0))) * 1000) / timeScale)]];
    }).filter((p) => p[0] >= 0),
  }));
  return {
    ...base('Server: queue, prefill and decode time per scrape interval (mean)'),
    legend: LEGEND_ROW,
    grid: { left: 64, right: 28, top: GRID_TOP_WITH_LEGEND, bottom: 48 },
    xAxis: valueAxis(AXIS, { min: 0 }),
    yAxis: valueAxis('ms', { nameGap: 44 }),
    series,
  };
}

/** One stacked bar: the client's TTFT mean as server queue + server prefill + the rest. */
export function ttftDecompositionChart(s: ServerSummary): Record<string, unknown> {
  const d = s.ttft_decomposition!;
  const part = (name: string, v: number | null, color: string) => ({ type: 'bar', name, stack: 'ttft', itemStyle: { color }, data: [v === null ? 0 : r3(Math.max(0, v))] });
  return {
    ...base('TTFT mean = server queue + server prefill + rest (network, API server, client)'),
    tooltip: { trigger: 'item', confine: true },
    legend: LEGEND_ROW,
    grid: { left: 64, right: 28, top: GRID_TOP_WITH_LEGEND, bottom: 40 },
    xAxis: valueAxis('ms'),
    yAxis: { type: 'category', data: ['TTFT mean'] },
    series: [part('queue', d.queue_mean_ms, '#e8833a'), part('prefill', d.prefill_mean_ms, '#3b6fd8'), part('rest', d.rest_mean_ms, '#7f8c8d')],
  };
}
