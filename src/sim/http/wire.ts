// How a sim session writes one protocol: the events before, between and after its tokens, and a whole response.
import { chatRoleEvent, SSE_DONE, tokenEvent, usageEvent, wholeResponse, type ResponseIdentity } from './chunks.js';
import type { EndpointKind } from './parse.js';
import { responsesWire } from './wire-responses.js';
import { messagesWire } from './wire-messages.js';
import type { Wire } from './wire-types.js';

export type { Field, Wire } from './wire-types.js';

/** The protocols the sim speaks, routed by path: OpenAI chat/completions, OpenAI Responses, Anthropic Messages. */
export type Protocol = 'openai' | 'responses' | 'messages';

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

