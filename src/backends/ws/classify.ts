// Classify one WebSocket message by the configured JSON-pointer mapping: heartbeat, error, reasoning, answer, usage, end.
import type { ChunkInfo } from '../backend.js';
import type { UsageReport } from '../usage.js';
import type { Matcher, WebSocketConfig } from './config.js';
import { getPointer } from './pointer.js';

/** What one message carried; `done` ends the request (a message may carry text or usage and end it too). */
export interface WsChunk extends ChunkInfo {
  done: boolean;
}

/** The value a matcher reads from `doc`: undefined when a condition fails or the pointer is absent (or null/false). */
function read(m: Matcher | null, doc: unknown): unknown {
  if (!m) return undefined;
  for (const [p, v] of m.when) if (getPointer(doc, p) !== v) return undefined;
  if (!m.pointer) return true;
  const v = getPointer(doc, m.pointer);
  return v === null || v === false ? undefined : v;
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

function errorText(e: unknown): string {
  if (typeof e === 'string') return e;
  if (e && typeof e === 'object' && typeof (e as { message?: unknown }).message === 'string') return (e as { message: string }).message;
  return JSON.stringify(e) ?? 'error';
}

/** One classifier per run, built from the config; called once per message on the hot path. */
export function wsClassifier(c: WebSocketConfig): (data: string) => WsChunk {
  const hasUsage = c.inputTokens || c.outputTokens;
  return (data) => {
    const info: WsChunk = { kind: 'x', reasoning: '', answer: '', usage: null, finishReason: null, error: null, done: false };
    let doc: unknown;
    try {
      doc = JSON.parse(data);
    } catch {
      info.error = `malformed JSON in WebSocket message: ${data.slice(0, 120)}`;
      // Fails its request at once (E_WS_PARSE), not after --timeout: a server speaking another protocol rarely
      // sends the end message tokenflood waits for (issue 25 item 27).
      info.done = true;
      return info;
    }
    if (read(c.heartbeat, doc) !== undefined) {
      info.kind = 'h';
      return info;
    }
    const err = read(c.error, doc);
    if (err !== undefined) {
      info.kind = 'e';
      info.error = errorText(err);
      info.done = true; // an error message ends the request: nothing after it is measured
      return info;
    }
    const reasoning = read(c.reasoning, doc);
    const answer = read(c.answer, doc);
    info.reasoning = text(reasoning);
    info.answer = text(answer);
    if (hasUsage) {
      const u: UsageReport = {
        prompt_tokens: read(c.inputTokens, doc),
        completion_tokens: read(c.outputTokens, doc),
        reasoning_tokens: read(c.reasoningTokens, doc),
        cached_tokens: read(c.cachedTokens, doc),
      };
      if (u.prompt_tokens !== undefined || u.completion_tokens !== undefined) info.usage = u;
    }
    info.done = read(c.done, doc) !== undefined;
    if (info.answer) info.kind = 'a';
    else if (info.reasoning) info.kind = 'R';
    else if (info.usage) info.kind = 'u';
    else if (info.done) info.kind = 'd';
    // The text field is there but empty (a role-only first chunk): `r`, as for chat.
    else if (typeof answer === 'string' || typeof reasoning === 'string') info.kind = 'r';
    return info;
  };
}
