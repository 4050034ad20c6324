// HTML reporter for `compare`: the delta tables and overlaid curves (sweeps) or distributions (runs) of every directory.
import { writeFileAtomic } from '../../util/atomic-write.js';
import type { CompareResult, Loaded, MetricDelta } from '../compare.js';
import { CHART_SAMPLE_MAX, sampleRecords } from '../results-dir.js';
import { cdfChart } from './run-charts.js';
import { COLORS, GRID_TOP_WITH_LEGEND, LEGEND_ROW } from './chart-kit.js';
import { renderPage } from './page.js';
import { htmlTable, num } from './sections.js';
import { escapeHtml as esc } from './escape.js';
import { rowPairLabel } from '../sweep-model.js';

const show = (x: number | null, unit: string) => (x === null ? '–' : unit === 'ratio' ? `${(x * 100).toFixed(2)}%` : num(x));
const rel = (d: MetricDelta) => (d.relative === null ? '–' : `${d.relative > 0 ? '+' : ''}${(d.relative * 100).toFixed(1)}%`);
const mark = (d: MetricDelta) =>
  d.regressed ? '<span class="fail">regressed</span>' : d.improved ? '<span class="pass">better</span>' : `<span class="muted">${esc(d.verdict)}</span>`;
const pText = (p: number | null) => (p === null ? 'n/a' : p < 0.001 ? '&lt;0.001' : p.toFixed(3));
/** The delta's 95% interval in the row's unit (ratios in percentage points). */
const ciText = (d: MetricDelta) => {
  if (!d.ci95) return '–';
  const f = (x: number) => (d.unit === 'ratio' ? (x * 100).toFixed(2) : num(x));
  return `[${f(d.ci95[0])}, ${f(d.ci95[1])}]${d.unit === 'ratio' ? ' pp' : ''}`;
};
/** Why a row has no test, as a tooltip on its p cell. */
const pCell = (d: MetricDelta) => ({ html: d.note ? `<span title="${esc(d.note)}">${pText(d.p)}</span>` : `${pText(d.p)}${d.test ? ` <span class="muted">${esc(d.test)}</span>` : ''}` });

/** Short names for the legend: the directory's last path part, numbered when two are alike. */
function labels(dirs: readonly string[]): string[] {
  const base = dirs.map((d) => d.replace(/\/+$/, '').split('/').pop() || d);
  return base.map((b, i) => (base.indexOf(b) !== i || base.lastIndexOf(b) !== i ? `${i}: ${b}` : b));
}

function sweepCurves(all: readonly Loaded[], names: readonly string[]): Record<string, unknown> {
  const charts: Record<string, unknown> = {};
  const metrics = [
    ['cmp-tput', 'Output throughput vs load', 'output_throughput', 'tok/s'],
    ['cmp-ttft', 'TTFT p99 vs load', 'ttft_p99_ms', 'ms'],
    ['cmp-tpot', 'TPOT p99 vs load', 'tpot_p99_ms', 'ms'],
    ['cmp-e2e', 'E2E p99 vs load', 'e2e_p99_ms', 'ms'],
  ] as const;
  for (const [id, title, key, unit] of metrics) {
    const series: Record<string, unknown>[] = [];
    all.forEach((l, i) => {
      if (l.kind !== 'sweep') return;
      const groups = new Map<string, typeof l.doc.points>();
      for (const r of l.doc.points) {
        const k = rowPairLabel(r);
        groups.set(k, [...(groups.get(k) ?? []), r]);
      }
      for (const [k, rows] of groups)
        series.push({
          type: 'line',
          name: groups.size > 1 ? `${names[i]} ${k}` : names[i],
          symbolSize: 7,
          lineStyle: i === 0 ? { type: 'dashed' } : undefined,
          itemStyle: { color: COLORS[i % COLORS.length] },
          data: [...rows].sort((a, b) => a.load - b.load).map((r) => [r.load, r[key] === null ? null : Math.round((r[key] as number) * 1000) / 1000]),
        });
    });
    charts[id] = {
      animation: false,
      color: COLORS,
      title: { text: title, left: 8, top: 4, textStyle: { fontSize: 13, fontWeight: 600 } },
      legend: LEGEND_ROW,
      tooltip: { trigger: 'axis', confine: true },
      grid: { left: 68, right: 30, top: GRID_TOP_WITH_LEGEND, bottom: 50 },
      xAxis: { type: 'log', logBase: 2, name: 'load (log scale)', nameLocation: 'middle', nameGap: 30 },
      yAxis: { type: 'value', name: unit, nameLocation: 'middle', nameGap: 50, scale: true },
      series,
    };
  }
  return charts;
}

