// `report DIR --as TOOL`: the run's metrics under tokenflood's and another tool's definitions side by side, with how each differs.
import { eachRecord, requestsFile } from '../results-dir.js';
import { fmt, table } from '../format.js';
import type { DistStats } from '../../metrics/stats.js';
import { byKind } from '../../util/kinds.js';
import { COMPAT_TOOLS, DEFINITIONS, differenceText, type CompatTool, type ToolDefinition, type ToolNames } from './definitions.js';
import { RunRecompute, type ToolView } from './recompute.js';

type Concept = 'ttft' | 'tpot' | 'itl' | 'e2e' | 'speed';
const DIST_CONCEPTS: readonly { key: Concept; unit: string }[] = [
  { key: 'ttft', unit: 'ms' },
  { key: 'tpot', unit: 'ms' },
  { key: 'itl', unit: 'ms' },
  { key: 'e2e', unit: 'ms' },
  { key: 'speed', unit: 'tok/s' },
];
const RATES = [
  { key: 'request_throughput', unit: 'req/s' },
  { key: 'output_throughput', unit: 'tok/s' },
  { key: 'total_token_throughput', unit: 'tok/s' },
] as const;

/** The statistics shown per distribution. */
type Stats = { mean: number | null; p50: number | null; p99: number | null };

export interface CompatMetric {
  metric: string;
  unit: string;
  tokenflood_name: string | null;
  tool_name: string | null;
  tokenflood: Stats | number | null;
  tool: Stats | number | null;
  /** How the tool's definition differs from tokenflood's, in one line. */
  difference: string;
}

export interface CompatReport {
  tool: CompatTool;
  title: string;
  /** Where the tool's definitions were read. */
  source: string;
  requests: { ok: number; failed: number };
  metrics: CompatMetric[];
  tokenflood_view: ToolView;
  tool_view: ToolView;
}

const stats = (d: DistStats | null): Stats | null => (d ? { mean: d.mean, p50: d.p50, p99: d.p99 } : null);
const distOf = (v: ToolView, k: Concept): DistStats | null => (k === 'ttft' ? v.ttft_ms : k === 'tpot' ? v.tpot_ms : k === 'itl' ? v.itl_ms : k === 'e2e' ? v.e2e_ms : v.speed_tok_s);

/** Side-by-side metrics of the two views; a metric one tool does not have shows null on its side. */
export function compareViews(def: ToolDefinition, ours: ToolView, theirs: ToolView): CompatMetric[] {
  const names = (d: ToolDefinition, k: keyof ToolNames) => d.names[k];
  const dists = DIST_CONCEPTS.map(({ key, unit }) => ({
    metric: key,
    unit,
    tokenflood_name: names(DEFINITIONS.tokenflood, key),
    tool_name: names(def, key),
    tokenflood: stats(distOf(ours, key)),
    tool: stats(distOf(theirs, key)),
    difference: differenceText(def, key),
  }));
  const rates = RATES.map(({ key, unit }) => ({
    metric: key,
    unit,
    tokenflood_name: names(DEFINITIONS.tokenflood, key),
    tool_name: names(def, key),
    tokenflood: ours[key],
    tool: theirs[key],
    difference: differenceText(def, 'throughput'),
  }));
  return [...dists, ...rates];
}

/** Recompute a run directory's metrics under tokenflood's and `tool`'s definitions (one pass over requests.jsonl). */
export function compatReport(dir: string, toolName: string): { report: CompatReport; warnings: string[] } {
  const def = byKind(Object.fromEntries(COMPAT_TOOLS.map((t) => [t, DEFINITIONS[t]])), toolName, '--as');
  const rc = new RunRecompute([DEFINITIONS.tokenflood, def]);
  const warnings = eachRecord(requestsFile(dir, 'report'), (r) => rc.add(r));
  const [ours, theirs] = rc.views();
  const report: CompatReport = {
    tool: def.tool as CompatTool,
    title: def.title,
    source: def.source,
    requests: { ok: theirs.ok, failed: theirs.failed },
    metrics: compareViews(def, ours, theirs),
    tokenflood_view: ours,
    tool_view: theirs,
  };
  return { report, warnings };
}

const show = (x: number | null | undefined): string => (x === null || x === undefined ? '-' : fmt(x));
const deltaOf = (a: number | null | undefined, b: number | null | undefined): string => {
  if (a === null || a === undefined || b === null || b === undefined) return '-';
  const d = b - a;
  return `${d > 0 ? '+' : ''}${fmt(d)}`;
};

/** The terminal table: one row per statistic, then one line per metric saying how the definitions differ. */
export function renderCompat(r: CompatReport): string {
  const rows: string[][] = [];
  for (const m of r.metrics) {
    const label = (s: string) => `${m.metric}${s ? ` ${s}` : ''} (${m.unit})`;
    const names = `${m.tokenflood_name ?? '-'} / ${m.tool_name ?? '-'}`;
    if (typeof m.tokenflood === 'number' || typeof m.tool === 'number' || (m.tokenflood === null && m.tool === null)) {
      const a = m.tokenflood as number | null;
      const b = m.tool as number | null;
      rows.push([label(''), names, show(a), show(b), deltaOf(a, b)]);
      continue;
    }
    const a = m.tokenflood as Stats | null;
    const b = m.tool as Stats | null;
    for (const s of ['mean', 'p50', 'p99'] as const) rows.push([label(s), s === 'mean' ? names : '', show(a?.[s]), show(b?.[s]), deltaOf(a?.[s], b?.[s])]);
  }
  const lines = [
    `metrics of ${r.requests.ok} ok requests under tokenflood's definitions and ${r.title}'s (read from ${r.source})`,
    '',
    table(['metric', 'names (tokenflood / ' + r.tool + ')', 'tokenflood', r.tool, 'delta'], rows),
    '',
    'how the definitions differ:',
    ...r.metrics.map((m) => `  ${m.metric}: ${m.difference}`),
  ];
  return lines.join('\n');
}
