// What the OpenAI-compatible protocols share: the common body fields, usage, and how streamed chunks are classified.
import type { RequestSpec } from '../dataset/types.js';
import type { BodyOptions, ChunkInfo } from './backend.js';
import type { UsageReport } from './usage.js';
import { eosExtensions, parseObject, sampling } from './native-common.js';
import { templateClassifier } from './chunk-scan.js';
import { syntheticTools } from './tools.js';

export type { BodyOptions, ChunkInfo } from './backend.js';
export type { Usage, UsageReport } from './usage.js';

/** The body fields both protocols send; the caller adds `messages` or `prompt`. Usage is always requested so token counts come from the server. */
export function commonBody(spec: RequestSpec, o: BodyOptions, prompt: Record<string, unknown>): Record<string, unknown> {
  const body: Record<string, unknown> = { model: o.model, max_tokens: spec.maxTokens, stream: o.stream, ...prompt };
  if (o.stream) body.stream_options = { include_usage: true };
  // --tools N (chat only): the definitions an agent sends; the model may answer with a tool call (counted as output).
  if (o.tools && 'messages' in prompt) Object.assign(body, { tools: syntheticTools(o.tools), tool_choice: 'auto' });
  Object.assign(body, eosExtensions(spec, o), sampling(o));
  if (o.extraBody) Object.assign(body, o.extraBody);
  // A request's own priority (data field or --priority-mix) wins over --extra-body's run-wide one (docs/workloads.md#request-priority).
  if (o.sendPriority !== false && spec.priority !== undefined) body.priority = spec.priority;
  return body;
}

type Json = Record<string, unknown>;
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The token counts of a `usage` object, as sent (nested details flattened). */
export function parseUsage(u: unknown): UsageReport | null {
  if (!u || typeof u !== 'object') return null;
  const o = u as Json;
  const ptd = o.prompt_tokens_details && typeof o.prompt_tokens_details === 'object' ? (o.prompt_tokens_details as Json) : null;
  const ctd = o.completion_tokens_details && typeof o.completion_tokens_details === 'object' ? (o.completion_tokens_details as Json) : null;
  return {
    prompt_tokens: o.prompt_tokens,
    completion_tokens: o.completion_tokens,
    reasoning_tokens: ctd?.reasoning_tokens,
    cached_tokens: ptd?.cached_tokens,
    image_tokens: ptd?.image_tokens,
    audio_tokens: ptd?.audio_tokens,
  };
}

function errorText(e: unknown): string {
  if (typeof e === 'string') return e;
  if (e && typeof e === 'object') {
    const m = (e as Json).message;
    if (typeof m === 'string') return m;
  }
  return JSON.stringify(e);
}

/** An empty event (`data:` with nothing, or `{}`): a gateway's keep-alive, carrying nothing. */
export const isKeepAlive = (data: string): boolean => {
  const t = data.trim();
  return t === '' || t === '{}';
};

/** A typed SSE event's JSON object; null with `info` already set for a keep-alive (kind h) or malformed JSON (error). */
export function sseEventObject(data: string, info: ChunkInfo): Json | null {
  if (isKeepAlive(data)) {
    info.kind = 'h';
    return null;
  }
  return parseObject(data, info);
}

/**
 * Classify one SSE data payload. Reasoning arrives as `delta.reasoning_content` (DeepSeek, SGLang,
 * llama.cpp, older vLLM) or `delta.reasoning` (newer vLLM, Ollama); completions stream `choices[].text`.
 * Usage may come alone (`choices: []`) or inline on the last chunk.
 */
export function classifyData(data: string): ChunkInfo {
  // `{` then anything but `}` can be neither `[DONE]` nor a keep-alive: skip trimming it.
  if (data.charCodeAt(0) !== 0x7b || data.charCodeAt(1) === 0x7d) {
    if (data === '[DONE]') return { kind: 'd', reasoning: '', answer: '', usage: null, finishReason: null, error: null };
    if (isKeepAlive(data)) return { kind: 'h', reasoning: '', answer: '', usage: null, finishReason: null, error: null };
  }
  return parseChunk(data);
}

/** classifyData for one stream: plain content chunks are read without building their JSON tree (chunk-scan.ts). */
export function streamClassifier(): (data: string) => ChunkInfo {
  return templateClassifier(classifyData);
}

/** classifyData's full parse of a payload that is neither `[DONE]` nor a keep-alive: JSON.parse, then the fields. */
export function parseChunk(data: string): ChunkInfo {
  const info: ChunkInfo = { kind: 'x', reasoning: '', answer: '', usage: null, finishReason: null, error: null };
  let obj: Json;
  try {
    obj = JSON.parse(data) as Json;
  } catch {
    info.error = `malformed JSON in stream: ${data.slice(0, 120)}`;
    return info;
  }
  if (!obj || typeof obj !== 'object') return info;
  // Some gateways put `"error": null` on every chunk: only a present error is one.
  if ((obj.error !== undefined && obj.error !== null) || obj.object === 'error') {
    info.kind = 'e';
    info.error = errorText(obj.error ?? obj);
    return info;
  }
  const choices = Array.isArray(obj.choices) ? (obj.choices as Json[]) : [];
  for (const c of choices) {
    if (!c || typeof c !== 'object') continue;
    const d = (c.delta ?? c.message) as Json | undefined;
    if (d && typeof d === 'object') {
      info.reasoning += str(d.reasoning_content) || str(d.reasoning);
      info.answer += str(d.content);
      // A tool call is generated text too: its name and argument deltas are the tokens (TTFT, ITL), never a role chunk.
      if (Array.isArray(d.tool_calls)) info.answer += toolCallText(d.tool_calls);
    }
    info.answer += str(c.text);
    if (typeof c.finish_reason === 'string') info.finishReason = c.finish_reason;
  }
  info.usage = parseUsage(obj.usage);
  if (info.answer) info.kind = 'a';
  else if (info.reasoning) info.kind = 'R';
  else if (choices.length > 0) info.kind = 'r';
  else if (info.usage) info.kind = 'u';
  return info;
}

/** The name and argument text of streamed (or whole) tool calls: `delta.tool_calls[].function.{name, arguments}`. */
function toolCallText(calls: unknown[]): string {
  let out = '';
  for (const t of calls) {
    const f = t && typeof t === 'object' ? ((t as Json).function as Json | undefined) : undefined;
    if (f && typeof f === 'object') out += str(f.name) + str(f.arguments);
  }
  return out;
}

/** The server's error text of an error object (`{"message":…}`, a string, or anything else as JSON). */
export { errorText };

/**
 * Classify the data of an SSE `event: error`: an error whatever its shape, carrying the server's message
 * (`{"error":{"message":…}}`, `{"message":…}`, or plain text).
 */
export function classifyErrorEvent(data: string): ChunkInfo {
  const info: ChunkInfo = { kind: 'e', reasoning: '', answer: '', usage: null, finishReason: null, error: null };
  let obj: unknown = data;
  try {
    obj = JSON.parse(data);
  } catch {
    /* plain text */
  }
  const e = obj && typeof obj === 'object' && (obj as Json).error !== undefined && (obj as Json).error !== null ? (obj as Json).error : obj;
  info.error = errorText(e).trim() || 'event: error with no message';
  return info;
}

/** Extract text, reasoning and usage from a non-streaming response body. */
export function parseCompleteResponse(body: string): ChunkInfo {
  return classifyData(body);
}
