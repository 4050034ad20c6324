// How a sim session writes one protocol: the events before, between and after its tokens, and a whole response.
import { chatRoleEvent, SSE_DONE, tokenEvent, usageEvent, wholeResponse, type Finish, type ResponseIdentity, type Usage } from './chunks.js';
import type { EndpointKind } from './parse.js';
import { responsesWire } from './wire-responses.js';
import { messagesWire } from './wire-messages.js';

/** The protocols the sim speaks, routed by path: OpenAI chat/completions, OpenAI Responses, Anthropic Messages. */
export type Protocol = 'openai' | 'responses' | 'messages';

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

function openaiWire(kind: EndpointKind, r: ResponseIdentity): Wire {
  return {
    start: () => (kind === 'chat' ? chatRoleEvent(r) : ''),
    delta: (text, field, finish) => tokenEvent(kind, r, text, field, finish),
    end: (u) => (u ? usageEvent(kind, r, u) : '') + SSE_DONE,
    whole: (reasoning, content, finish, u) => wholeResponse(kind, r, reasoning, content, finish, u),
    heartbeat: ': ping\n\n',
  };
}

export function createWire(protocol: Protocol, kind: EndpointKind, r: ResponseIdentity, promptTokens: number, includeUsage: boolean): Wire {
  if (protocol === 'responses') return responsesWire(r);
  if (protocol === 'messages') return messagesWire(r, promptTokens, includeUsage);
  return openaiWire(kind, r);
}

/** An SSE event with an `event:` line, as the typed protocols send them. */
export const typedEvent = (obj: { type: string; [k: string]: unknown }): string => `event: ${obj.type}\ndata: ${JSON.stringify(obj)}\n\n`;
