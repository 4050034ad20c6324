// HTML reporter for a sweep: reads sweep.json and each point's records, writes DIR/report.html.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../../errors.js';
import { CHART_SAMPLE_MAX, REQUESTS_JSONL, sampleRecords } from '../results-dir.js';
import { percentile } from '../../metrics/stats.js';
import type { RequestRecord } from '../../metrics/record.js';
import { extraPercentileKeys, extraPercentileLabel, loadWords, type SweepDoc, type SweepRow } from '../sweep-model.js';
import { sweepWarnings } from '../sweep-warnings.js';
import { renderPage } from './page.js';
import { boxChart, decompositionChart, groupLabel, latencyThroughputChart, latencyVsLoadChart, throughputChart, type BoxStats, type SweepGroup } from './sweep-charts.js';
import { htmlTable, metadataTable, num, pctText, statementsList, tiles } from './sections.js';
import { evalSection, readEvalData } from './eval-section.js';
import { gridHeatmaps } from './sweep-heatmaps.js';
import { autoSearchSection } from './auto-search-section.js';
import { escapeHtml as esc } from './escape.js';
import { ARTIFACTS, artifactPath, repeatedRunDir, writeArtifact } from '../../artifacts/registry.js';

export function readSweepDoc(dir: string): SweepDoc {
  const p = artifactPath(dir, ARTIFACTS.sweep);
  if (!existsSync(p)) throw new UsageError([`${p} not found (is ${dir} a tokenflood sweep directory?)`]);
  return JSON.parse(readFileSync(p, 'utf8')) as SweepDoc;
}

const quartiles = (xs: number[]): number[] | null => {
  if (!xs.length) return null;
  xs.sort((a, b) => a - b);
  return [1, 25, 50, 75, 99].map((q) => percentile(xs, q) as number);
};

/** Latencies of one point's measured ok records, the values a level's box is drawn from. */
export type BoxValues = Pick<RequestRecord, 'ttft_ms' | 'tpot_ms' | 'e2e_ms'>;

/** A level's box: [p1, p25, p50, p75, p99] of each latency over its measured ok records (or an even sample of them). */
export function boxOf(load: number, ok: readonly BoxValues[]): BoxStats {
  const pick = (k: keyof BoxValues) => ok.map((x) => x[k]).filter((v): v is number => v !== null);
  return { load, ttft: quartiles(pick('ttft_ms')), tpot: quartiles(pick('tpot_ms')), e2e: quartiles(pick('e2e_ms')) };
}

/**
 * Box-plot statistics per level: from `known` (a point's box, taken as its records arrived, by row dir), else from
 * the point's requests.jsonl (levels whose records are missing get empty boxes).
 */
export function boxStats(dir: string, rows: readonly SweepRow[], known?: ReadonlyMap<string, BoxStats>): BoxStats[] {
  return rows.map((r) => {
    const k = known?.get(r.dir);
    if (k) return k;
    if (!existsSync(join(dir, r.dir, REQUESTS_JSONL))) return { load: r.load, ttft: null, tpot: null, e2e: null };
    return boxOf(r.load, sampleRecords(join(dir, r.dir), CHART_SAMPLE_MAX, (x) => !x.warmup && x.status === 'ok').records);
  });
}

function groupsOf(doc: SweepDoc): SweepGroup[] {
  return doc.insights.map((g) => ({
    insights: g,
    // Points that could not run have no measurements to draw, and the open-loop --auto profile's closed-loop probes
    // no place on an axis of rates; the points table lists both.
    rows: doc.points
      .filter((r) => r.input_tokens === g.input_tokens && r.output_tokens === g.output_tokens && r.status !== 'failed' && r.mode === doc.mode)
      .sort((a, b) => a.load - b.load),
  }));
}

