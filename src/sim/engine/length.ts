// How many tokens a request generates: exactly max_tokens with ignore_eos, else a seeded "natural" length.
import type { Rng } from '../../util/rng.js';

/** Median and spread of the natural (EOS) length: log-normal, median 200 tokens, σ = 0.8 in log space. */
export const NATURAL_MEDIAN_TOKENS = 200;
export const NATURAL_SIGMA = 0.8;

export interface LengthRequest {
  maxTokens: number;
  minTokens?: number;
  ignoreEos?: boolean;
}

export interface LengthDecision {
  outputTokens: number;
  /** "length" when max_tokens cut generation, "stop" when the model reached EOS. */
  finishReason: 'length' | 'stop';
}

/** ignore_eos → max_tokens; otherwise min(natural, max_tokens), at least min_tokens. */
export function decideOutputTokens(rng: Rng, r: LengthRequest): LengthDecision {
  const max = Math.max(1, r.maxTokens);
  if (r.ignoreEos) return { outputTokens: max, finishReason: 'length' };
  const natural = Math.max(1, Math.round(NATURAL_MEDIAN_TOKENS * Math.exp(NATURAL_SIGMA * rng.normal())));
  const n = Math.min(max, Math.max(natural, r.minTokens ?? 0));
  return { outputTokens: n, finishReason: n >= max && natural >= max ? 'length' : 'stop' };
}
