// What every sim protocol writer provides (src/sim/http/wire.ts), and the typed SSE event the Responses and Messages writers share.
import type { Finish, Usage } from './chunks.js';

export type Field = 'content' | 'reasoning_content';

/** One session's writer; it may keep state (the open content block). Every method returns SSE text ('' for nothing). */
export interface Wire {
  /** Before the first token chunk (chat's role event, response.created, message_start); `cached` prompt tokens are known by then. */
  start(cached: number): string;
  /** One chunk of text; `finish` set on the last chunk (OpenAI carries it there, the others at the end). */
  delta(text: string, field: Field, finish: Finish): string;
  /** After the last token: usage (null when not asked for) and the end-of-stream events. */
  end(u: Usage | null, finish: 'length' | 'stop'): string;
  /** A non-streamed response body. */
  whole(reasoning: string | null, content: string, finish: 'length' | 'stop', u: Usage): unknown;
  /** What the heartbeat fault writes. */
  readonly heartbeat: string;
}

/** An SSE event with an `event:` line, as the typed protocols send them. */
export const typedEvent = (obj: { type: string; [k: string]: unknown }): string => `event: ${obj.type}\ndata: ${JSON.stringify(obj)}\n\n`;
