// Heatmaps of a two-dimensional sweep grid (e.g. concurrency × input length): one ECharts heatmap per metric.
import type { LoadMode, SweepRow } from '../sweep-model.js';
import { chartBase } from './chart-kit.js';

type AxisKey = 'load' | 'input' | 'output' | 'pair';

export interface HeatAxis {
  key: AxisKey;
  /** Axis title with its unit. */
  name: string;
  /** Category labels in ascending order. */
  values: string[];
}

const cellOf = (k: AxisKey, r: SweepRow): string =>
  k === 'load' ? String(r.load) : k === 'input' ? String(r.input_tokens) : k === 'output' ? String(r.output_tokens) : `${r.input_tokens}×${r.output_tokens}`;

const axisName = (k: AxisKey, mode: LoadMode): string =>
  k === 'load' ? (mode === 'rate' ? 'request rate (req/s)' : 'concurrency (requests in flight)') : k === 'input' ? 'input length (tokens)' : k === 'output' ? 'output length (tokens)' : 'input × output length (tokens)';

const numeric = (a: string, b: string): number => {
  const [a1, a2] = a.split('×').map(Number);
  const [b1, b2] = b.split('×').map(Number);
  return a1 - b1 || (a2 ?? 0) - (b2 ?? 0);
};

/**
 * The two axes of a grid, or null when fewer than two of load, input length and output length take two or more
 * values. Load goes on x when it varies. With all three varying, y is the input × output pair.
 */
export function heatmapAxes(rows: readonly SweepRow[]): { x: HeatAxis; y: HeatAxis; fixed: string } | null {
  const mode = rows[0]?.mode ?? 'concurrency';
  const distinct = (k: AxisKey) => [...new Set(rows.map((r) => cellOf(k, r)))].sort(numeric);
  // Rows that leave lengths to the run flags carry 0 and 0: no length axis.
  const lengthsFixed = rows.every((r) => r.input_tokens > 0 && r.output_tokens > 0);
  const varied = (['load', 'input', 'output'] as const).filter((k) => distinct(k).length >= 2 && (k === 'load' || lengthsFixed));
  if (varied.length < 2) return null;
  const [xk, yk]: [AxisKey, AxisKey] = varied.length === 3 ? ['load', 'pair'] : [varied[0], varied[1]];
  const axis = (k: AxisKey): HeatAxis => ({ key: k, name: axisName(k, mode), values: distinct(k) });
  // What the two axes leave constant, for the titles ("output 32 tokens").
  const rest = (['load', 'input', 'output'] as const).filter((k) => !varied.includes(k));
  const fixed = rest
    .map((k) => (k === 'load' ? (mode === 'rate' ? `${rows[0].load} req/s` : `concurrency ${rows[0].load}`) : `${k} ${cellOf(k, rows[0])} tokens`))
    .join(', ');
  return { x: axis(xk), y: axis(yk), fixed };
}

export interface HeatMetric {
  key: 'output_throughput' | 'ttft_p99_ms' | 'tpot_p99_ms' | 'goodput_tok_s' | 'error_rate';
  title: string;
  /** Unit of the cell values, shown on the colour scale. */
  unit: string;
  higherIsBetter: boolean;
  /** Display scale (error rate as %). */
  scale: number;
}

export const HEAT_METRICS: readonly HeatMetric[] = [
  { key: 'output_throughput', title: 'Output throughput', unit: 'tok/s', higherIsBetter: true, scale: 1 },
  { key: 'ttft_p99_ms', title: 'TTFT p99', unit: 'ms', higherIsBetter: false, scale: 1 },
  { key: 'tpot_p99_ms', title: 'TPOT p99', unit: 'ms', higherIsBetter: false, scale: 1 },
  { key: 'goodput_tok_s', title: 'Goodput', unit: 'tok/s', higherIsBetter: true, scale: 1 },
  { key: 'error_rate', title: 'Error rate', unit: '%', higherIsBetter: false, scale: 100 },
];

const sig3 = (x: number): number => (x === 0 ? 0 : Number(x.toPrecision(3)));
const GOOD_TO_BAD = ['#1f9d6b', '#f4e27a', '#d64545'];

/** One metric over the grid: a cell per measured point ([x index, y index, value]); points that did not run are left blank. */
export function heatmapChart(rows: readonly SweepRow[], axes: { x: HeatAxis; y: HeatAxis; fixed: string }, m: HeatMetric, note = ''): Record<string, unknown> {
  const cells = new Map<string, { row: SweepRow; v: number }>();
  for (const r of rows) {
    const raw = r[m.key];
    if (r.status === 'failed' || raw === null || raw === undefined || !Number.isFinite(raw)) continue;
    const at = `${axes.x.values.indexOf(cellOf(axes.x.key, r))},${axes.y.values.indexOf(cellOf(axes.y.key, r))}`;
    // Two points in one cell (a combo listed twice): the one with more successful requests.
    const prev = cells.get(at);
    if (!prev || r.ok > prev.row.ok) cells.set(at, { row: r, v: sig3(raw * m.scale) });
  }
  const data = [...cells.entries()].map(([at, c]) => ({ value: [...at.split(',').map(Number), c.v], name: c.row.name }));
  const vs = data.map((d) => d.value[2]);
  const min = vs.length ? Math.min(...vs) : 0;
  const max = vs.length ? Math.max(...vs) : 1;
  const title = `${m.title} (${m.unit})${axes.fixed ? ` · ${axes.fixed}` : ''}${note}`;
  return {
    ...chartBase(title, { grid: { left: 96, right: 96, top: 48, bottom: 56 } }),
    tooltip: { trigger: 'item', confine: true },
    xAxis: { type: 'category', name: axes.x.name, nameLocation: 'middle', nameGap: 30, data: axes.x.values, splitArea: { show: true } },
    yAxis: { type: 'category', name: axes.y.name, nameLocation: 'middle', nameGap: 72, data: axes.y.values, splitArea: { show: true } },
    visualMap: {
      type: 'continuous',
      min,
      max: max > min ? max : min + 1,
      // Decimals of the colour scale's end labels: sub-millisecond TPOTs would otherwise all read 0.
      precision: Math.abs(max) < 1 ? 3 : Math.abs(max) < 100 ? 1 : 0,
      calculable: true,
      orient: 'vertical',
      right: 4,
      top: 'middle',
      text: [`${m.unit}`, ''],
      inRange: { color: m.higherIsBetter ? [...GOOD_TO_BAD].reverse() : GOOD_TO_BAD },
    },
    series: [{ type: 'heatmap', name: `${m.title} (${m.unit})`, data, label: { show: true, fontSize: 10, formatter: '{@[2]}' }, emphasis: { itemStyle: { borderColor: '#1c2330', borderWidth: 1 } } }],
  };
}

/** Every heatmap of a grid by element id, or an empty object when the sweep is not two-dimensional. */
export function gridHeatmaps(rows: readonly SweepRow[], hasSlo: boolean): Record<string, Record<string, unknown>> {
  const axes = heatmapAxes(rows);
  if (!axes) return {};
  const out: Record<string, Record<string, unknown>> = {};
  for (const m of HEAT_METRICS) out[`s-heat-${m.key}`] = heatmapChart(rows, axes, m, m.key === 'goodput_tok_s' && !hasSlo ? ' · no SLOs: every successful request counts' : '');
  return out;
}
