// report.html "Sessions and turns": latency by turn index, per-session figures, and the cache ceiling beside the server's cached tokens.
import type { RequestRecord } from '../../metrics/record.js';
import type { Summary } from '../../metrics/summary.js';
import type { ReuseBlock } from '../../metrics/sessions.js';
import { chartBase as base, GRID_TOP_WITH_LEGEND, LEGEND_ROW, valueAxis } from './chart-kit.js';
import { htmlTable, num, pctText } from './sections.js';
import { escapeHtml as esc } from './escape.js';

/** Sessions listed by duration in the table of longest sessions. */
export const LONGEST_SESSIONS = 10;

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

const turnAxis = (turns: readonly string[]) => ({ type: 'category', name: 'turn index (0-based)', nameLocation: 'middle', nameGap: 30, data: [...turns] });

/** TTFT p50/p99 and E2E p50 per turn index (ms, left axis), TPOT p50 (ms, right axis). */
export function turnLatencyChart(byTurn: NonNullable<Summary['by_turn']>): Record<string, unknown> {
  const turns = Object.keys(byTurn);
  const line = (name: string, f: (k: string) => number | null, axis = 0) => ({ type: 'line', name, yAxisIndex: axis, symbolSize: 5, connectNulls: false, data: turns.map(f) });
  return {
    ...base('Latency by turn index'),
    legend: LEGEND_ROW,
    grid: { left: 64, right: 64, top: GRID_TOP_WITH_LEGEND, bottom: 48 },
    xAxis: turnAxis(turns),
    yAxis: [valueAxis('ms', { nameGap: 44 }), valueAxis('TPOT ms', { position: 'right', nameGap: 40, splitLine: { show: false } })],
    series: [
      line('TTFT p50', (k) => byTurn[k].ttft_ms.p50),
      line('TTFT p99', (k) => byTurn[k].ttft_ms.p99),
      line('E2E p50', (k) => byTurn[k].e2e_ms.p50),
      line('TPOT p50', (k) => byTurn[k].tpot_ms.p50, 1),
    ],
  };
}

/** Per turn index: prompt tokens, the trace's cache ceiling and the server's cached tokens per request (bars), and cached ÷ ceiling (line, right axis). */
export function turnReuseChart(byTurn: Record<string, ReuseBlock>): Record<string, unknown> {
  const turns = Object.keys(byTurn);
  // Means per request, so the pooled 16+ bar is comparable with the others.
  const bar = (name: string, f: (b: ReuseBlock) => number) => ({ type: 'bar', name, data: turns.map((k) => (byTurn[k].requests ? Math.round(f(byTurn[k]) / byTurn[k].requests) : null)) });
  return {
    ...base('Prefix reuse by turn: cache ceiling beside cached tokens'),
    legend: LEGEND_ROW,
    grid: { left: 72, right: 64, top: GRID_TOP_WITH_LEGEND, bottom: 48 },
    xAxis: turnAxis(turns),
    yAxis: [valueAxis('tokens per request', { nameGap: 52 }), valueAxis('cached ÷ ceiling %', { position: 'right', nameGap: 40, min: 0, splitLine: { show: false } })],
    series: [
      bar('prompt tokens', (b) => b.prompt_tokens),
      bar('ceiling', (b) => b.ceiling_tokens),
      bar('cached (server)', (b) => b.cached_tokens),
      { type: 'line', name: 'cached ÷ ceiling %', yAxisIndex: 1, symbolSize: 5, data: turns.map((k) => (byTurn[k].cached_vs_ceiling === null ? null : Math.round(byTurn[k].cached_vs_ceiling! * 1000) / 10)) },
    ],
  };
}

interface SessionRow {
  id: string;
  first: number;
  last: number;
  requests: number;
  failed: number;
  join: number;
  tool: number;
}

/** The longest sessions by duration (first send to last response end), from the measured records. */
export function longestSessions(records: readonly RequestRecord[], n = LONGEST_SESSIONS): SessionRow[] {
  const by = new Map<string, SessionRow>();
  for (const r of records) {
    if (r.warmup || r.session === undefined) continue;
    const end = r.sent_at_ms + (r.end_ms ?? 0);
    let s = by.get(r.session);
    if (!s) by.set(r.session, (s = { id: r.session, first: r.sent_at_ms, last: end, requests: 0, failed: 0, join: 0, tool: 0 }));
    s.first = Math.min(s.first, r.sent_at_ms);
    s.last = Math.max(s.last, end);
    s.requests++;
    if (r.status !== 'ok') s.failed++;
    s.join += r.join_wait_ms ?? 0;
    s.tool += r.tool_wait_ms ?? 0;
  }
  return [...by.values()].sort((a, b) => b.last - b.first - (a.last - a.first) || (a.id < b.id ? -1 : 1)).slice(0, n);
}

/** A token count: whole, with thousands separators. */
const tokens = (x: number): string => Math.round(x).toLocaleString('en-US');

