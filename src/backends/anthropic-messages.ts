// The Anthropic Messages protocol (POST /messages): x-api-key auth, typed SSE events, usage split over message_start and message_delta.
import type { Backend, BodyOptions, ChunkInfo } from './backend.js';
import type { RequestSpec } from '../dataset/types.js';
import type { UsageReport } from './usage.js';
import { classifyErrorEvent, errorText, sseEventObject } from './openai-common.js';
import { anthropicParts, onLastUser } from './media-content.js';
import { blankInfo, eosExtensions, obj, sampling, str, type Json } from './native-common.js';

/** The API version sent unless a --header anthropic-version overrides it. */
export const ANTHROPIC_VERSION = '2023-06-01';


/**
 * The body: system messages become `system` (Messages takes no system role), the rest `messages`; max_tokens is
 * required. The vLLM/SGLang extensions as for chat (--no-ignore-eos for Anthropic's own API); no seed in this protocol.
 */
export function messagesBody(spec: RequestSpec, o: BodyOptions): Record<string, unknown> {
  const system = spec.messages.filter((m) => m.role === 'system');
  const body: Record<string, unknown> = { model: o.model, max_tokens: spec.maxTokens, stream: o.stream, messages: onLastUser(spec.messages.filter((m) => m.role !== 'system'), (t) => (spec.media?.length ? anthropicParts(t, spec.media) : t)) };
  if (system.length) body.system = system.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n\n');
  const { seed: _seed, ...sampled } = sampling(o);
  Object.assign(body, eosExtensions(spec, o), sampled);
  if (o.extraBody) Object.assign(body, o.extraBody);
  return body;
}

const isNum = (v: unknown): v is number => typeof v === 'number';

/**
 * An Anthropic `usage` as the common report. prompt_tokens = input_tokens + cache_read_input_tokens +
 * cache_creation_input_tokens (Anthropic's input_tokens leaves out cached tokens); cached_tokens = cache_read_input_tokens.
 * `withOutput` false for message_start, whose output_tokens is a placeholder, not a count.
 */
export function anthropicUsage(u: unknown, withOutput: boolean): UsageReport | null {
  const o = obj(u);
  if (!o) return null;
  const input = o.input_tokens;
  const read = o.cache_read_input_tokens;
  const made = o.cache_creation_input_tokens;
  const prompt = isNum(input) && (read == null || isNum(read)) && (made == null || isNum(made)) ? input + (read ?? 0) + (made ?? 0) : input;
  return { prompt_tokens: prompt, completion_tokens: withOutput ? o.output_tokens : undefined, reasoning_tokens: undefined, cached_tokens: read };
}

/** stop_reason as finish_reason: end_turn and stop_sequence → stop, max_tokens → length, others as sent. */
function finishOf(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  return v === 'end_turn' || v === 'stop_sequence' ? 'stop' : v === 'max_tokens' ? 'length' : v;
}

/** A content block's text: text → answer, thinking → reasoning. */
function blockText(info: ChunkInfo, b: Json): void {
  info.answer += str(b.text);
  info.reasoning += str(b.thinking);
}

/**
 * Classify one event: message_start → r (input tokens), content_block_delta text_delta → answer, thinking_delta →
 * reasoning (signature and tool-input deltas → r), message_delta → u (output tokens, stop_reason), message_stop → end
 * of stream, ping or an empty event → heartbeat, error → error. A body with `type: "message"` is a whole non-streamed response.
 */
export function classifyMessagesData(data: string, event?: string): ChunkInfo {
  const info = blankInfo();
  const o = sseEventObject(data, info);
  if (!o) return info;
  switch (str(o.type) || (event ?? '')) {
    case 'ping':
      info.kind = 'h';
      return info;
    case 'message_start':
      info.kind = 'r';
      info.usage = anthropicUsage(obj(o.message)?.usage, false);
      return info;
    case 'content_block_start':
    case 'content_block_delta': {
      const b = obj(o.delta) ?? obj(o.content_block);
      if (b) blockText(info, b);
      info.kind = info.answer ? 'a' : info.reasoning ? 'R' : 'r';
      return info;
    }
    case 'content_block_stop':
      info.kind = 'r';
      return info;
    case 'message_delta':
      info.usage = anthropicUsage(o.usage, true);
      info.finishReason = finishOf(obj(o.delta)?.stop_reason);
      info.kind = info.usage ? 'u' : 'r';
      return info;
    case 'message_stop':
      info.kind = 'd';
      info.ended = true;
      return info;
    case 'error':
      info.kind = 'e';
      info.error = errorText(o.error ?? o);
      return info;
    case 'message': {
      // Non-streamed: the whole message at once.
      if (Array.isArray(o.content)) for (const b of o.content) if (obj(b)) blockText(info, b as Json);
      info.usage = anthropicUsage(o.usage, true);
      info.finishReason = finishOf(o.stop_reason);
      info.kind = info.answer ? 'a' : info.reasoning ? 'R' : info.usage ? 'u' : 'x';
      return info;
    }
  }
  return info;
}

export const anthropicMessages: Backend = {
  kind: 'anthropic-messages',
  media: ['image'],
  path: '/messages',
  endpoint: 'chat',
  buildBody: messagesBody,
  classifyData: classifyMessagesData,
  classifyErrorEvent,
  endEvent: 'message_stop',
  authHeaders: (apiKey) => ({ ...(apiKey ? { 'x-api-key': apiKey } : {}), 'anthropic-version': ANTHROPIC_VERSION }),
};
