// Which trace requests an open-loop replay sends: those within --max-model-len and a vendor API's separate caps.
import type { TraceRequest } from '../model.js';

export interface ReplayLimits {
  maxTokens?: number;
  maxModelLen?: number;
  maxInputTokens?: number;
  maxOutputTokens?: number;
}

/** max_tokens a trace request asks for: --max-tokens, else its recorded output_length (at least 1). */
export const maxTokensOf = (r: TraceRequest, o: ReplayLimits): number => o.maxTokens ?? Math.max(1, r.outputLength);

/**
 * Why a request is over --max-input-tokens / --max-output-tokens (its recorded input_length, its max_tokens), or
 * undefined. Named by the file and the request's 1-based position in it (a bad record, like a malformed line).
 */
export function capProblemOf(r: TraceRequest, o: ReplayLimits, path: string): string | undefined {
  if (o.maxInputTokens !== undefined && r.inputLength > o.maxInputTokens) return `${path}: request ${r.index + 1}: input_length ${r.inputLength} is over --max-input-tokens ${o.maxInputTokens}`;
  const out = maxTokensOf(r, o);
  if (o.maxOutputTokens !== undefined && out > o.maxOutputTokens) return `${path}: request ${r.index + 1}: max_tokens ${out} is over --max-output-tokens ${o.maxOutputTokens}`;
  return undefined;
}

/** Sent: within both caps and within --max-model-len (input + max_tokens). Pass one and the prompt worker agree on this. */
export function keepRequest(r: TraceRequest, o: ReplayLimits): boolean {
  if (o.maxInputTokens !== undefined && r.inputLength > o.maxInputTokens) return false;
  if (o.maxOutputTokens !== undefined && maxTokensOf(r, o) > o.maxOutputTokens) return false;
  return o.maxModelLen === undefined || r.inputLength + maxTokensOf(r, o) <= o.maxModelLen;
}