function pointsTable(doc: SweepDoc): string {
  const hasSlo = doc.slo !== null;
  // --percentiles beyond the fixed columns: ttft_p99_9_ms is shown as "TTFT p99.9".
  const extra = extraPercentileKeys(doc.points);
  const extraHead = extra.map(extraPercentileLabel);
  const header = ['point', 'load', 'in×out', 'ok / total', 'error rate', 'req/s', 'out tok/s', 'TTFT p50', 'TTFT p99', 'TPOT p50', 'TPOT p99', 'ITL p99', 'E2E p50', 'E2E p99', 'speed p50', 'eff.', 'goodput tok/s', ...extraHead, ...(hasSlo ? ['SLO', 'grade'] : [])];
  const rows = doc.points.map((r) => [
    r.status === 'failed' ? { html: `${esc(r.name)} <span class="fail">failed</span> <span class="muted">${esc(r.error ?? '')}</span>` } : { html: `<a href="${esc(`${r.runs !== undefined ? `${r.dir}/${repeatedRunDir(1)}` : r.dir}/report.html`)}">${esc(r.name)}</a>${r.runs !== undefined ? ` <span class="muted">mean of ${r.runs} runs</span>` : ''}${r.client_bound ? ' <span class="fail">client-bound</span>' : ''}` },
    String(r.load),
    r.lengths ?? `${r.input_tokens}×${r.output_tokens}`,
    r.status === 'failed' ? 'not run' : `${r.ok} / ${r.requests}`,
    // A point that never ran measured nothing: a dash, not a 0% error rate or 0 tok/s.
    r.status === 'failed' ? '–' : pctText(r.error_rate),
    r.status === 'failed' ? '–' : num(r.request_throughput),
    r.status === 'failed' ? '–' : num(r.output_throughput),
    num(r.ttft_p50_ms),
    num(r.ttft_p99_ms),
    num(r.tpot_p50_ms),
    num(r.tpot_p99_ms),
    num(r.itl_p99_ms),
    num(r.e2e_p50_ms),
    num(r.e2e_p99_ms),
    num(r.output_speed_p50_tok_s),
    num(r.concurrency_efficiency),
    r.status === 'failed' ? '–' : num(r.goodput_tok_s),
    ...extra.map((k) => num(r.extra_percentiles?.[k] ?? null)),
    ...(hasSlo ? [{ html: r.status === 'failed' ? '–' : r.slo_passed ? '<span class="pass">pass</span>' : `<span class="fail">fail</span> <span class="muted">${esc(r.slo_failed.join(', '))}</span>` }, r.grade ?? '–'] : []),
  ]);
  return htmlTable(header, rows, 'wide');
}

/** The banner: the simulated server, then every warning that qualifies the sweep's numbers (escaped). */
function banner(doc: SweepDoc): string | undefined {
  const lines = [
    ...(doc.simulated ? [`Predicted on the engine model (${doc.target_url}) on a virtual clock: no server was measured.`] : []),
    ...(doc.embedded_server ? ['Measured against the embedded simulated server, not a real deployment.'] : []),
    ...sweepWarnings(doc).map((w) => `WARNING: ${w}.`),
  ];
  return lines.length ? lines.map((l) => `<div class="sweep-warning">${esc(l)}</div>`).join('') : undefined;
}

/** A headline tile's note when its finding rests on client-bound points. */
const cbUnit = (points: readonly string[] | undefined): string | undefined => (points?.length ? `rests on client-bound ${points.join(', ')}` : undefined);

