// Step-time model: how long one engine step takes for a given batch shape (pure). Linear layers and attention are
// separate kernels, each on its own roofline; TP all-reduce (comm.ts), MoE (moe.ts) and fixed overheads add.
import { kvBytesForTokens, type EngineSpec } from './config.js';
import { epLoadFactor, parallelCommMs } from './comm.js';
import { eagerOverheadMs } from './scheduling.js';
import { blockTableUploadMs } from './max-len.js';
import { weightBytes } from './dtypes.js';
import { expectedExpertsTouched, moeRoutingMs } from './moe.js';
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
  /** The part of attentionPairs from decoding sequences (one new token each); absent = 0. MLA decodes in absorbed form. */
  decodePairs?: number;
}

/**
 * Attention FLOPs of a step, all layers, one GPU.
 * Sliding layers: a new token attends at most `window` keys, so their pairs are min(pairs, newTokens · window).
 * MLA: prefill pairs in the decompressed form, 2·heads·(nope + rope + v) per layer (attentionFlopsPerPair); decode
 * pairs in the absorbed form the engines use (FlashMLA, FlashInfer MLA): QK over the latent and rope part and AV over
 * the latent, 2·heads·(2·kvLora + rope) per layer: more FLOPs per pair, but only the 576-value latent is read.
 */
export function attentionFlops(spec: EngineSpec, s: StepShape): number {
  const m = spec.model;
  const perLayerPair = attentionFlopsPerPair(m) / m.layers;
  const sliding = m.slidingWindow ? (m.slidingLayers ?? m.layers) : 0;
  const capped = (pairs: number): number => (m.layers - sliding) * pairs + sliding * Math.min(pairs, s.newTokens * (m.slidingWindow ?? Infinity));
  const decode = Math.min(s.decodePairs ?? 0, s.attentionPairs);
  let flops = perLayerPair * capped(s.attentionPairs - decode);
  if (m.mla && decode > 0) flops += 2 * m.layers * m.heads * (2 * m.mla.kvLoraRank + m.mla.qkRopeHeadDim) * decode;
  else flops += perLayerPair * capped(decode);
  return flops / spec.tp;
}

