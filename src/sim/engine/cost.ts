// Roofline step-time model: how long one engine step takes for a given batch shape (pure).
import { kvBytesForContext, type EngineSpec } from './config.js';
import { weightBytes } from './dtypes.js';
import { attentionFlopsPerPair } from './profile.js';

/** What one step computes, summed over the scheduled requests. */
export interface StepShape {
  /** Requests scheduled in the step. */
  requests: number;
  /** Tokens computed in the step (1 per decode, chunk length per prefill). */
  newTokens: number;
  /** KV tokens already cached that the step reads: Σ computed tokens of the scheduled requests. */
  contextTokens: number;
  /** Query-key pairs: Σ new·computed + new·(new+1)/2 (causal attention within the chunk). */
  attentionPairs: number;
}

export interface StepCost {
  flops: number;
  bytes: number;
  computeMs: number;
  memoryMs: number;
  commMs: number;
  overheadMs: number;
  /** max(computeMs, memoryMs) + commMs + overheadMs */
  totalMs: number;
}

/**
 * Expected distinct experts touched in one MoE layer when `tokens` tokens each pick `k` of `experts`,
 * assuming uniform independent routing: E·(1 − (1 − k/E)^T). Batch 1 → k; large batches → E.
 */
export function expectedExpertsTouched(experts: number, k: number, tokens: number): number {
  if (experts <= 1) return 1;
  return experts * (1 - Math.pow(1 - Math.min(k, experts) / experts, Math.max(1, tokens)));
}

/** Weight bytes one GPU reads in a step that computes `newTokens` tokens. */
export function weightBytesReadPerGpu(spec: EngineSpec, newTokens: number): number {
  const experts = spec.model.experts ?? 1;
  if (experts <= 1) return spec.weightBytesPerGpu;
  const touched = expectedExpertsTouched(experts, spec.model.expertsPerToken ?? 1, newTokens);
  return weightBytes(spec.params, spec.weightDtype, touched / experts) / spec.tp;
}

/**
 * FLOPs = (2·activeParams·newTokens + attentionFlopsPerPair·attentionPairs) / tp;
 * bytes = weights touched + requests · kvBytesForContext((contextTokens + newTokens) / requests);
 * time = max(FLOPs / (peak·mfu), bytes / (hbm·bwEff)) + TP all-reduce + overheads.
 */
export function stepCost(spec: EngineSpec, s: StepShape): StepCost {
  const m = spec.model;
  const flops =
    (2 * spec.params.activePerToken * s.newTokens + attentionFlopsPerPair(m) * s.attentionPairs) / spec.tp;
  // Sliding layers cap each request's KV at the window: requests · KV(mean context) (exact for equal contexts).
  const bytes = weightBytesReadPerGpu(spec, s.newTokens) + (s.requests > 0 ? s.requests * kvBytesForContext(spec, (s.contextTokens + s.newTokens) / s.requests) : 0);
  const computeMs = (flops / spec.flopsPerSec) * 1000;
  const memoryMs = (bytes / spec.bytesPerSec) * 1000;
  let commMs = 0;
  if (spec.tp > 1) {
    // Two ring all-reduces per layer (after attention and after the MLP) of newTokens·hidden BF16 activations.
    const msgBytes = (s.newTokens * m.hidden * 2 * 2 * (spec.tp - 1)) / spec.tp;
    commMs = 2 * m.layers * (spec.gpu.linkLatencyUs / 1000 + (msgBytes / (spec.gpu.linkGBps * 1e9)) * 1000);
  }
  const overheadMs = spec.stepOverheadMs + m.layers * spec.layerOverheadMs + s.requests * spec.requestOverheadMs;
  return { flops, bytes, computeMs, memoryMs, commMs, overheadMs, totalMs: Math.max(computeMs, memoryMs) + commMs + overheadMs };
}

/** Shape of one decode step for `batch` requests each holding `contextTokens` tokens. */
export function decodeShape(batch: number, contextTokens: number): StepShape {
  return { requests: batch, newTokens: batch, contextTokens: batch * contextTokens, attentionPairs: batch * (contextTokens + 1) };
}

/** Shape of a prefill of `tokens` fresh tokens (one request, one step, no cache). */
export function prefillShape(tokens: number): StepShape {
  return { requests: 1, newTokens: tokens, contextTokens: 0, attentionPairs: (tokens * (tokens + 1)) / 2 };
}