/** The report page for a sweep. */
export function renderSweepReport(dir: string, doc: SweepDoc, boxes?: ReadonlyMap<string, BoxStats>): string {
  const groups = groupsOf(doc);
  const hasSlo = doc.slo !== null;
  const charts: Record<string, unknown> = {
    's-throughput': throughputChart(groups, hasSlo),
    's-latency-throughput': latencyThroughputChart(groups),
    's-latency-load': latencyVsLoadChart(groups),
  };
  // Two-dimensional grids (e.g. concurrency × input length) also get one heatmap per metric.
  const heat = gridHeatmaps(doc.points, hasSlo);
  Object.assign(charts, heat);
  const perGroup: string[] = [];
  groups.forEach((g, i) => {
    const levelBoxes = boxStats(dir, g.rows, boxes);
    const id = (k: string) => `s-${k}-${i}`;
    charts[id('ttft-box')] = boxChart(`TTFT by level (${groupLabel(g.insights)})`, doc.mode, levelBoxes, 'ttft');
    charts[id('tpot-box')] = boxChart(`TPOT by level (${groupLabel(g.insights)})`, doc.mode, levelBoxes, 'tpot');
    charts[id('e2e-box')] = boxChart(`E2E by level (${groupLabel(g.insights)})`, doc.mode, levelBoxes, 'e2e');
    charts[id('decomp')] = decompositionChart(doc.mode, g.rows);
    perGroup.push(
      `<h3>${esc(groupLabel(g.insights))}</h3><div class="grid2">${['ttft-box', 'tpot-box', 'e2e-box', 'decomp'].map((k) => `<div class="chart" id="${id(k)}"></div>`).join('')}</div>`,
    );
  });
  const first = groups[0]?.insights;
  const headline = tiles([
    { label: 'points', value: String(doc.points.length) },
    { label: 'peak output throughput', value: first?.peak ? num(first.peak.output_throughput) : '–', unit: first?.peak ? `tok/s @ ${loadWords(doc.mode, first.peak.load)}` : undefined },
    { label: 'knee', value: first?.knee ? loadWords(doc.mode, first.knee.load) : 'not found', unit: cbUnit(first?.knee?.client_bound_points) },
    {
      label: 'recommended',
      value: first?.recommended ? loadWords(doc.mode, first.recommended.load) : doc.interrupted || doc.failure ? 'none (incomplete sweep)' : '–',
      unit: [first?.recommended?.interpolated ? 'interpolated, not measured' : '', cbUnit(first?.recommended?.client_bound_points) ?? ''].filter(Boolean).join('; ') || undefined,
      tone: first?.recommended ? 'good' : undefined,
    },
    {
      label: 'recommended range',
      value: first?.recommended_range ? (first.recommended_range.low === first.recommended_range.high ? loadWords(doc.mode, first.recommended_range.high) : `${first.recommended_range.low} – ${first.recommended_range.high}`) : '–',
      unit: first?.recommended_range ? `${first.recommended_range.low === first.recommended_range.high ? '' : doc.mode === 'rate' ? 'req/s' : 'concurrency'}${first.recommended_range.interpolated ? ' (low end interpolated)' : ''}` : undefined,
    },
    // No SLO given: the only check was the error threshold, and the tile says so (issue 25).
    { label: hasSlo ? 'highest load meeting SLOs' : `highest load under ${+(doc.max_error_rate * 100).toFixed(2)}% errors (no SLO)`, value: first?.max_load_meeting_slo !== null && first?.max_load_meeting_slo !== undefined ? loadWords(doc.mode, first.max_load_meeting_slo) : '–' },
    { label: 'most stable', value: first?.most_stable ? loadWords(doc.mode, first.most_stable.load) : '–' },
  ]);
  const insights = groups
    .map((g) => `${groups.length > 1 ? `<h3>${esc(groupLabel(g.insights))}</h3>` : ''}${statementsList(g.insights.statements)}`)
    .join('');
  const autoText = doc.auto_stop ? statementsList(Object.entries(doc.auto_stop).map(([k, v]) => `--auto (${k}): ${v}`)) : '';
  const method = `<p class="muted">Knee: the level farthest above the straight line from the lowest to the highest level, with log2(load) and throughput both scaled to 0–1 (Kneedle); a bend under 0.1 is not reported. Recommended: 70% of the knee, capped at the highest load for which every level up to it met ${hasSlo ? `the SLOs (<code>${esc(doc.slo)}</code>)` : 'the error threshold'}.</p>`;
  const evalData = readEvalData(dir, []);
  const auto = autoSearchSection(doc.auto_search);
  const sections = [
    { id: 'headline', title: 'Headline', html: headline + (groups.length > 1 ? '<p class="muted">Tiles show the first input/output pair; see the findings for all.</p>' : '') },
    { id: 'insights', title: 'Findings', html: insights + autoText + method },
    ...(auto ? [auto] : []),
    { id: 'throughput', title: 'Throughput vs load', html: '<div class="chart tall" id="s-throughput"></div>' },
    ...(Object.keys(heat).length
      ? [{ id: 'heatmaps', title: 'Grid heatmaps', html: `<p class="muted">One cell per point; blank cells were not measured. Colours run from green (better) to red (worse).</p><div class="grid2">${Object.keys(heat).map((k) => `<div class="chart" id="${k}"></div>`).join('')}</div>` }]
      : []),
    { id: 'latency', title: 'Latency vs throughput and load', html: '<div class="grid2"><div class="chart tall" id="s-latency-throughput"></div><div class="chart tall" id="s-latency-load"></div></div>' },
    { id: 'levels', title: 'Distributions per level', html: `<p class="muted">Boxes span p25–p75 with the median; whiskers reach p1 and p99.</p>${perGroup.join('')}` },
    { id: 'points', title: 'Points', html: pointsTable(doc) },
    // --eval-under-load: accuracy per level against the idle baseline (docs/eval.md#under-load).
    ...(evalData ? [evalSection(evalData)] : []),
    { id: 'metadata', title: 'Sweep metadata and config', html: metadataTable({ ...doc, points: undefined, insights: undefined, auto_search: undefined } as unknown as Record<string, unknown>) },
  ];
  return renderPage({
    title: `tokenflood sweep · ${String(doc.model ?? 'unknown model')}`,
    subtitle: `${doc.target_url} · ${doc.points.length} points by ${doc.mode} · started ${doc.started_at}`,
    banner: banner(doc),
    sections,
    charts,
  });
}

/** Write DIR/report.html of a sweep: from `doc` when the sweep holds it (nothing read back), else sweep.json; returns the path written. */
export function writeSweepReport(dir: string, boxes?: ReadonlyMap<string, BoxStats>, doc?: SweepDoc): string {
  return writeArtifact(dir, ARTIFACTS.report, renderSweepReport(dir, doc ?? readSweepDoc(dir), boxes));
}