function runCurves(all: readonly Loaded[], names: readonly string[]): Record<string, unknown> {
  // A vLLM result, and runs compared with one, come as samples under vLLM's definitions (report/compat).
  // Repeated runs (run-K/ under the directory, no requests.jsonl of its own): their records pooled, an equal share each.
  const sample = (dir: string, max: number) => sampleRecords(dir, max, (r) => !r.warmup && r.status === 'ok').records;
  const recs = all.map((l) => {
    if (l.kind === 'run' && l.samples) return null;
    const dirs = l.kind === 'run' && l.repeated ? l.repeated.dirs : [l.dir];
    return dirs.flatMap((d) => sample(d, Math.ceil(CHART_SAMPLE_MAX / dirs.length)));
  });
  const vals = (i: number, k: 'ttft_ms' | 'tpot_ms' | 'e2e_ms') => {
    const l = all[i];
    if (l.kind === 'run' && l.samples) return l.samples[k];
    return recs[i]!.map((r) => r[k]).filter((x): x is number => x !== null);
  };
  // The baseline is drawn dashed, as the page's legend says (the same convention as the sweep curves).
  const chart = (title: string, k: 'ttft_ms' | 'tpot_ms' | 'e2e_ms') => {
    const c = cdfChart(title, names.map((n, i) => ({ name: n, values: vals(i, k) })), 'ms') as { series: Record<string, unknown>[] };
    if (c.series[0]) c.series[0].lineStyle = { type: 'dashed' };
    return c;
  };
  return { 'cmp-ttft': chart('TTFT CDF', 'ttft_ms'), 'cmp-tpot': chart('TPOT CDF', 'tpot_ms'), 'cmp-e2e': chart('E2E CDF', 'e2e_ms') };
}

function warningBlock(warnings: readonly string[]): string {
  if (!warnings.length) return '';
  return `<div class="compare-warnings"><p class="fail">WARNING: these inputs differ in kind, so the deltas may not mean better or worse:</p><ul>${warnings.map((w) => `<li>${esc(w)}</li>`).join('')}</ul></div>`;
}

/** TTFT per turn index on both sides (runs with turns): information, never a regression. */
function turnTable(rows: CompareResult['comparisons'][number]['by_turn']): string {
  if (!rows) return '';
  const pctOf = (r: number | null) => (r === null ? '–' : `${r > 0 ? '+' : ''}${(r * 100).toFixed(1)}%`);
  return (
    '<h3>TTFT by turn index</h3><p class="muted">Informational: not a regression check (docs/commands/compare.md#json).</p>' +
    htmlTable(
      ['turn', 'requests (base/cand)', 'TTFT p50 baseline', 'candidate', 'delta %', 'TTFT p99 baseline', 'candidate', 'delta %'],
      rows.map((t) => [t.turn, `${t.baseline_requests}/${t.candidate_requests}`, num(t.ttft_p50.baseline), num(t.ttft_p50.candidate), pctOf(t.ttft_p50.relative), num(t.ttft_p99.baseline), num(t.ttft_p99.candidate), pctOf(t.ttft_p99.relative)]),
    )
  );
}

