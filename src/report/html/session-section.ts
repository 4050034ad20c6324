// report.html "Sessions and turns": latency by turn index, per-session figures, and the cache ceiling beside the server's cached tokens.
import type { RequestRecord } from '../../metrics/record.js';
import type { Summary } from '../../metrics/summary.js';
import type { ReuseBlock } from '../../metrics/sessions.js';
import { chartBase as base, GRID_TOP_WITH_LEGEND, LEGEND_ROW, valueAxis } from './chart-kit.js';
import { htmlTable, num, pctText } from './sections.js';
import { escapeHtml as esc } from './escape.js';
import { chartText } from './run-charts.js';

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

/** Requests of one session the timeline draws at most (the first ones, in send order). */
export const TIMELINE_REQUESTS = 80;

const r3 = (x: number): number => Math.round(x * 1000) / 1000;

/**
 * One session's timeline (the longest): a row per request in send order, each a stack of segments on the run clock:
 * the mocked tool call after its predecessor (the same agent's previous turn) ended, the think time up to when it was
 * due, the join wait for its subagents, then waiting for the first token and decoding. A request without a
 * predecessor among the records (a session's or subagent's first turn) starts with its own waits.
 */
export function sessionTimelineChart(records: readonly RequestRecord[], session: string): Record<string, unknown> | undefined {
  const recs = records.filter((r) => r.session === session && !r.warmup).sort((a, b) => a.sent_at_ms - b.sent_at_ms).slice(0, TIMELINE_REQUESTS);
  if (recs.length === 0) return undefined;
  const endOf = (r: RequestRecord): number => r.sent_at_ms + (r.end_ms ?? 0);
  const key = (agent: string | undefined, turn: number | undefined) => `${agent ?? ''}\u0000${turn ?? -1}`;
  const byTurn = new Map(recs.map((r) => [key(r.agent, r.turn), r]));
  const t0 = Math.min(...recs.map((r) => r.sent_at_ms - (r.join_wait_ms ?? 0) - (r.tool_wait_ms ?? 0)));
  const rows = recs.map((r) => {
    const join = r.join_wait_ms ?? 0;
    const tool = r.tool_wait_ms ?? 0;
    const pred = r.turn !== undefined && r.turn > 0 ? byTurn.get(key(r.agent, r.turn - 1)) : undefined;
    const predEnd = pred ? Math.min(endOf(pred), r.sent_at_ms - join - tool) : r.sent_at_ms - join - tool;
    const ttft = r.ttft_ms ?? r.end_ms ?? 0;
    return {
      label: `${r.agent === undefined ? 'main' : chartText(r.agent)} #${r.turn ?? 0}`,
      offset: (predEnd - t0) / 1000,
      tool: tool / 1000,
      think: Math.max(0, r.sent_at_ms - join - (predEnd + tool)) / 1000,
      join: join / 1000,
      wait: ttft / 1000,
      decode: Math.max(0, (r.end_ms ?? 0) - ttft) / 1000,
    };
  });
  const seg = (name: string, color: string, f: (x: (typeof rows)[number]) => number) => ({ type: 'bar', name, stack: 't', itemStyle: { color }, data: rows.map((x) => r3(f(x))) });
  return {
    ...base(`Session timeline: ${chartText(session)}${recs.length === TIMELINE_REQUESTS ? ` (first ${TIMELINE_REQUESTS} requests)` : ''}`),
    legend: { ...LEGEND_ROW, data: ['tool wait', 'think', 'join wait', 'waiting for first token', 'decoding'] },
    grid: { left: 96, right: 28, top: GRID_TOP_WITH_LEGEND, bottom: 48 },
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' }, confine: true },
    xAxis: valueAxis('seconds since the session began'),
    yAxis: { type: 'category', inverse: true, data: rows.map((x) => x.label), axisLabel: { show: rows.length <= 40 } },
    series: [
      { type: 'bar', name: 'offset', stack: 't', itemStyle: { color: 'rgba(0,0,0,0)' }, emphasis: { disabled: true }, tooltip: { show: false }, data: rows.map((x) => r3(x.offset)) },
      seg('tool wait', '#8e44ad', (x) => x.tool),
      seg('think', '#bdc3c7', (x) => x.think),
      seg('join wait', '#16a085', (x) => x.join),
      seg('waiting for first token', '#e8a33a', (x) => x.wait),
      seg('decoding', '#3b6fd6', (x) => x.decode),
    ],
  };
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
  const timeline = longest.length ? sessionTimelineChart(records, longest[0].id) : undefined;
  if (timeline) {
    charts['c-session-timeline'] = timeline;
    parts.push(
      '<h3>Timeline of the longest session</h3><p class="muted">Each request of the session in send order: the mocked tool call after the same agent\'s previous turn, the think time, the wait for its subagents (join), then the wait for the first token and decoding.</p>',
      '<div class="chart tall" id="c-session-timeline"></div>',
    );
  }
  return { id: 'sessions', title: 'Sessions and turns', html: parts.join('') };
}
