// What the protocol backends other than OpenAI chat share (native engines, Responses, Messages): a blank ChunkInfo, JSON parsing, error text.
import type { BodyOptions, ChunkInfo } from './backend.js';
import type { RequestSpec } from '../dataset/types.js';

export type Json = Record<string, unknown>;

export const blankInfo = (): ChunkInfo => ({ kind: 'x', reasoning: '', answer: '', usage: null, finishReason: null, error: null, server: null });

export const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export const obj = (v: unknown): Json | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : null);

/** Parse one event's JSON object; on failure the info says so (a parse_error of the request, never a throw). */
export function parseObject(data: string, info: ChunkInfo): Json | null {
  let v: unknown;
  try {
    v = JSON.parse(data);
  } catch {
    info.error = `malformed JSON in stream: ${data.slice(0, 120)}`;
    return null;
  }
  return obj(v);
}

/** The `error` of an error object, as text: `{"error":"…"}` (ollama, TGI, Triton) or `{"error":{"message":…}}`. */
export function errorOf(o: Json): string | null {
  const e = o.error;
  if (e === undefined || e === null) return null;
  if (typeof e === 'string') return e;
  const m = obj(e)?.message;
  return typeof m === 'string' ? m : JSON.stringify(e);
}

/**
 * Start classifying one event: a blank info and the event's JSON object; the object is null when the event was
 * malformed or an error object, and the info then says which (kind `e` with the error's text).
 */
export function openEvent(data: string): { info: ChunkInfo; o: Json | null } {
  const info = blankInfo();
  const o = parseObject(data, info);
  if (!o) return { info, o: null };
  const err = errorOf(o);
  if (err === null) return { info, o };
  info.kind = 'e';
  info.error = err;
  return { info, o: null };
}

/** Kind of an event from what it carried: answer, reasoning, usage/timings only, or `fallback`. */
export function kindOf(info: ChunkInfo, fallback: ChunkInfo['kind']): ChunkInfo['kind'] {
  if (info.answer) return 'a';
  if (info.reasoning) return 'R';
  if (info.usage || info.server) return 'u';
  return fallback;
}

/** The data of an SSE `event: error`, or an error line: an error whatever its shape. */
export function errorEvent(data: string): ChunkInfo {
  const info = blankInfo();
  info.kind = 'e';
  let o: Json | null = null;
  try {
    o = obj(JSON.parse(data));
  } catch {
    /* plain text */
  }
  info.error = ((o && errorOf(o)) ?? data).trim() || 'event: error with no message';
  return info;
}

/** Sampling options under the names most native engines share (llama.cpp, TGI, Triton); the caller renames where needed. */
/**
 * vLLM/SGLang's extensions that make an output exactly max_tokens long, sent with --ignore-eos (the default), never
 * for a graded eval item (spec.natural), which must stop on its own.
 */
export function eosExtensions(spec: RequestSpec, o: BodyOptions): Json {
  return o.ignoreEos && !spec.natural ? { ignore_eos: true, min_tokens: spec.maxTokens } : {};
}

export function sampling(o: { temperature?: number; topP?: number; topK?: number; seed?: number }): Json {
  const out: Json = {};
  if (o.temperature !== undefined) out.temperature = o.temperature;
  if (o.topP !== undefined) out.top_p = o.topP;
  if (o.topK !== undefined) out.top_k = o.topK;
  if (o.seed !== undefined) out.seed = o.seed;
  return out;
}