/** Both sides' tags and server identity (compare-identity.ts); server text is escaped, differing rows marked. */
function identityTable(rows: CompareResult['comparisons'][number]['identity'] | undefined): string {
  if (!rows?.length) return '';
  const cell = (v: string | null) => ({ text: v ?? '—' });
  const diff = rows.filter((r) => r.differs).map((r) => r.field);
  return (
    `<h4>Identity</h4>` +
    htmlTable(['field', 'baseline', 'candidate', ''], rows.map((r) => [r.field, cell(r.baseline), cell(r.candidate), { html: r.differs ? '<span class="fail">differs</span>' : '' }])) +
    (diff.length ? `<p class="fail">The two sides differ in ${esc(diff.join(', '))}: the deltas measure those changes too.</p>` : '')
  );
}

export function renderCompareReport(res: CompareResult, all: readonly Loaded[]): string {
  const names = labels(all.map((l) => l.dir));
  const isSweep = all[0]?.kind === 'sweep';
  const charts = isSweep ? sweepCurves(all, names) : runCurves(all, names);
  const tables = res.comparisons
    .map((c) => {
      const judged = res.fail_on_mode === 'strict' ? '' : ` and significant at alpha ${esc(res.alpha)}`;
      const head = `<h3>${esc(c.candidate)} vs ${esc(c.baseline)}</h3><p>${c.regressions.length ? `<span class="fail">${c.regressions.length} regression(s)</span>` : '<span class="pass">no regressions</span>'} beyond ${esc(res.threshold_pct)}%${judged}.</p>`;
      const rows = c.points.flatMap((p) =>
        p.deltas.map((d) => [...(isSweep ? [p.point] : []), `${d.label}`, d.better, show(d.baseline, d.unit), show(d.candidate, d.unit), rel(d), ciText(d), pCell(d), { html: mark(d) }]),
      );
      const unmatched = c.unmatched.length ? `<p class="muted">Not compared: ${esc(c.unmatched.join('; '))}</p>` : '';
      return head + warningBlock(c.warnings) + identityTable(c.identity) + htmlTable([...(isSweep ? ['point'] : []), 'metric', 'better', 'baseline', 'candidate', 'delta %', 'delta 95% CI', 'p', ''], rows) + unmatched + turnTable(c.by_turn);
    })
    .join('');
  const chartDivs = Object.keys(charts).map((id) => `<div class="chart" id="${id}"></div>`).join('');
  const gate = res.gate.length
    ? htmlTable(
        ['candidate', 'point', 'metric', 'delta %', 'threshold', 'p', 'verdict'],
        res.gate.map((g) => [g.candidate, g.point, g.metric, g.relative === null ? '–' : `${g.relative > 0 ? '+' : ''}${(g.relative * 100).toFixed(1)}%`, `${g.threshold_pct}%`, { html: pText(g.p) }, { html: g.failed ? '<span class="fail">regressed</span>' : `<span class="pass">${g.verdict === 'improved' ? 'improved' : 'within noise'}</span>` }]),
      )
    : '';
  const how = res.fail_on_mode === 'strict' ? 'strict: the threshold alone' : `beyond the threshold and significant at alpha ${esc(res.alpha)}`;
  const verdict = res.fail_on.length
    ? (res.failed
        ? `<p class="fail">FAILED: --fail-on metrics regressed (${esc([...new Set(res.failures.map((f) => f.metric))].join(', '))}; ${how}).</p>`
        : `<p class="pass">Passed: no --fail-on metric regressed (${how}).</p>`) + gate
    : '';
  return renderPage({
    title: `tokenflood compare · ${all.length} ${isSweep ? 'sweeps' : 'runs'}`,
    subtitle: `baseline ${all[0]?.dir ?? ''} · threshold ${res.threshold_pct}%`,
    sections: [
      { id: 'verdict', title: 'Verdict', html: warningBlock(res.warnings) + verdict + `<p>Baseline (dashed): ${esc(names[0] ?? '')}. Candidates: ${esc(names.slice(1).join(', '))}.</p>` },
      { id: 'curves', title: isSweep ? 'Curves' : 'Distributions', html: `<div class="grid2">${chartDivs}</div>` },
      { id: 'deltas', title: 'Deltas', html: tables },
    ],
    charts,
  });
}

export function writeCompareReport(path: string, res: CompareResult, all: readonly Loaded[]): string {
  writeFileAtomic(path, renderCompareReport(res, all));
  return path;
}