const reuseCells = (b: ReuseBlock | undefined): string[] =>
  b ? [tokens(b.prompt_tokens), tokens(b.ceiling_tokens), tokens(b.cached_tokens), pctText(b.ceiling_share), pctText(b.cached_vs_ceiling)] : ['–', '–', '–', '–', '–'];

/** The "Sessions and turns" section, or undefined when the records carry no turn, session or ceiling. */
export function sessionSection(s: Summary, records: readonly RequestRecord[], charts: Record<string, unknown>, sampled = false): { id: string; title: string; html: string } | undefined {
  if (!s.by_turn && !s.sessions && !s.prefix_reuse) return undefined;
  const parts: string[] = [];
  const reuse = s.prefix_reuse;
  const x = s.sessions;
  if (x) {
    const waits = (name: string, w: typeof x.join_wait_ms) => (w.per_request.count > 0 ? `; ${name} ${num(w.total_ms / 1000)} s in all over ${plural(w.per_request.count, 'turn')} (p50 ${num(w.per_request.p50)} ms)` : '');
    parts.push(
      `<p class="muted">${plural(x.count, 'session')}; duration (first send to last token) p50 ${num((x.duration_ms.p50 ?? 0) / 1000)} s, p90 ${num((x.duration_ms.p90 ?? 0) / 1000)} s, max ${num((x.duration_ms.max ?? 0) / 1000)} s; ` +
        `main-agent turns per session p50 ${num(x.turns.p50, 1)}, max ${num(x.turns.max, 0)}; ${x.subagents ? `${plural(x.subagents, 'subagent')} in ${plural(x.sessions_with_subagents, 'session')}` : 'no subagents'}${waits('join wait', x.join_wait_ms)}${waits('tool wait', x.tool_wait_ms)} (docs/metrics.md#sessions-and-turns).</p>`,
    );
  }
  if (reuse)
    parts.push(
      `<p class="muted">Prefix reuse: the server reported ${esc(tokens(reuse.cached_tokens))} cached prompt tokens against a cache ceiling of ${esc(tokens(reuse.ceiling_tokens))} ` +
        `(${esc(pctText(reuse.cached_vs_ceiling))} of the ceiling; the ceiling is ${esc(pctText(reuse.ceiling_share))} of ${esc(tokens(reuse.prompt_tokens))} prompt tokens): the ceiling is what an unlimited prefix cache could serve, from the trace's hash_ids in arrival order.</p>`,
    );
  if (reuse)
    parts.push(
      htmlTable(
        ['requests', 'prompt tokens', 'ceiling', 'cached (server)', 'ceiling ÷ prompt', 'cached ÷ prompt', 'cached ÷ ceiling'],
        [[String(reuse.requests), tokens(reuse.prompt_tokens), tokens(reuse.ceiling_tokens), tokens(reuse.cached_tokens), pctText(reuse.ceiling_share), pctText(reuse.cached_share), pctText(reuse.cached_vs_ceiling)]],
      ),
    );
  if (s.by_turn) {
    charts['c-turn-latency'] = turnLatencyChart(s.by_turn);
    parts.push('<div class="grid2"><div class="chart" id="c-turn-latency"></div>' + (reuse ? '<div class="chart" id="c-turn-reuse"></div>' : '') + '</div>');
    if (reuse) charts['c-turn-reuse'] = turnReuseChart(reuse.by_turn);
    const head = ['turn', 'requests', 'ok', 'TTFT p50', 'TTFT p90', 'TTFT p99', 'TPOT p50', 'E2E p50', 'E2E p99', ...(reuse ? ['prompt tokens', 'ceiling', 'cached', 'ceiling ÷ prompt', 'cached ÷ ceiling'] : [])];
    const rows = Object.entries(s.by_turn).map(([k, b]) => [k, String(b.requests), String(b.ok), num(b.ttft_ms.p50), num(b.ttft_ms.p90), num(b.ttft_ms.p99), num(b.tpot_ms.p50), num(b.e2e_ms.p50), num(b.e2e_ms.p99), ...(reuse ? reuseCells(reuse.by_turn[k]) : [])]);
    parts.push(`<h3>By turn index</h3>${htmlTable(head, rows, reuse ? 'wide' : undefined)}`);
  }
  const longest = longestSessions(records);
  if (longest.length)
    parts.push(
      `<h3>Longest sessions</h3>${sampled ? '<p class="muted">From the sample of requests the report charts (a long run): durations and waits of a listed session may lack some of its requests.</p>' : ''}`,
      htmlTable(
        ['session', 'requests', 'failed', 'duration s', 'join wait ms', 'tool wait ms'],
        longest.map((r) => [{ text: r.id.slice(0, 120) }, String(r.requests), String(r.failed), num((r.last - r.first) / 1000), num(r.join), num(r.tool)]),
      ),
    );
  return { id: 'sessions', title: 'Sessions and turns', html: parts.join('') };
}
