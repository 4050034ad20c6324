// One dataset record (a JSONL line, a CSV row or a ShareGPT conversation) → a DatasetItem, or the reason it is bad.
import type { ChatMessage } from './types.js';
import { dataPriority } from './priority.js';
import type { DatasetItem, DatasetTurn, FieldKey, FieldMap } from './items.js';
import { fieldRefs, partRef, takePlaceholders, type MediaRef } from './media-refs.js';

type Obj = Record<string, unknown>;

/** The record's value for a canonical key, through the --dataset-field mapping (and `conversation` for `session`). */
function get(o: Obj, key: FieldKey, map: FieldMap): unknown {
  const name = map[key];
  if (name !== undefined) return o[name];
  if (key === 'session') return o.session ?? o.session_id ?? (Array.isArray(o.conversation) ? undefined : o.conversation) ?? o.conversation_id;
  // VisionArena: `conversation` is a list of rounds, each a list of {role, content} messages.
  if (key === 'conversations') return o.conversations ?? (Array.isArray(o.conversation) ? (o.conversation as unknown[]).flat() : undefined);
  if (key === 'output_tokens') return o.output_tokens ?? o.output_len ?? o.output_length;
  return o[key];
}

const ROLES = new Set(['system', 'user', 'assistant']);

/** OpenAI message content: a string, or an array of parts whose text parts are joined and whose media parts become refs. */
function contentParts(c: unknown, field: string): { text: string; refs: MediaRef[] } | string | undefined {
  if (typeof c === 'string') return { text: c, refs: [] };
  if (!Array.isArray(c)) return undefined;
  const texts: string[] = [];
  const refs: MediaRef[] = [];
  for (let j = 0; j < c.length; j++) {
    const p = c[j] as Obj;
    if (!p || typeof p !== 'object') return undefined;
    const r = partRef(p, `${field}.content[${j}]`);
    if (typeof r === 'string') return r;
    if (r) refs.push(r);
    else if (typeof p.text === 'string') texts.push(p.text);
    else return undefined;
  }
  return { text: texts.join(''), refs };
}

/** Messages of a record; media parts are allowed in the last user message only (RequestSpec.media belongs to it). */
function parseMessages(v: unknown, refsOut: MediaRef[]): ChatMessage[] | string {
  let arr = v;
  if (typeof v === 'string') {
    try {
      arr = JSON.parse(v);
    } catch {
      return 'messages is not a JSON array';
    }
  }
  if (!Array.isArray(arr) || arr.length === 0) return 'messages must be a non-empty array';
  const out: ChatMessage[] = [];
  let lastUser = -1;
  for (let i = 0; i < arr.length; i++) if ((arr[i] as Obj)?.role === 'user') lastUser = i;
  for (let i = 0; i < arr.length; i++) {
    const m = arr[i] as Obj;
    const content = m && typeof m === 'object' ? contentParts(m.content, `messages[${i}]`) : undefined;
    if (typeof content === 'string') return content;
    if (!m || typeof m !== 'object' || !ROLES.has(String(m.role)) || content === undefined)
      return `messages[${i}] needs a role (system, user or assistant) and text content`;
    if (content.refs.length && i !== lastUser)
      return `messages[${i}]: media are sent with the last user message only (messages[${lastUser}]); move them there`;
    refsOut.push(...content.refs);
    out.push({ role: m.role as ChatMessage['role'], content: content.text });
  }
  return out;
}

/** A positive integer from a number or numeric string; undefined when absent; a problem string when bad. */
function positiveInt(v: unknown, name: string): number | undefined | string {
  if (v === undefined || v === null || v === '') return undefined;
  const n = typeof v === 'string' ? Number(v.trim()) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n <= 0) return `${name} must be a positive integer, got ${JSON.stringify(v)}`;
  return n;
}

const HUMAN = new Set(['human', 'user']);
const GPT = new Set(['gpt', 'assistant', 'chatgpt', 'bard', 'bing', 'model']);

/**
 * A ShareGPT conversation: `[{from: 'human'|'gpt'|'system', value}]` → turns (each human message, answered by the next gpt one).
 * LLaVA placeholders (`<image>`) are stripped from human text; `slots[t]` gets the kinds turn t asked for, in order.
 */
function shareGptTurns(conv: unknown, slots: MediaRef['kind'][][]): DatasetTurn[] | string {
  if (!Array.isArray(conv)) return 'conversations must be an array';
  const turns: DatasetTurn[] = [];
  let system: string | undefined;
  for (let i = 0; i < conv.length; i++) {
    const m = conv[i] as Obj;
    const from = m && typeof m === 'object' ? String(m.from ?? m.role ?? '') : '';
    const value = m && typeof m === 'object' ? (m.value ?? m.content) : undefined;
    if (typeof value !== 'string') return `conversations[${i}] needs a string value`;
    if (from === 'system') system = value;
    else if (HUMAN.has(from)) {
      const messages: ChatMessage[] = [];
      if (system !== undefined && turns.length === 0) messages.push({ role: 'system', content: system });
      const { text, kinds } = takePlaceholders(value);
      messages.push({ role: 'user', content: text });
      turns.push({ messages });
      slots.push(kinds);
    } else if (GPT.has(from)) {
      // A reply before any human message (common in scraped ShareGPT) has nothing to answer: ignore it.
      const last = turns[turns.length - 1];
      if (last && last.answer === undefined) last.answer = value;
    } else return `conversations[${i}] has unknown from "${from}" (expected human, gpt or system)`;
  }
  if (turns.length === 0) return 'conversation has no human message';
  return turns;
}