export interface StepCost {
  flops: number;
  bytes: number;
  /** Compute side of the linear and attention rooflines: FLOPs at the rates each kernel runs at (dense, experts, attention). */
  computeMs: number;
  /** Memory side: weights at the dense and expert-slice bandwidths, KV at the attention kernels' bandwidth. */
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

/**
 * Linear-layer FLOPs per GPU, 2·params·tokens, split into the dense part (attention projections, dense MLPs, shared
 * experts, LM head) and the routed experts', the latter scaled by the busiest GPU's load under EP. Under TP every GPU
 * holds a slice of every expert and the fused-MoE kernel's grid spans all experts' row tiles (moe_align_block_size
 * sorts and pads the tokens by expert), which the SMs take in turn: the step costs the total expert work, not the
 * busiest expert's; the tile padding is part of moeGemmEfficiency, a grouped-GEMM rate.
 */
export function linearFlopsParts(spec: EngineSpec, newTokens: number): { dense: number; expert: number } {
  const m = spec.model;
  const experts = m.experts ?? 1;
  if (experts <= 1) return { dense: (2 * spec.params.activePerToken * newTokens) / spec.tp, expert: 0 };
  const k = Math.min(m.expertsPerToken ?? 1, experts);
  const expertParams = m.layers * k * spec.params.perExpertPerLayer;
  const shared = spec.params.activePerToken - expertParams;
  // EP: the busiest GPU's share (its experts are its own, so all its expert work scales).
  const gpuLoad = spec.ep > 1 ? epLoadFactor(spec.ep, k, newTokens, spec.epImbalance) : 1;
  return { dense: (2 * newTokens * shared) / spec.tp, expert: ((2 * newTokens * expertParams) / spec.tp) * gpuLoad };
}

/**
 * Bytes of one routed expert's slice on one GPU (one MoE layer's expert, gate/up/down): whole under EP, 1/(tp/ep)
 * of it sliced over the rest of TP.
 */
export function expertSliceBytes(spec: EngineSpec): number {
  const moeLayerShare = spec.model.layers - (spec.model.denseLayers ?? 0);
  if ((spec.model.experts ?? 1) <= 1 || moeLayerShare <= 0) return 0;
  const oneExpert = (spec.params.perExpertPerLayer * spec.model.layers) / moeLayerShare;
  return (weightBytes({ ...spec.params, shared: 0, embedding: 0, routedExperts: oneExpert }, spec.weightDtype) / spec.tp) * spec.ep;
}

/**
 * Achieved share of the dense streaming bandwidth when reading routed experts: S / (S + S½) for a per-GPU expert
 * slice of S bytes; a fused-MoE kernel streams many small matrices, each paying a ramp worth S½ (moeSliceHalfMiB)
 * of bytes. Mixtral's 176 MB slices stream at ~99%, DeepSeek-R1's 5.5 MB FP8 slices at TP8 at ~58% (S½ 4 MiB).
 */
export function expertStreamEfficiency(spec: EngineSpec): number {
  const s = expertSliceBytes(spec);
  return s > 0 ? s / (s + spec.moeSliceHalfMiB * 1024 * 1024) : 1;
}

/**
 * Compute time (ms, one GPU) of linear FLOPs at the rates the step model runs them:
 * dense / (peak·mfu·gpu_scale·denseScaleRatio) + expert / (peak·mfu·gpu_scale·moeGemmEfficiency·expertScaleRatio).
 * The compute side of `linearMs`; capacity's FLOP budget uses it too, so both price a FLOP alike.
 */
export function linearComputeMs(spec: EngineSpec, lin: { dense: number; expert: number }): number {
  return (lin.dense / (spec.flopsPerSec * spec.denseScaleRatio) + lin.expert / (spec.flopsPerSec * spec.moeGemmEfficiency * spec.expertScaleRatio)) * 1000;
}

/**
 * Time of the routed experts' grouped GEMMs, from their weight reads (memoryMs) and FLOPs (computeMs):
 *   max(read, FLOPs) + (1 − e) · min(read, FLOPs),   e = S / (S + S½)
 * A GEMM over a large matrix overlaps its weight reads with its math (a roofline: max). A fused-MoE kernel walks many
 * small per-expert slices, and each slice's tile loop fills and drains its load pipeline, so reads and FLOPs overlap
 * only in the share e of a slice that is steady state, the same S½ ramp that sets the slice's stream efficiency
 * (expertStreamEfficiency). vLLM's benchmark_moe (PR #24700, Qwen3-30B-A3B FP8, 4.7 MB slices on H100) shows the
 * serial form: 263 µs at 64 tokens (the layer's 604 MB of experts read once), then +0.35 µs per token on top (≈ 218
 * TFLOPS): 536 / 912 / 1,648 µs at 1,024 / 2,048 / 4,096 tokens, where max(read, FLOPs) gives 354 / 709 / 1,417 and
 * the sum 622 / 977 / 1,685. Mixtral's 176 MB slices (e ≈ 0.98) stay a roofline.
 */
export function expertMs(computeMs: number, memoryMs: number, streamEfficiency: number): number {
  return Math.max(memoryMs, computeMs) + (1 - streamEfficiency) * Math.min(memoryMs, computeMs);
}

/**
 * linear    = max(dense FLOPs / (peak·mfu·denseScaleRatio), dense bytes / (hbm·bwEff))
 *             + expertMs(expert FLOPs / (peak·mfu·moeGemmEff·blockScaleRatio), expert bytes / (hbm·bwEff·S/(S+S½)))
 * attention = max(attnFlopsPerPair·pairs / (peak(KV dtype)·mfu), requests·kvBytesForContext(mean ctx + new) / (hbm·kvBwEff))
 *             + requests·layers·attnSeqOverheadUs
 * total     = linear + attention + TP all-reduce + MoE layers·moeLayerOverheadUs + step + layers·layer + requests·request overheads
 *             + requests · block-table row bytes / PCIe bandwidth (max-len.ts: grows with max_model_len)
 */
export function stepCost(spec: EngineSpec, s: StepShape): StepCost {
  const m = spec.model;
  const lin = linearFlopsParts(spec, s.newTokens);
  const linFlops = lin.dense + lin.expert;
  const attnFlops = attentionFlops(spec, s);
  const weightBytes = weightBytesReadPerGpu(spec, s.newTokens);
  const expertBytes = lin.expert > 0 ? weightBytes - weightBytesReadPerGpu(spec, 0) : 0;
  // Sliding layers cap each request's KV at the window: requests · KV(mean context) (exact for equal contexts).
  const kvBytes = s.requests > 0 ? kvReadBytesPerGpu(spec, s.requests, (s.contextTokens + s.newTokens) / s.requests) : 0;
  const toMs = (x: number, perSec: number): number => (x / perSec) * 1000;
  // Routed experts run as grouped GEMMs (permute, per-expert tiles, un-permute) at moeGemmEfficiency of a dense GEMM,
  // (block-scaled FP8 on Hopper at the BF16 rate: expertScaleRatio, and the checkpoint's dense layers with it:
  // denseScaleRatio), and stream their small slices at
  // expertStreamEfficiency of the dense bandwidth.
  const linearComputeSide = linearComputeMs(spec, lin);
  const expertComputeMs = linearComputeMs(spec, { dense: 0, expert: lin.expert });
  const streamEff = expertStreamEfficiency(spec);
  const expertMemoryMs = toMs(expertBytes, spec.bytesPerSec * streamEff);
  const denseMemoryMs = toMs(weightBytes - expertBytes, spec.bytesPerSec);
  const linearMemorySide = denseMemoryMs + expertMemoryMs;
  const linearMs = Math.max(linearComputeSide - expertComputeMs, denseMemoryMs) + expertMs(expertComputeMs, expertMemoryMs, streamEff);
  const attnComputeSide = toMs(attnFlops, spec.attnFlopsPerSec);
  const attnMemorySide = toMs(kvBytes, spec.kvBytesPerSec);
  const attentionMs = Math.max(attnComputeSide, attnMemorySide) + (s.requests * m.layers * spec.attnSeqOverheadUs) / 1000;
  const commMs = parallelCommMs(spec, s.newTokens);
  const moeMs = s.newTokens > 0 ? moeRoutingMs(spec) : 0;
  const overheadMs = spec.stepOverheadMs + m.layers * spec.layerOverheadMs + s.requests * spec.requestOverheadMs + eagerOverheadMs(s, m.layers, spec) + blockTableUploadMs(spec, s.requests);
  return {
    flops: linFlops + attnFlops,
    bytes: weightBytes + kvBytes,
    // The two sides of the rooflines above, at the same rates (a step is compute-bound when computeMs > memoryMs).
    computeMs: linearComputeSide + attnComputeSide,
    memoryMs: linearMemorySide + attnMemorySide,
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
  return { requests: batch, newTokens: batch, contextTokens: batch * contextTokens, attentionPairs: batch * (contextTokens + 1), decodePairs: batch * (contextTokens + 1) };
}

/** Shape of a prefill of `tokens` fresh tokens (one request, one step, no cache). */
export function prefillShape(tokens: number): StepShape {
  return { requests: 1, newTokens: tokens, contextTokens: 0, attentionPairs: (tokens * (tokens + 1)) / 2 };
}
