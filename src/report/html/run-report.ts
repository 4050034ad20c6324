// HTML reporter for one run: reads a results directory and writes DIR/report.html (self-contained, opens offline).
import { resourceLines } from '../resource-terminal.js';
import type { RequestRecord } from '../../metrics/record.js';
import type { MetricsBlock, Summary } from '../../metrics/summary.js';
import { DEFAULT_PERCENTILES } from '../../metrics/stats.js';
import { CHART_SAMPLE_MAX, readRunMeta, readSummaryJson, recordsOf, replaySummary, requestsFile, sampleRecords } from '../results-dir.js';
import { ARTIFACTS, hasArtifact, writeArtifact } from '../../artifacts/registry.js';
import { TIMELINE_CHART_SAMPLES, type RunArtifacts } from '../../artifacts/run-artifacts.js';
import { evaluateSlo, parseSlo, type SloResult } from '../../metrics/slo.js';
import { renderPage } from './page.js';
import { cdfChart, errorsChart, histogramChart, itlStalls, overTimeChart, stallsChart, timelineChart } from './run-charts.js';
import { sortedItlGaps } from './run-data.js';
import { runNotes } from './run-notes.js';
import { percentileCiChart } from './percentile-ci-chart.js';
import { errorsTable, htmlTable, metadataTable, num, pctText, percentileTable, sloBlock, statementsList, tiles, type Tile } from './sections.js';
import { escapeHtml as esc } from './escape.js';
import { readServerSamples } from '../../telemetry/sample-writer.js';
import type { ServerSample } from '../../telemetry/normalize.js';
import { serverLoadChart, serverTimesChart, ttftDecompositionChart } from './server-charts.js';
import { gpuMemoryHostChart, gpuUtilChart } from './gpu-charts.js';
import { readGpuLines } from '../../telemetry/gpu-source.js';
import { routingSection } from './routing-section.js';
import { sessionSection } from './session-section.js';
import { mediaSection } from './media-section.js';
import { slicesSection } from './slices-section.js';
import { labelledTable, latencyColumns, priorityColumns, priorityEntries, type BreakdownColumn } from '../breakdown-columns.js';
import { engineLabel } from '../server-terminal.js';
import { evalSection, readEvalData, type EvalReportData } from './eval-section.js';
import { minOf } from '../../util/min-max.js';

/** Timeline samples drawn per chart, about (a day of 1 s scrapes is thinned evenly; summary figures use every sample). */
const CHART_SAMPLES = TIMELINE_CHART_SAMPLES;

export interface RunReportData {
  summary: Summary;
  /** Every record, or for a run of more than CHART_SAMPLE_MAX records an even sample of them (sorted by id, then attempt). */
  records: RequestRecord[];
  /** How many records requests.jsonl holds (records.length unless sampled). */
  totalRecords?: number;
  /** Every record again, streamed, for counts that must not be sampled (SLO goodput); default: `records`. */
  allRecords?: () => Iterable<RequestRecord>;
  run: Record<string, unknown>;
  warnings: string[];
  /** server_metrics.jsonl, when the run scraped the server's /metrics. */
  serverSamples?: ServerSample[];
  /** gpu_metrics.jsonl lines, when --gpu-metrics or --server-pid sampled them. */
  gpuLines?: ReturnType<typeof readGpuLines>;
  /** eval.json (and a few wrong answers), when the run graded a set (docs/eval.md). */
  eval?: EvalReportData;
  /** The --slo verdict the run counted (RunArtifacts.slo); else counted here from the records, when run.json has --slo. */
  slo?: { text: string; result: SloResult };
}

/** Read a run directory: a bounded sample of requests.jsonl, metadata from run.json, summary.json when present (else replayed). */
export function readRunDir(dir: string, maxRecords = CHART_SAMPLE_MAX): RunReportData {
  const file = requestsFile(dir);
  const { records, total, warnings } = sampleRecords(dir, maxRecords);
  const run = hasArtifact(dir, ARTIFACTS.run) ? readRunMeta(dir, warnings) : {};
  const summary = readSummaryJson(dir, warnings) ?? replaySummary(dir).summary;
  const data = withTimelines(dir, { summary, records, run, warnings, totalRecords: total });
  if (total > records.length) data.allRecords = () => recordsOf(file);
  return data;
}

