// Which trace requests an open-loop replay sends: those within --max-model-len and a vendor API's separate caps.
import type { TraceRequest } from '../model.js';
import { capProblem } from '../../caps.js';

export interface ReplayLimits {
  maxTokens?: number;
  maxModelLen?: number;
  maxInputTokens?: number;
  maxOutputTokens?: number;
}

/** max_tokens a trace request asks for: --max-tokens, else its recorded output_length (at least 1). */
export const maxTokensOf = (r: TraceRequest, o: ReplayLimits): number => o.maxTokens ?? Math.max(1, r.outputLength);

/** Why a request is over --max-input-tokens / --max-output-tokens (its recorded input_length, its max_tokens), named by the file and its 1-based position. */
export function capProblemOf(r: TraceRequest, o: ReplayLimits, path: string): string | undefined {
  return capProblem(o, `${path}: request ${r.index + 1}`, r.inputLength, maxTokensOf(r, o), (n) => `input_length ${n}`);
}

/** Within --max-model-len (input + max_tokens), or no limit given. */
export const withinModelLen = (r: TraceRequest, o: ReplayLimits): boolean => o.maxModelLen === undefined || r.inputLength + maxTokensOf(r, o) <= o.maxModelLen;

/** Sent: within both caps and within --max-model-len. Pass one and the prompt worker agree on this. */
export function keepRequest(r: TraceRequest, o: ReplayLimits): boolean {
  return capProblemOf(r, o, '') === undefined && withinModelLen(r, o);
}
