// Server-side timings a native engine API reports per request (ollama, llama.cpp, TGI): kept as `server_*` record fields.
import { saneNumber, type ServerNumberKind } from '../util/server-number.js';

/**
 * What the server said about one request, converted to ms and counts; a field is absent when the protocol does
 * not report it. Never used to derive TTFT/ITL (those are the client's own clock): a second opinion beside them.
 */
export interface ServerTimings {
  /** Prompt tokens the server evaluated (ollama prompt_eval_count, llama.cpp timings.prompt_n, TGI details.input_length). */
  server_prompt_tokens: number;
  /** Time the server spent on the prompt (prefill), ms (ollama prompt_eval_duration / 1e6, llama.cpp timings.prompt_ms). */
  server_prompt_eval_ms: number;
  /** Output tokens the server generated (ollama eval_count, llama.cpp timings.predicted_n, TGI details.generated_tokens). */
  server_eval_tokens: number;
  /** Time the server spent generating them (decode), ms (ollama eval_duration / 1e6, llama.cpp timings.predicted_ms). */
  server_eval_ms: number;
  /** Time spent loading the model for this request, ms (ollama load_duration / 1e6). */
  server_load_ms: number;
  /** The server's whole time for the request, ms (ollama total_duration / 1e6). */
  server_total_ms: number;
  /** Prompt tokens the server reused from its cache (llama.cpp timings.cache_n). */
  server_cached_tokens: number;
  /** Prefill speed as the server reports it, tokens/s (llama.cpp timings.prompt_per_second; else prompt_tokens / prompt_eval_ms). */
  server_prompt_per_s: number;
  /** Decode speed as the server reports it, tokens/s (llama.cpp timings.predicted_per_second; else eval_tokens / eval_ms). */
  server_predicted_per_s: number;
}

export type ServerTimingField = keyof ServerTimings;

/** Every server_* field, in the order records and summaries list them. */
export const SERVER_TIMING_FIELDS: readonly ServerTimingField[] = [
  'server_prompt_tokens', 'server_prompt_eval_ms', 'server_eval_tokens', 'server_eval_ms', 'server_load_ms', 'server_total_ms',
  'server_cached_tokens', 'server_prompt_per_s', 'server_predicted_per_s',
];

/** A server value kept only when it is a finite, non-negative number (server text is untrusted). */
export const serverNumber = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined);

/** ns → ms (ollama reports durations in nanoseconds). */
export const nsToMs = (v: unknown): number | undefined => {
  const n = serverNumber(v);
  return n === undefined ? undefined : n / 1e6;
};

/**
 * Fill the rates the server did not send from its counts and times: prompt_per_s = prompt_tokens / (prompt_eval_ms / 1000),
 * predicted_per_s = eval_tokens / (eval_ms / 1000); left absent when a time is 0 or missing.
 */
export function withRates(t: Partial<ServerTimings>): Partial<ServerTimings> {
  if (t.server_prompt_per_s === undefined && t.server_prompt_tokens !== undefined && t.server_prompt_eval_ms) {
    const r = t.server_prompt_tokens / (t.server_prompt_eval_ms / 1000);
    if (saneNumber('per_s', r)) t.server_prompt_per_s = r;
  }
  if (t.server_predicted_per_s === undefined && t.server_eval_tokens !== undefined && t.server_eval_ms) {
    const r = t.server_eval_tokens / (t.server_eval_ms / 1000);
    if (saneNumber('per_s', r)) t.server_predicted_per_s = r;
  }
  return t;
}

/** The range each field must be in (src/util/server-number.ts): a server_total_ms of 1e20 is dropped, as such usage is. */
const kindOf = (f: ServerTimingField): ServerNumberKind => (f.endsWith('_ms') ? 'ms' : f.endsWith('_per_s') ? 'per_s' : 'count');

/** Drop undefined entries and values out of their kind's range; null when nothing is left, so "no server timings" is one value. */
export function compactTimings(t: Partial<Record<ServerTimingField, number | undefined>>): Partial<ServerTimings> | null {
  const out: Partial<ServerTimings> = {};
  let any = false;
  for (const f of SERVER_TIMING_FIELDS) {
    const v = t[f];
    if (v !== undefined && saneNumber(kindOf(f), v)) {
      out[f] = v;
      any = true;
    }
  }
  return any ? out : null;
}