/** The same data from what a run holds (RunEndEvent.artifacts): its summary, run.json, chart sample and SLO verdict; no record is read back. */
export function runDataOf(a: RunArtifacts): RunReportData {
  const { records, total } = a.chartSample;
  return withTimelines(a.outDir, { summary: a.summary, records, run: a.meta, warnings: [], totalRecords: total, ...(a.slo ? { slo: a.slo } : {}) }, a.timelines);
}

/** Adds the timeline samples (the run's own when it kept them, else read) and the eval files of `dir` (neither is a request record), and the sampling note. */
function withTimelines(dir: string, d: RunReportData, kept?: RunArtifacts['timelines']): RunReportData {
  const serverSamples = kept ? (kept.server as ServerSample[]) : readServerSamples(dir, CHART_SAMPLES);
  const gpuLines = kept ? (kept.gpu as ReturnType<typeof readGpuLines>) : readGpuLines(dir, CHART_SAMPLES);
  const data: RunReportData = { ...d, serverSamples, gpuLines, eval: readEvalData(dir, d.warnings) };
  const total = d.totalRecords ?? d.records.length;
  const records = d.records;
  const warnings = d.warnings;
  if (total > records.length) {
    warnings.push(`charts drawn from ${records.length} of ${total} records (an even sample); the tables and figures use all of them`);
  }
  return data;
}

function headline(s: Summary, slo: SloResult | undefined): Tile[] {
  const r = s.requests;
  const t: Tile[] = [
    { label: 'requests ok / measured', value: `${r.ok} / ${r.total}` },
    { label: 'error rate', value: pctText(r.error_rate), tone: r.error_rate > 0 ? 'bad' : 'good' },
    { label: 'duration', value: num(s.duration_s), unit: 's' },
    { label: 'request throughput', value: num(s.request_throughput), unit: 'req/s' },
  ];
  // The batch-means interval of the rate (docs/metrics.md#throughput-intervals), and a run that never reached a steady state.
  const ci = s.ci95?.request_throughput;
  if (ci) t.push({ label: 'request throughput 95% CI', value: `${num(ci[0])} – ${num(ci[1])}`, unit: 'req/s' });
  if (s.saturation?.saturated) t.push({ label: 'over-saturation', value: s.saturation.stopped ? 'saturated, stopped' : 'saturated', tone: 'bad' });
  // Embeddings and rerank generate nothing: samples and input tokens per second and latency instead.
  if (s.sample_throughput !== undefined)
    t.push(
      { label: 'sample throughput', value: num(s.sample_throughput), unit: 'samples/s' },
      { label: 'input throughput', value: num(s.input_throughput), unit: 'tok/s' },
      { label: 'latency p50 / p99', value: `${num(s.e2e_ms.p50)} / ${num(s.e2e_ms.p99)}`, unit: 'ms' },
      { label: 'mean in flight', value: num(s.mean_in_flight) },
    );
  else
    t.push(
      { label: 'output throughput', value: num(s.output_throughput), unit: 'tok/s' },
      { label: 'total token throughput', value: num(s.total_token_throughput), unit: 'tok/s' },
      { label: 'TTFT p50 / p99', value: `${num(s.ttft_ms.p50)} / ${num(s.ttft_ms.p99)}`, unit: 'ms' },
      { label: 'TPOT p50 / p99', value: `${num(s.tpot_ms.p50)} / ${num(s.tpot_ms.p99)}`, unit: 'ms' },
      ...loadShapeTiles(s),
      { label: 'E2E p50 / p99', value: `${num(s.e2e_ms.p50)} / ${num(s.e2e_ms.p99)}`, unit: 'ms' },
      { label: 'output speed p50', value: num(s.output_speed_tok_s.p50), unit: 'tok/s/req' },
      { label: 'mean in flight', value: num(s.mean_in_flight) },
    );
  if (slo) {
    t.push({ label: 'SLOs', value: slo.passed ? 'passed' : 'FAILED', tone: slo.passed ? 'good' : 'bad' });
    t.push({ label: 'goodput', value: num(slo.goodput_req_s), unit: 'req/s' });
  }
  return t;
}

