// What every sim protocol writer provides (src/sim/http/wire.ts), and the typed SSE event the Responses and Messages writers share.
import type { Usage } from './chunks.js';

export type Field = 'content' | 'reasoning_content';

/**
 * The engine's own view of one request, in simulated ms, from its step times: queue = admitted − arrived,
 * prompt_eval (prefill) = first token − admitted, eval (decode) = last token − first token, total = last token − arrived.
 * Native protocols report these, so tests can check that server_* fields are carried exactly.
 */
export interface SimTimings {
  queueMs: number;
  promptEvalMs: number;
  evalMs: number;
  totalMs: number;
}

/** What a response's last event reports: usage, the engine's timings and why it stopped. */
export interface WireEnd {
  usage: Usage;
  timings: SimTimings;
  finish: 'length' | 'stop';
}

/** One session's writer; it may keep state (the open content block). Every method returns body text ('' for nothing). */
export interface Wire {
  /** The streamed body's content type (text/event-stream, or application/x-ndjson for Ollama). */
  readonly contentType: string;
  /** Before the first token chunk (chat's role event, response.created, message_start); `cached` prompt tokens are known by then. */
  start(cached: number): string;
  /** One chunk of text; `last` set on the chunk that carries the final token (OpenAI puts finish_reason there). */
  delta(text: string, field: Field, last: WireEnd | null): string;
  /** After the last token: usage (when asked for) and the end-of-stream events, as the protocol has them. */
  end(e: WireEnd, includeUsage: boolean): string;
  /** A non-streamed response body. */
  whole(reasoning: string | null, content: string, e: WireEnd): unknown;
  /** What the heartbeat fault writes: a keep-alive the protocol's clients ignore. */
  readonly heartbeat: string;
}

/** An SSE event with an `event:` line, as the typed protocols send them. */
export const typedEvent = (obj: { type: string; [k: string]: unknown }): string => `event: ${obj.type}\ndata: ${JSON.stringify(obj)}\n\n`;
