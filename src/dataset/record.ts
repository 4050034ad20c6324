// One dataset record (a JSONL line, a CSV row or a ShareGPT conversation) → a DatasetItem, or the reason it is bad.
import type { ChatMessage } from './types.js';
import type { DatasetItem, DatasetTurn, FieldKey, FieldMap } from './items.js';

type Obj = Record<string, unknown>;

/** The record's value for a canonical key, through the --dataset-field mapping (and `conversation` for `session`). */
function get(o: Obj, key: FieldKey, map: FieldMap): unknown {
  const name = map[key];
  if (name !== undefined) return o[name];
  if (key === 'session') return o.session ?? o.session_id ?? o.conversation ?? o.conversation_id;
  if (key === 'output_tokens') return o.output_tokens ?? o.output_len ?? o.output_length;
  return o[key];
}

const ROLES = new Set(['system', 'user', 'assistant']);

/** OpenAI message content: a string, or an array of parts whose text parts are joined. */
function contentText(c: unknown): string | undefined {
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) {
    const texts = c.map((p) => (p && typeof p === 'object' && typeof (p as Obj).text === 'string' ? ((p as Obj).text as string) : undefined));
    if (texts.every((t) => t !== undefined)) return texts.join('');
  }
  return undefined;
}

function parseMessages(v: unknown): ChatMessage[] | string {
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
  for (let i = 0; i < arr.length; i++) {
    const m = arr[i] as Obj;
    const content = m && typeof m === 'object' ? contentText(m.content) : undefined;
    if (!m || typeof m !== 'object' || !ROLES.has(String(m.role)) || content === undefined)
      return `messages[${i}] needs a role (system, user or assistant) and text content`;
    out.push({ role: m.role as ChatMessage['role'], content });
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

/** A ShareGPT conversation: `[{from: 'human'|'gpt'|'system', value}]` → turns (each human message, answered by the next gpt one). */
function shareGptTurns(conv: unknown): DatasetTurn[] | string {
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
      messages.push({ role: 'user', content: value });
      turns.push({ messages });
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
  if (conv !== undefined) {
    const t = shareGptTurns(conv);
    if (typeof t === 'string') return t;
    turns = t;
  } else {
    const prompt = get(o, 'prompt', map);
    const msgs = get(o, 'messages', map);
    const system = get(o, 'system', map);
    let messages: ChatMessage[];
    if (msgs !== undefined && msgs !== '') {
      const m = parseMessages(msgs);
      if (typeof m === 'string') return m;
      messages = m;
    } else if (typeof prompt === 'string' && prompt.trim() !== '') messages = [{ role: 'user', content: prompt }];
    else return prompt === undefined ? `needs a "${map.prompt ?? 'prompt'}" string or a "${map.messages ?? 'messages'}" array` : `"${map.prompt ?? 'prompt'}" must be a non-empty string`;
    if (typeof system === 'string' && system !== '') messages.unshift({ role: 'system', content: system });
    turns = [{ messages }];
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
  const item: DatasetItem = { source: where, turns };
  if (typeof cls === 'string' && cls !== '') item.class = cls;
  if (session !== undefined && session !== '') item.session = String(session);
  return item;
}

/** The `turn` ordering key of a session record; undefined when absent, NaN when bad. */
export function turnIndex(o: Obj, map: FieldMap): number | undefined {
  const v = get(o, 'turn', map);
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : NaN;
}
