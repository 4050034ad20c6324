// Speculative decoding: expected tokens per step from the acceptance rate, and the cost of drafting and verifying.
import type { SpecDecodeSpec } from './features.js';

/**
 * Expected tokens one sequence emits per step with K draft tokens each accepted i.i.d. with probability a:
 * Σ_{i=0..K} a^i = (1 − a^(K+1)) / (1 − a) (the accepted run plus the target's own next token).
 */
export function expectedTokensPerStep(acceptance: number, k: number): number {
  if (acceptance <= 0) return 1;
  return (1 - Math.pow(acceptance, k + 1)) / (1 - acceptance);
}

/**
 * vLLM's acceptance rate: accepted draft tokens / proposed draft tokens = (tokensPerStep − 1) / K.
 * (Lower than the per-token a, since a rejection discards the rest of the draft.)
 */
export function draftAcceptanceRate(acceptance: number, k: number): number {
  return (expectedTokensPerStep(acceptance, k) - 1) / k;
}

/**
 * Deterministic token emission per sequence: each decode step adds the expected tokens per step to a running sum and
 * emits its integer part, so a long output averages exactly (1 − a^(K+1)) / (1 − a) tokens per step, with no draw.
 */
export function createAcceptance(s: SpecDecodeSpec): (carry: number) => { tokens: number; carry: number } {
  const perStep = expectedTokensPerStep(s.acceptance, s.tokens);
  return (carry) => {
    const sum = carry + perStep;
    const tokens = Math.floor(sum + 1e-9);
    return { tokens, carry: sum - tokens };
  };
}

/**
 * Draft cost of one step: K draft steps, each `draftCost` times the target's decode step over the same sequences
 * (`decodeStepMs`); n-gram lookup has draftCost 0.
 */
export function draftMs(s: SpecDecodeSpec, decodeStepMs: number): number {
  return s.tokens * s.draftCost * decodeStepMs;
}

/** Counters of a run (engine.counters()) → the summary's speculative-decoding figures (vLLM's definitions). */
export function specDecodeStats(c: { specDrafts: number; specDraftTokens: number; specAcceptedTokens: number }): Record<string, number> {
  return {
    num_drafts: c.specDrafts,
    num_draft_tokens: c.specDraftTokens,
    num_accepted_tokens: c.specAcceptedTokens,
    // accepted / proposed draft tokens
    acceptance_rate: c.specDraftTokens > 0 ? c.specAcceptedTokens / c.specDraftTokens : 0,
    // 1 + accepted / drafts: tokens a sequence emits per decode step
    mean_accepted_tokens_per_step: c.specDrafts > 0 ? 1 + c.specAcceptedTokens / c.specDrafts : 0,
  };
}