/**
 * Beside TPOT: speculative decoding's tokens per verify step and the implied step time (TPOT mean × that length);
 * then the client's planned cancels and the user-centric rate, when the run had them.
 */
function loadShapeTiles(s: Summary): Tile[] {
  const t: Tile[] = [];
  const sd = s.server?.spec_decode;
  if (sd && sd.mean_acceptance_length !== null)
    t.push({ label: 'tokens per verify step (spec decode)', value: `${num(sd.mean_acceptance_length)}${sd.acceptance_rate !== null ? `, ${pctText(sd.acceptance_rate)} accepted` : ''}${sd.implied_step_ms != null ? `; ${num(sd.implied_step_ms)} ms per step` : ''}` });
  if (s.cancellation) t.push({ label: 'cancelled by the client', value: `${s.cancellation.cancelled} (${pctText(s.cancellation.rate)}), ${num(s.cancellation.cancel_after_ms.mean)} ms after send` });
  if (s.users) t.push({ label: 'user-centric rate', value: `${num(s.users.achieved_rate)} of ${num(s.users.target_rate)} req/s, ${s.users.users} users` });
  return t;
}

export interface RunReportOptions {
  /** SLO text to evaluate (default: `config.slo` from run.json, when the run had one). */
  slo?: string;
}

/** The report page for one run's data. */
export function renderRunReport(d: RunReportData, opts: RunReportOptions = {}): string {
  const s = d.summary;
  const run = d.run;
  const ok = d.records.filter((r) => !r.warmup && r.status === 'ok');
  const sloText = opts.slo ?? ((run.config as { slo?: unknown } | undefined)?.slo as string | undefined);
  let slo: { text: string; result: SloResult } | undefined;
  if (typeof sloText === 'string' && sloText.trim()) {
    const parsed = parseSlo(sloText);
    slo = d.slo?.text === parsed.text ? d.slo : { text: parsed.text, result: evaluateSlo(s, d.allRecords?.() ?? d.records, parsed) };
  }
  // One sort of every ITL gap (200,000 at 500 streams) for the ITL CDF and the stall threshold.
  const itlSorted = sortedItlGaps(d.records);
  const stalls = itlStalls(d.records, undefined, itlSorted);
  const tl = timelineChart(d.records);
  const ps = s.percentiles ?? DEFAULT_PERCENTILES;
  const vals = (k: 'ttft_ms' | 'tpot_ms' | 'e2e_ms') => ok.map((r) => r[k]).filter((x): x is number => x !== null);
  const charts: Record<string, unknown> = {
    'c-ttft-hist': histogramChart('TTFT distribution', vals('ttft_ms'), 'ms'),
    'c-tpot-hist': histogramChart('TPOT distribution', vals('tpot_ms'), 'ms'),
    'c-ttft-cdf': cdfChart('TTFT and E2E CDF', [{ name: 'TTFT', values: vals('ttft_ms') }, { name: 'E2E', values: vals('e2e_ms') }], 'ms'),
    'c-tpot-cdf': cdfChart('TPOT and ITL CDF', [{ name: 'TPOT', values: vals('tpot_ms') }, { name: 'ITL', values: { sorted: itlSorted } }], 'ms'),
    'c-timeline': tl.option,
    'c-overtime': overTimeChart(d.records),
    'c-stalls': stallsChart(stalls),
  };
  // The percentiles with their intervals, a chart per pair of metrics that has values (embeddings have no TPOT or ITL).
  const pctCharts = (
    [
      ['c-ttft-pct', 'TTFT and E2E percentiles, 95% intervals', [{ name: 'TTFT', dist: s.ttft_ms }, { name: 'E2E', dist: s.e2e_ms }]],
      ['c-tpot-pct', 'TPOT and ITL percentiles, 95% intervals', [{ name: 'TPOT', dist: s.tpot_ms }, { name: 'ITL', dist: s.itl_ms }]],
    ] as const
  ).filter(([, , series]) => series.some((x) => x.dist.count > 0));
  for (const [id, title, series] of pctCharts) charts[id] = percentileCiChart(title, series, ps, 'ms');
  if (s.requests.errors.length) charts['c-errors'] = errorsChart(s);
  const server = serverSection(d, charts);
  const gpu = gpuSection(d, charts);
  const routing = routingSection(s, d.records, charts);
  const sessions = sessionSection(s, d.records, charts, (d.totalRecords ?? d.records.length) > d.records.length);
  const media = mediaSection(s, charts);
  const slices = slicesSection(s, charts);
  const div = (id: string, cls = 'chart') => `<div class="${cls}" id="${id}"></div>`;
  const lat = latencyColumns(s.percentiles);
  const html = { num, pct: pctText, errors: 'error rate', throughput: 'output tok/s' };
  const labelled = (label: string, entries: [string, MetricsBlock][], cols: BreakdownColumn[]) => {
    const t = labelledTable(label, entries, cols, html);
    return htmlTable(t.head, t.rows);
  };
  const byClass = s.by_class ? labelled('class', Object.entries(s.by_class), lat) : '';
  const byBand = s.by_length_band ? labelled('input tokens', Object.entries(s.by_length_band), lat) : '';
  const byPriority = s.by_priority ? labelled('priority', priorityEntries(s.by_priority), priorityColumns(s.percentiles)) : '';
  const byUser = s.by_user
    ? htmlTable(
        ['user', 'requests', 'error rate', 'TTFT p50 (ms)', 'TTFT mean (ms)', 'prompt tokens', 'cached tokens', 'cached-token rate'],
        Object.entries(s.by_user.rows).map(([u, r]) => [
          { text: u === 'others' && r.users > 1 ? `others (${r.users} users)` : u },
          String(r.requests),
          pctText(r.error_rate),
          num(r.ttft_p50_ms),
          num(r.ttft_mean_ms),
          String(r.prompt_tokens),
          String(r.cached_tokens),
          r.cached_token_rate === null ? '—' : pctText(r.cached_token_rate),
        ]),
      )
    : '';
  const scale = run.sim_time_scale;
  const sections = [
    { id: 'headline', title: 'Headline', html: tiles(headline(s, slo?.result)) },
    ...(d.eval ? [evalSection(d.eval)] : []),
    { id: 'insights', title: 'What this run shows', html: statementsList(runNotes(s, stalls, slo)) + (slo ? sloBlock(slo.text, slo.result) : '') },
    {
      id: 'percentiles',
      title: 'Percentiles',
      html:
        `<p class="muted">Under each mean and percentile: its 95% confidence interval (t-interval for means, distribution-free order-statistic interval for percentiles; none when too few requests: docs/metrics.md#confidence-intervals).</p>` +
        percentileTable(s, s.percentiles) +
        (pctCharts.length ? `<div class="grid2">${pctCharts.map(([id]) => div(id)).join('')}</div>` : '') +
        (byClass ? `<h3>By class</h3>${byClass}` : '') +
        (byBand ? `<h3 id="by-length-band">By input length (prompt tokens, k = 1024)</h3>${byBand}` : '') +
        (byPriority ? `<h3 id="by-priority">By priority (lower runs first; ms)</h3>${byPriority}` : '') +
        (byUser ? `<h3 id="by-user">By user (${s.by_user!.users} users; cached-token rate = cached / prompt tokens of requests that reported them)</h3>${byUser}` : ''),
    },
    { id: 'distributions', title: 'Distributions', html: `<div class="grid2">${div('c-ttft-hist')}${div('c-tpot-hist')}${div('c-ttft-cdf')}${div('c-tpot-cdf')}</div>` },
    { id: 'timeline', title: 'Request timeline', html: `<p class="muted">${esc(tl.note)} Orange: waiting for the first token; then decoding; red: failed.</p>${div('c-timeline', 'chart tall')}` },
    { id: 'over-time', title: 'Load over time', html: div('c-overtime') },
    ...(slices ? [slices] : []),
    { id: 'stalls', title: 'ITL stalls', html: `<p class="muted">Gaps between tokens longer than 5x the run's median gap, at the time they ended${stalls.count > stalls.points.length ? ` (the ${stalls.points.length} longest of ${stalls.count} shown)` : ''}.</p>${div('c-stalls')}` },
    ...(sessions ? [sessions] : []),
    ...(media ? [media] : []),
    ...(routing ? [routing] : []),
    ...(server ? [server] : []),
    ...(gpu ? [gpu] : []),
    { id: 'errors', title: 'Errors', html: (s.requests.errors.length ? div('c-errors') : '') + errorsTable(s) },
    { id: 'metadata', title: 'Run metadata and config', html: metadataTable(run) + (d.warnings.length ? statementsList(d.warnings) : '') },
  ];
  return renderPage({
    title: `tokenflood run · ${String(run.model ?? 'unknown model')}`,
    subtitle: `${String(run.target_url ?? '')} · started ${String(run.started_at ?? '')}`,
    banner: typeof scale === 'number' && scale !== 1 ? `Simulated server running ${esc(scale)}x faster than real time: latencies are scaled, not real.` : undefined,
    sections,
    charts,
  });
}

