// TraceLab rounds (JSONL, one LLM round per line): session_id, round_index, input_tokens_total = prefix_tokens + newly_append_tokens, output_tokens, timing_events[], tools[].
import type { TraceLoader } from '../loader.js';
import { nonNegInt, SessionClock } from '../problems.js';
import { jsonlOf } from './files.js';

type Obj = Record<string, unknown>;

const isoMs = (v: unknown): number | undefined => {
  if (typeof v !== 'string') return undefined;
  const t = Date.parse(v);
  return Number.isFinite(t) ? t : undefined;
};

/** The round's send time: its first timestamped event (the user message or tool result that fed it). */
function startMs(events: unknown): number | undefined {
  if (!Array.isArray(events)) return undefined;
  let first: number | undefined;
  for (const e of events) {
    const t = e && typeof e === 'object' ? isoMs((e as Obj).timestamp) : undefined;
    if (t !== undefined && (first === undefined || t < first)) first = t;
  }
  return first;
}

/** Tool time after the round: from the first tool call to the last result (tools may overlap), else the sum of tool_wall_latency_ms. */
function toolMs(tools: unknown): number | undefined {
  if (!Array.isArray(tools) || !tools.length) return undefined;
  let from = Infinity;
  let to = -Infinity;
  let sum = 0;
  for (const t of tools as Obj[]) {
    const a = isoMs(t?.emitted_at);
    const b = isoMs(t?.result_at);
    if (a !== undefined && b !== undefined) {
      from = Math.min(from, a);
      to = Math.max(to, b);
    }
    if (typeof t?.tool_wall_latency_ms === 'number') sum += t.tool_wall_latency_ms;
  }
  return to >= from ? to - from : sum;
}

/**
 * TraceLab records no block hashes, so blocks are minted per session from the recorded split: a round reuses the first
 * floor(prefix_tokens / B) blocks of the session's previous round and gets fresh ids for the rest (as AIPerf does; block 64).
 */
export const tracelab: TraceLoader = {
  describe: 'TraceLab JSONL rounds: session_id, round_index, input_tokens_total, prefix_tokens, newly_append_tokens, output_tokens, timing_events, tools',
  defaultBlockSize: 64,
  detect: ({ json }) => (json && ('input_tokens_total' in json || 'round_index' in json) ? 'first record has input_tokens_total / round_index (TraceLab)' : undefined),
  *read(file, { problems, blockSize }) {
    const chains = new Map<string, number[]>();
    const clock = new SessionClock();
    let nextBlock = 0;
    let index = 0;
    for (const r of jsonlOf(file)) {
      const where = `${file}:${r.line}`;
      if (!r.value) {
        problems.add(where, 'record', r.problem ?? 'empty');
        continue;
      }
      const o = r.value;
      let bad = false;
      const fail = (field: string, msg: string): void => {
        problems.add(where, field, msg);
        bad = true;
      };
      const session = typeof o.session_id === 'string' && o.session_id !== '' ? o.session_id : undefined;
      const round = nonNegInt(o.round_index);
      const total = nonNegInt(o.input_tokens_total);
      const prefix = o.prefix_tokens === undefined || o.prefix_tokens === null ? 0 : nonNegInt(o.prefix_tokens);
      const appended = o.newly_append_tokens === undefined || o.newly_append_tokens === null ? undefined : nonNegInt(o.newly_append_tokens);
      const out = nonNegInt(o.output_tokens);
      const at = startMs(o.timing_events);
      if (session === undefined) fail('session_id', `must be a non-empty string, got ${JSON.stringify(o.session_id)}`);
      if (round === undefined) fail('round_index', `must be a non-negative integer, got ${JSON.stringify(o.round_index)}`);
      if (!total) fail('input_tokens_total', `must be a positive integer, got ${JSON.stringify(o.input_tokens_total)}`);
      if (prefix === undefined) fail('prefix_tokens', `must be a non-negative integer, got ${JSON.stringify(o.prefix_tokens)}`);
      else if (total && appended !== undefined && prefix + appended !== total) fail('input_tokens_total', `${total} is not prefix_tokens + newly_append_tokens (${prefix} + ${appended})`);
      if (out === undefined) fail('output_tokens', `must be a non-negative integer, got ${JSON.stringify(o.output_tokens)}`);
      if (at === undefined) fail('timing_events', 'needs at least one event with an ISO-8601 timestamp (the round\'s send time)');
      if (bad) continue;
      const back = clock.check(session as string, at as number, where);
      if (back) {
        problems.add(where, 'timing_events', `session ${session}: ${back}`);
        continue;
      }
      const prev = chains.get(session as string) ?? [];
      const keep = Math.min(prev.length, Math.floor((prefix as number) / blockSize));
      const hashIds = prev.slice(0, keep);
      for (let n = Math.ceil((total as number) / blockSize); hashIds.length < n; ) hashIds.push(nextBlock++);
      chains.set(session as string, hashIds);
      const tool = toolMs(o.tools);
      yield {
        index: index++,
        atMs: at,
        inputLength: total as number,
        outputLength: out as number,
        hashIds,
        session,
        turn: round as number,
        source: where,
        ...(tool !== undefined ? { toolMs: tool } : {}),
        ...(typeof o.model === 'string' ? { model: o.model } : {}),
      };
    }
  },
};
