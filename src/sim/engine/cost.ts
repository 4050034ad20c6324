// Step-time model: how long one engine step takes for a given batch shape (pure). Linear layers and attention are
// separate kernels, each on its own roofline; TP all-reduce (comm.ts), MoE (moe.ts) and fixed overheads add.
import { kvBytesForTokens, type EngineSpec } from './config.js';
import { epLoadFactor, parallelCommMs } from './parallel.js';
import { weightBytes } from './dtypes.js';
import { expectedExpertsTouched, expertImbalance, moeRoutingMs } from './moe.js';
import { attentionFlopsPerPair } from './profile.js';

export { expectedExpertsTouched } from './moe.js';

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
  /** FLOPs / effective FLOP/s (linear + attention). */
  computeMs: number;
  /** bytes / effective byte/s (weights + KV). */
  memoryMs: number;
  /** Linear layers: max(compute, weight reads). */
  linearMs: number;
  /** Attention: max(compute, KV reads) + per-sequence kernel cost. */
  attentionMs: number;
  commMs: number;
  /** MoE routing. */
  moeMs: number;
  overheadMs: number;
  /** linearMs + attentionMs + commMs + moeMs + overheadMs */
  totalMs: number;
}

/** Weight bytes one GPU reads in a step that computes `newTokens` tokens. */
export function weightBytesReadPerGpu(spec: EngineSpec, newTokens: number): number {
  const experts = spec.model.experts ?? 1;
  if (experts <= 1) return spec.weightBytesPerGpu;
  // Every rank's tokens reach the experts (by all-reduce or all-to-all), so the experts touched are the step's.
  const touched = expectedExpertsTouched(experts, spec.model.expertsPerToken ?? 1, newTokens);
  // What is not split over TP (attention replicated by --dp-attention) is read whole.
  const replicated = Math.max(0, spec.weightBytesPerGpu - weightBytes(spec.params, spec.weightDtype) / spec.tp);
  return weightBytes(spec.params, spec.weightDtype, touched / experts) / spec.tp + replicated;
}

/**
 * KV bytes one GPU reads for `requests` sequences of mean context `ctx`: every sequence's share of the heads under
 * TP (the whole MLA latent on every rank); with DP attention each GPU reads the whole KV of its 1/tp of the sequences.
 */
export function kvReadBytesPerGpu(spec: EngineSpec, requests: number, ctx: number): number {
  if (requests <= 0) return 0;
  if (spec.dpAttention) return (requests * kvBytesForTokens(spec.model, spec.kvDtype, 1, ctx)) / spec.tp;
  return requests * kvBytesForTokens(spec.model, spec.kvDtype, spec.tp, ctx);
}

/** Linear-layer FLOPs per GPU: 2·params·tokens, the experts' share scaled by the busiest expert's load. */
function linearFlops(spec: EngineSpec, newTokens: number): number {
  const m = spec.model;
  const experts = m.experts ?? 1;
  if (experts <= 1) return (2 * spec.params.activePerToken * newTokens) / spec.tp;
  const k = Math.min(m.expertsPerToken ?? 1, experts);
  const expertParams = m.layers * k * spec.params.perExpertPerLayer;
  const shared = spec.params.activePerToken - expertParams;
  // Sliced over TP, a step waits for the busiest expert; placed whole over EP, for the busiest GPU.
  const load = spec.ep > 1 ? epLoadFactor(spec.ep, k, newTokens, spec.epImbalance) : expertImbalance(experts, k, newTokens);
  return (2 * newTokens * (shared + expertParams * load)) / spec.tp;
}

/**
 * linear    = max(2·params·new / (peak·mfu), weight bytes / (hbm·bwEff))
 * attention = max(attnFlopsPerPair·pairs / (peak·mfu), requests·kvBytesForContext(mean ctx + new) / (hbm·kvBwEff))
 *             + requests·layers·attnSeqOverheadUs
 * total     = linear + attention + TP all-reduce + MoE routing + step + layers·layer + requests·request overheads
 */
export function stepCost(spec: EngineSpec, s: StepShape): StepCost {
  const m = spec.model;
  const linFlops = linearFlops(spec, s.newTokens);
  const attnFlops = (attentionFlopsPerPair(m) * s.attentionPairs) / spec.tp;
  const weightBytes = weightBytesReadPerGpu(spec, s.newTokens);
  // Sliding layers cap each request's KV at the window: requests · KV(mean context) (exact for equal contexts).
  const kvBytes = s.requests > 0 ? kvReadBytesPerGpu(spec, s.requests, (s.contextTokens + s.newTokens) / s.requests) : 0;
  const toMs = (x: number, perSec: number): number => (x / perSec) * 1000;
  const linearMs = Math.max(toMs(linFlops, spec.flopsPerSec), toMs(weightBytes, spec.bytesPerSec));
  const attentionMs =
    Math.max(toMs(attnFlops, spec.flopsPerSec), toMs(kvBytes, spec.kvBytesPerSec)) + (s.requests * m.layers * spec.attnSeqOverheadUs) / 1000;
  const commMs = parallelCommMs(spec, s.newTokens);
  const moeMs = s.newTokens > 0 ? moeRoutingMs(spec) : 0;
  const overheadMs = spec.stepOverheadMs + m.layers * spec.layerOverheadMs + s.requests * spec.requestOverheadMs;
  return {
    flops: linFlops + attnFlops,
    bytes: weightBytes + kvBytes,
    computeMs: toMs(linFlops + attnFlops, spec.flopsPerSec),
    memoryMs: toMs(weightBytes + kvBytes, spec.bytesPerSec),
    linearMs,
    attentionMs,
    commMs,
    moeMs,
    overheadMs,
    totalMs: linearMs + attentionMs + commMs + moeMs + overheadMs,
  };
}

/** Shape of one decode step for `batch` requests each holding `contextTokens` tokens. */
export function decodeShape(batch: number, contextTokens: number): StepShape {
  return { requests: batch, newTokens: batch, contextTokens: batch * contextTokens, attentionPairs: batch * (contextTokens + 1) };
}

/** Shape of a prefill of `tokens` fresh tokens (one request, one step, no cache). */
export function prefillShape(tokens: number): StepShape {
  return { requests: 1, newTokens: tokens, contextTokens: 0, attentionPairs: (tokens * (tokens + 1)) / 2 };
}
