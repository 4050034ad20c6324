// Terminal lines for runs with sessions and turns: latency by turn index, per-session figures, prefix reuse vs the cache ceiling.
import type { Summary } from '../metrics/summary.js';
import type { ReuseBlock } from '../metrics/sessions.js';
import { fmt, pct, table } from './format.js';
import { latencyColumns } from './breakdown-columns.js';

const ratio = (x: number | null): string => (x === null ? '-' : pct(x));
/** A token count, whole. */
const tokens = (x: number): string => String(Math.round(x));
const seconds = (ms: number | null): string => (ms === null ? '-' : fmt(ms / 1000));

/** The per-turn table and the session and prefix-reuse lines; nothing for a run whose records carry no turn, session or ceiling. */
export function sessionLines(s: Summary): string[] {
  const out: string[] = [];
  const reuse = s.prefix_reuse;
  if (s.by_turn) {
    const withReuse = reuse !== undefined;
    // The columns of the other breakdown tables (by class, endpoint, …): TTFT p50 and the tail, TPOT p50, E2E's tail.
    const lat = latencyColumns(s.percentiles);
    const rows = Object.entries(s.by_turn).map(([k, b]) => {
      const r: ReuseBlock | undefined = reuse?.by_turn[k];
      return [k, String(b.requests), String(b.ok), ...lat.map((c) => fmt(c.value(b))), ...(withReuse ? [r ? ratio(r.ceiling_share) : '-', r ? ratio(r.cached_share) : '-'] : [])];
    });
    out.push('', withReuse ? 'by turn (0-based turn index; ceiling and cached: shares of prompt tokens):' : 'by turn (0-based turn index):');
    out.push(table(['turn', 'requests', 'ok', ...lat.map((c) => c.head), ...(withReuse ? ['ceiling', 'cached'] : [])], rows));
  }
  const x = s.sessions;
  if (x) {
    const sub = x.subagents ? `, ${x.subagents} subagent${x.subagents === 1 ? '' : 's'} in ${x.sessions_with_subagents} session${x.sessions_with_subagents === 1 ? '' : 's'}` : '';
    // A wait is shown only when some turn carried it (trace replay with subagents or tool calls).
    const wait = (name: string, w: typeof x.join_wait_ms) =>
      w.per_request.count > 0 ? `; ${name} ${seconds(w.total_ms)} s in all over ${w.per_request.count} turn${w.per_request.count === 1 ? '' : 's'} (p50 ${fmt(w.per_request.p50)} ms, max ${fmt(w.per_request.max)} ms)` : '';
    out.push(
      '',
      `sessions: ${x.count}, duration p50 ${seconds(x.duration_ms.p50)} s, p90 ${seconds(x.duration_ms.p90)} s, max ${seconds(x.duration_ms.max)} s; turns per session p50 ${fmt(x.turns.p50, 1)}, max ${fmt(x.turns.max, 0)}${sub}` +
        wait('join wait', x.join_wait_ms) + wait('tool wait', x.tool_wait_ms),
    );
  }
  if (reuse)
    out.push(
      ...(x ? [] : ['']),
      `prefix reuse: ${tokens(reuse.cached_tokens)} cached of ${tokens(reuse.ceiling_tokens)} ceiling tokens (${ratio(reuse.cached_vs_ceiling)} of the ceiling` +
        `${reuse.cached_reported === 0 ? '; the server reported no cached tokens' : ''}); ceiling ${ratio(reuse.ceiling_share)} and cached ${ratio(reuse.cached_share)} of ${tokens(reuse.prompt_tokens)} prompt tokens`,
    );
  return out;
}