/** The server section (charts on the run's time axis, the TTFT decomposition, the findings), when /metrics was scraped. */
function serverSection(d: RunReportData, charts: Record<string, unknown>): { id: string; title: string; html: string } | undefined {
  const samples = d.serverSamples ?? [];
  const srv = d.summary.server;
  if (!samples.length || !srv) return undefined;
  const measured = d.records.filter((r) => !r.warmup);
  const t0 = minOf(measured.map((r) => r.sent_at_ms), 0);
  charts['c-server-load'] = serverLoadChart(samples, t0);
  charts['c-server-times'] = serverTimesChart(samples, t0, srv.time_scale);
  if (srv.ttft_decomposition) charts['c-server-ttft'] = ttftDecompositionChart(srv);
  const div = (id: string) => `<div class="chart" id="${id}"></div>`;
  const note = `From the server's own /metrics (${esc(engineLabel(srv))}, ${srv.samples} samples in the summarized window); docs/telemetry.md says how each figure is derived.`;
  return {
    id: 'server',
    title: 'Server',
    html: `<p class="muted">${note}</p>${srv.findings.length ? statementsList(srv.findings.map((f) => f.message)) : ''}<div class="grid2">${div('c-server-load')}${div('c-server-times')}</div>${srv.ttft_decomposition ? '<div class="chart short" id="c-server-ttft"></div>' : ''}`,
  };
}

