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