/** Convert one record. `where` is `file:line`. */
export function recordToItem(o: Obj, where: string, map: FieldMap): DatasetItem | string {
  const conv = get(o, 'conversations', map);
  let turns: DatasetTurn[];
  const fields = fieldRefs(o);
  if (typeof fields === 'string') return fields;
  if (conv !== undefined) {
    const slots: MediaRef['kind'][][] = [];
    const t = shareGptTurns(conv, slots);
    if (typeof t === 'string') return t;
    turns = t;
    const bad = assignRefs(turns, slots, fields);
    if (bad) return bad;
  } else {
    const prompt = get(o, 'prompt', map);
    const msgs = get(o, 'messages', map);
    const system = get(o, 'system', map);
    let messages: ChatMessage[];
    const refs: MediaRef[] = [];
    if (msgs !== undefined && msgs !== '') {
      const m = parseMessages(msgs, refs);
      if (typeof m === 'string') return m;
      messages = m;
    } else if (typeof prompt === 'string' && prompt.trim() !== '') messages = [{ role: 'user', content: prompt }];
    else return prompt === undefined ? `needs a "${map.prompt ?? 'prompt'}" string or a "${map.messages ?? 'messages'}" array` : `"${map.prompt ?? 'prompt'}" must be a non-empty string`;
    if (typeof system === 'string' && system !== '') messages.unshift({ role: 'system', content: system });
    const last = messages[messages.length - 1];
    if (last.role === 'user') {
      const { text, kinds } = takePlaceholders(last.content);
      if (kinds.length) messages[messages.length - 1] = { ...last, content: text };
    }
    turns = [{ messages }];
    refs.push(...fields);
    if (refs.length) turns[0].mediaRefs = refs;
  }
  const maxTokens = positiveInt(get(o, 'max_tokens', map), map.max_tokens ?? 'max_tokens');
  if (typeof maxTokens === 'string') return maxTokens;
  const outTokens = positiveInt(get(o, 'output_tokens', map), map.output_tokens ?? 'output_tokens');
  if (typeof outTokens === 'string') return outTokens;
  const turnMax = maxTokens ?? outTokens;
  if (turnMax !== undefined) for (const t of turns) t.maxTokens = turnMax;
  const cls = get(o, 'class', map);
  if (cls !== undefined && cls !== '' && typeof cls !== 'string') return `class must be a string`;
  const session = get(o, 'session', map);
  if (session !== undefined && session !== '' && typeof session !== 'string' && typeof session !== 'number') return 'session must be a string or number';
  const user = get(o, 'user', map);
  if (user !== undefined && user !== '' && typeof user !== 'string' && typeof user !== 'number') return 'user must be a string or number';
  const priority = dataPriority(get(o, 'priority', map), map.priority ?? 'priority');
  if (typeof priority === 'string') return priority;
  const item: DatasetItem = { source: where, turns };
  if (priority !== undefined) item.priority = priority;
  if (typeof cls === 'string' && cls !== '') item.class = cls;
  // A user id is a label: at most 128 characters, controls stripped (it reaches the terminal and report).
  if (user !== undefined && user !== '') item.user = String(user).replace(/[\x00-\x1f\x7f]/g, '').slice(0, 128);
  if (session !== undefined && session !== '') item.session = String(session);
  return item;
}

/**
 * Give a conversation's media fields to its turns: each `<image>`/`<audio>`/`<video>` placeholder takes the next
 * media of its kind; media without a placeholder go with the first turn.
 */
function assignRefs(turns: DatasetTurn[], slots: MediaRef['kind'][][], refs: MediaRef[]): string | undefined {
  const left = [...refs];
  for (let t = 0; t < turns.length; t++) {
    for (const kind of slots[t]) {
      const i = left.findIndex((r) => r.kind === kind);
      if (i < 0) return `turn ${t + 1} has a <${kind}> placeholder but the record has no ${kind} left for it`;
      (turns[t].mediaRefs ??= []).push(left.splice(i, 1)[0]);
    }
  }
  if (left.length) turns[0].mediaRefs = [...left, ...(turns[0].mediaRefs ?? [])];
  return undefined;
}

/** The `turn` ordering key of a session record; undefined when absent, NaN when bad. */
export function turnIndex(o: Obj, map: FieldMap): number | undefined {
  const v = get(o, 'turn', map);
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : NaN;
}
