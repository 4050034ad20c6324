// Communication of a step: tensor-parallel all-reduces (a per-call latency floor plus the ring's bandwidth term),
// expert-parallel all-to-all and data-parallel attention, and the busiest expert-parallel GPU's load (pure).
import type { EngineSpec } from './config.js';
import type { ModelProfile } from './profile.js';

/**
 * One all-reduce of `bytes` over `tp` GPUs: latency + 2·(tp−1)/tp · bytes / link_bw (ring).
 * The latency floor (kernel launch, cross-GPU barrier; a few µs on NVLink, tens on PCIe) does not shrink with
 * the message, so small models at high TP pay it on every layer whatever the batch.
 */
export function allReduceMs(spec: EngineSpec, bytes: number): number {
  if (spec.tp <= 1) return 0;
  const ringBytes = (bytes * 2 * (spec.tp - 1)) / spec.tp;
  return spec.allReduceLatencyUs / 1000 + (ringBytes / (spec.gpu.linkGBps * 1e9)) * 1000;
}

/** Two all-reduces per layer (after attention and after the MLP) of newTokens·hidden BF16 activations. */
export function tpCommMs(spec: EngineSpec, newTokens: number): number {
  if (spec.tp <= 1) return 0;
  return 2 * spec.model.layers * allReduceMs(spec, newTokens * spec.model.hidden * 2);
}

/**
 * The busiest expert-parallel GPU's expert tokens over the mean: T·k assignments over ep GPUs (mean μ = T·k/ep), the
 * expected maximum of a multinomial ≈ μ·(1 + √(2·ln ep / μ)), times the routing skew --ep-imbalance; capped at ep
 * (one GPU gets every token).
 */
export function epLoadFactor(ep: number, k: number, tokens: number, skew: number): number {
  if (ep <= 1 || tokens <= 0) return 1;
  return Math.min(ep, skew * (1 + Math.sqrt((2 * ep * Math.log(ep)) / (tokens * k))));
}

/** MoE layers of the model (all layers but the leading dense ones; 0 for a dense model). */
export function moeLayers(m: ModelProfile): number {
  if ((m.experts ?? 1) <= 1) return 0;
  return m.layers - (m.denseLayers ?? 0);
}

/**
 * A QK norm over all heads (qkNormAcrossHeads, MiniMax-M2) under attention TP: each rank sums the squares of its
 * heads' q and k, and one more all-reduce per layer of those sums (2 FP32 values per token) gives every rank the whole
 * row's RMS (SGLang's MiniMaxM2QKRMSNorm, python/sglang/srt/models/minimax_m2.py). A few KB: its cost is the
 * all-reduce latency floor, layers × all_reduce_latency per step. With --dp-attention the heads are not split: none.
 */
export function qkNormCommMs(spec: EngineSpec, newTokens: number): number {
  if (!spec.model.qkNormAcrossHeads || spec.tp <= 1 || spec.dpAttention || newTokens <= 0) return 0;
  return spec.model.layers * allReduceMs(spec, newTokens * 2 * 4);
}

/**
 * Communication of one step with `newTokens` tokens.
 * TP (with or without --ep): two all-reduces of newTokens·hidden BF16 per layer; with --ep the expert outputs are
 *   combined by that same all-reduce (every rank holds every token after the attention all-reduce); a QK norm over
 *   all heads adds one small all-reduce per layer (qkNormCommMs).
 * --dp-attention: no attention all-reduce; per MoE layer the tokens of each rank (newTokens/tp) go to their experts
 *   and back: with --ep an all-to-all dispatch (FP8, 1 B per value) and combine (BF16, 2 B), each
 *   latency + (newTokens/tp)·k·hidden·B·(ep−1)/ep / link; without --ep an all-gather before and a reduce-scatter after
 *   (together one all-reduce's ring traffic). Dense layers of an MoE model keep their TP all-reduce pair.
 */
export function parallelCommMs(spec: EngineSpec, newTokens: number): number {
  const m = spec.model;
  if (spec.tp <= 1 || newTokens <= 0) return 0;
  const actBytes = newTokens * m.hidden * 2;
  if (!spec.dpAttention) return 2 * m.layers * allReduceMs(spec, actBytes) + qkNormCommMs(spec, newTokens);
  const moe = moeLayers(m);
  const dense = m.layers - moe;
  const denseMs = 2 * dense * allReduceMs(spec, actBytes);
  if (moe === 0) return 2 * m.layers * allReduceMs(spec, actBytes / spec.tp);
  if (spec.ep <= 1) return denseMs + moe * allReduceMs(spec, actBytes);
  const k = Math.min(m.expertsPerToken ?? 1, m.experts ?? 1);
  const perRank = (newTokens / spec.tp) * k * m.hidden * ((spec.ep - 1) / spec.ep);
  const a2a = (bytesPerValue: number): number => spec.allReduceLatencyUs / 1000 + ((perRank * bytesPerValue) / (spec.gpu.linkGBps * 1e9)) * 1000;
  return denseMs + moe * (a2a(1) + a2a(2));
}
