// The run report's GPU and host charts, on the run's time axis: utilization, power and memory per GPU, client and server CPU.
import { chartBase as base, fromZero, GRID_TOP_WITH_LEGEND, LEGEND_ROW, valueAxis } from './chart-kit.js';

type Line = { t_ms: number; gpus?: Record<string, unknown>[]; host?: Record<string, unknown> };
const r3 = (x: number): number => Math.round(x * 1000) / 1000;
const AXIS = 'seconds since the first request';
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? r3(v) : null);

/** One line series per GPU for field `k` (and optionally a second axis for `k2`). */
function perGpu(lines: readonly Line[], t0Ms: number, k: string, name: (gpu: string) => string, yAxisIndex = 0): Record<string, unknown>[] {
  const ids = [...new Set(lines.flatMap((l) => (l.gpus ?? []).map((g) => String(g.gpu))))].sort();
  return ids.map((id) => ({
    type: 'line',
    name: name(id),
    yAxisIndex,
    showSymbol: false,
    data: fromZero(lines.filter((l) => l.gpus).map((l) => [r3((l.t_ms - t0Ms) / 1000), num(l.gpus!.find((g) => String(g.gpu) === id)?.[k])])),
  }));
}

/** Utilization (%) and power (W) of every GPU. */
export function gpuUtilChart(lines: readonly Line[], t0Ms: number): Record<string, unknown> {
  return {
    ...base('GPUs: utilization and power'),
    legend: LEGEND_ROW,
    grid: { left: 64, right: 64, top: GRID_TOP_WITH_LEGEND, bottom: 48 },
    xAxis: valueAxis(AXIS, { min: 0 }),
    yAxis: [valueAxis('utilization %', { nameGap: 44, min: 0, max: 100 }), valueAxis('power W', { position: 'right', nameGap: 40, splitLine: { show: false } })],
    series: [...perGpu(lines, t0Ms, 'util_pct', (g) => `GPU ${g} util %`), ...perGpu(lines, t0Ms, 'power_w', (g) => `GPU ${g} W`, 1)],
  };
}

/** Framebuffer memory used (MiB) of every GPU, and the client's (and --server-pid's) CPU %. */
export function gpuMemoryHostChart(lines: readonly Line[], t0Ms: number): Record<string, unknown> {
  const host = lines.filter((l) => l.host);
  const hostSeries = (k: string, name: string) => ({ type: 'line', name, yAxisIndex: 1, showSymbol: false, lineStyle: { type: 'dashed' }, data: fromZero(host.map((l) => [r3((l.t_ms - t0Ms) / 1000), num(l.host![k])])) });
  return {
    ...base('GPU memory used, and CPU of the client machine (and --server-pid)'),
    legend: LEGEND_ROW,
    grid: { left: 64, right: 64, top: GRID_TOP_WITH_LEGEND, bottom: 48 },
    xAxis: valueAxis(AXIS, { min: 0 }),
    yAxis: [valueAxis('MiB', { nameGap: 52 }), valueAxis('CPU %', { position: 'right', nameGap: 40, min: 0, splitLine: { show: false } })],
    series: [
      ...perGpu(lines, t0Ms, 'fb_used_mib', (g) => `GPU ${g} MiB`),
      hostSeries('cpu_pct', 'client CPU %'),
      ...(host.some((l) => l.host!.server_cpu_pct !== undefined) ? [hostSeries('server_cpu_pct', 'server CPU %')] : []),
    ],
  };
}
