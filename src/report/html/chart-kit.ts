// Shared ECharts building blocks for run and sweep charts: palette, title/grid/tooltip base, value axes.

export const COLORS = ['#3b6fd8', '#e8833a', '#1f9d6b', '#9b59b6', '#d64545', '#17a2b8', '#c98a0c', '#7f8c8d'];

/** The common part of every chart's option; `extra` adds or overrides keys (e.g. a wider grid, a legend). */
export const chartBase = (title: string, extra: Record<string, unknown> = {}) => ({
  animation: false,
  color: COLORS,
  title: { text: title, left: 8, top: 4, textStyle: { fontSize: 13, fontWeight: 600, color: '#1c2330' } },
  grid: { left: 64, right: 28, top: 48, bottom: 48, containLabel: false },
  tooltip: { trigger: 'axis', confine: true },
  ...extra,
});

/** A numeric axis with its name centred along it. */
export const valueAxis = (name: string, extra: Record<string, unknown> = {}) => ({
  type: 'value',
  name,
  nameLocation: 'middle',
  nameGap: 30,
  splitLine: { lineStyle: { color: '#eef1f5' } },
  ...extra,
});

/**
 * A legend on its own row under the title (never over it) and never paged: items wrap to more rows, and the page's
 * script (FIT_LEGEND_JS) moves the plot down when they take more than the one row `GRID_TOP_WITH_LEGEND` leaves.
 */
export const LEGEND_ROW = { type: 'plain', top: 28, left: 8, right: 8 } as const;
export const GRID_TOP_WITH_LEGEND = 62;

/** A run-time axis from the run's 0: samples taken before it are dropped, the last of them moved to 0 (a step line keeps its value). */
export function fromZero<T extends readonly unknown[]>(points: readonly T[]): T[] {
  const before = points.filter((p) => (p[0] as number) < 0);
  const after = points.filter((p) => !((p[0] as number) < 0));
  const last = before[before.length - 1];
  return last && !(after.length && after[0][0] === 0) ? [[0, ...last.slice(1)] as unknown as T, ...after] : after;
}

/**
 * Browser code (plain ES5) shared by report.html and the dashboard: after a chart is drawn, measure its legend's
 * rendered box and push the plot area below it, so a legend that wrapped to several rows covers neither the title
 * nor the plot. Uses the instance's component view; does nothing where that is missing.
 */
export const FIT_LEGEND_JS = `function tfFitLegend(c) {
  try {
    var m = c.getModel().getComponent('legend');
    var grid = c.getModel().getComponent('grid');
    if (!m || !grid || m.get('show') === false) return;
    var v = c.getViewOfComponentModel(m);
    if (!v || !v.group) return;
    var r = v.group.getBoundingRect().clone();
    r.applyTransform(v.group.getLocalTransform());
    if (!r.height) return;
    var top = Math.ceil(r.y + r.height + 14);
    var cur = grid.get('top');
    if (typeof cur === 'number' && cur >= top) return;
    c.setOption({ grid: { top: top } });
  } catch (e) { /* layout help only */ }
}`;
