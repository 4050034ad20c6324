// Response bodies shaped exactly as vLLM's OpenAI server writes them (stream chunks and whole responses).
import type { EndpointKind } from './parse.js';

export interface Usage {
  prompt_tokens: number;
  total_tokens: number;
  completion_tokens: number;
  /** image_tokens / audio_tokens only when the prompt had images (or video) / audio. */
  prompt_tokens_details: { cached_tokens: number; image_tokens?: number; audio_tokens?: number };
  completion_tokens_details: { reasoning_tokens: number };
}

export function usage(promptTokens: number, completionTokens: number, cachedTokens: number, reasoningTokens: number, media: { image_tokens?: number; audio_tokens?: number } = {}): Usage {
  return {
    prompt_tokens: promptTokens,
    total_tokens: promptTokens + completionTokens,
    completion_tokens: completionTokens,
    prompt_tokens_details: { cached_tokens: cachedTokens, ...media },
    completion_tokens_details: { reasoning_tokens: reasoningTokens },
  };
}

/** Fields shared by every chunk and response of one request. */
export interface ResponseIdentity {
  id: string;
  created: number;
  model: string;
}

export type Finish = 'length' | 'stop' | null;

const sse = (obj: unknown): string => `data: ${JSON.stringify(obj)}\n\n`;
export const SSE_DONE = 'data: [DONE]\n\n';

export function chatRoleEvent(r: ResponseIdentity): string {
  return sse({ id: r.id, object: 'chat.completion.chunk', created: r.created, model: r.model, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }] });
}

/** One token chunk; `field` is content or reasoning_content for chat, ignored for completions. */
export function tokenEvent(kind: EndpointKind, r: ResponseIdentity, text: string, field: 'content' | 'reasoning_content', finish: Finish): string {
  const end = finish ? { finish_reason: finish, stop_reason: null } : { finish_reason: null };
  if (kind === 'chat')
    return sse({ id: r.id, object: 'chat.completion.chunk', created: r.created, model: r.model, choices: [{ index: 0, delta: { [field]: text }, logprobs: null, ...end }] });
  return sse({ id: r.id, object: 'text_completion', created: r.created, model: r.model, choices: [{ index: 0, text, logprobs: null, ...end, ...(finish ? {} : { stop_reason: null }) }] });
}

export function usageEvent(kind: EndpointKind, r: ResponseIdentity, u: Usage): string {
  return sse({ id: r.id, object: kind === 'chat' ? 'chat.completion.chunk' : 'text_completion', created: r.created, model: r.model, choices: [], usage: u });
}

/** The truncated event the `malformed` fault sends. */
export function malformedEvent(r: ResponseIdentity): string {
  return `data: {"id":"${r.id}","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"\n\n`;
}

export function wholeResponse(kind: EndpointKind, r: ResponseIdentity, reasoning: string | null, content: string, finish: 'length' | 'stop', u: Usage): unknown {
  if (kind === 'chat')
    return {
      id: r.id, object: 'chat.completion', created: r.created, model: r.model,
      choices: [{ index: 0, message: { role: 'assistant', reasoning_content: reasoning, content, tool_calls: [] }, logprobs: null, finish_reason: finish, stop_reason: null }],
      usage: u, prompt_logprobs: null,
    };
  return {
    id: r.id, object: 'text_completion', created: r.created, model: r.model,
    choices: [{ index: 0, text: content, logprobs: null, finish_reason: finish, stop_reason: null, prompt_logprobs: null }],
    usage: u,
  };
}
