// The latency percentiles chart of report.html: each metric's percentiles as a line, its 95% intervals as a band around it.
import { percentileKey, type DistStats } from '../../metrics/stats.js';
import { chartBase, COLORS, GRID_TOP_WITH_LEGEND, LEGEND_ROW, valueAxis } from './chart-kit.js';

const r3 = (x: number): number => Math.round(x * 1000) / 1000;

/** What the chart draws of one distribution (its ci95 absent in summaries written before it: no band then). */
export interface PercentileSeries {
  name: string;
  dist: DistStats;
}

/**
 * Percentiles `ps` on a category axis, values on a linear axis that starts near the lowest value (so a narrow band shows). The band
 * is two stacked lines, the interval's low end (not drawn) and high − low (filled), under the metric's name, so its
 * legend entry hides the band with the line. Each point's name carries its interval, for the tooltip.
 */
export function percentileCiChart(title: string, series: readonly PercentileSeries[], ps: readonly number[], unit: string): Record<string, unknown> {
  const shown = series.filter((s) => s.dist.count > 0);
  const out: Record<string, unknown>[] = [];
  shown.forEach((s, i) => {
    const color = COLORS[i % COLORS.length];
    const at = (p: number) => {
      const k = percentileKey(p);
      const v = s.dist[k] ?? null;
      const ci = s.dist.ci95?.[k] ?? null;
      return { p, v, ci: v !== null ? ci : null };
    };
    const pts = ps.map(at);
    const label = ({ p, ci }: (typeof pts)[number]) => `p${p}${ci ? ` (95% CI ${r3(ci[0])}–${r3(ci[1])})` : ' (no 95% CI: too few values)'}`;
    out.push({
      type: 'line',
      name: s.name,
      itemStyle: { color },
      symbolSize: 6,
      z: 3,
      data: pts.map((x) => ({ name: label(x), value: x.v !== null ? r3(x.v) : '-' })),
    });
    const band = { type: 'line', name: s.name, stack: `ci-${i}`, symbol: 'none', silent: true, tooltip: { show: false }, lineStyle: { opacity: 0 } };
    out.push({ ...band, data: pts.map((x) => (x.ci ? r3(x.ci[0]) : '-')) });
    out.push({ ...band, areaStyle: { color, opacity: 0.25 }, data: pts.map((x) => (x.ci ? r3(x.ci[1] - x.ci[0]) : '-')) });
  });
  return {
    ...chartBase(title),
    legend: { ...LEGEND_ROW, data: shown.map((s) => s.name) },
    grid: { left: 64, right: 28, top: GRID_TOP_WITH_LEGEND, bottom: 40 },
    tooltip: { trigger: 'item', confine: true },
    xAxis: { type: 'category', data: ps.map((p) => `p${p}`), boundaryGap: false },
    yAxis: valueAxis(unit, { scale: true, nameGap: 44 }),
    series: out,
  };
}