/** The GPU section (utilization, power, memory, host CPU on the run's time axis), when --gpu-metrics or --server-pid sampled them. */
function gpuSection(d: RunReportData, charts: Record<string, unknown>): { id: string; title: string; html: string } | undefined {
  const lines = d.gpuLines ?? [];
  if (!lines.length || !d.summary.gpu) return undefined;
  const measured = d.records.filter((r) => !r.warmup);
  const t0 = minOf(measured.map((r) => r.sent_at_ms), 0);
  const hasGpus = lines.some((l) => 'gpus' in l);
  if (hasGpus) charts['c-gpu-util'] = gpuUtilChart(lines, t0);
  charts['c-gpu-mem'] = gpuMemoryHostChart(lines, t0);
  const div = (id: string) => `<div class="chart" id="${id}"></div>`;
  const src = esc(String((d.run.gpu_metrics as { source?: unknown } | undefined)?.source ?? 'host only'));
  return {
    id: 'gpu',
    title: 'GPUs and hosts',
    html: `<p class="muted">Sampled beside the run from ${src} (docs/gpu-telemetry.md).</p>${resourceLines(d.summary).map((l) => `<p>${esc(l)}</p>`).join('')}<div class="grid2">${hasGpus ? div('c-gpu-util') : ''}${div('c-gpu-mem')}</div>`,
  };
}

/** Write DIR/report.html from a run's artifacts when given (the run's own report), else from the directory's files; returns the path written. */
export function writeRunReport(dir: string, opts: RunReportOptions = {}, artifacts?: RunArtifacts): string {
  return writeArtifact(dir, ARTIFACTS.report, renderRunReport(artifacts ? runDataOf(artifacts) : readRunDir(dir), opts));
}
