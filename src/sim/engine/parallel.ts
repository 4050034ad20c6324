// Expert parallelism and data-parallel attention: options, validation, weight and KV placement, MoE communication
// and the busiest GPU's expert load (pure).
import { z } from 'zod';
import { allReduceMs } from './comm.js';
import type { EngineSpec } from './config.js';
import { restDtype, WEIGHT_DTYPE_BYTES, type WeightDtype } from './dtypes.js';
import { attentionParamsPerLayer, type ModelProfile } from './profile.js';

export const parallelOptionsShape = {
  ep: z.number().int().min(1).max(64).default(1).describe('expert-parallel GPUs: each holds E/ep whole routed experts instead of a 1/tp slice of every expert (MoE models; must divide --tp) (docs/sim.md#expert-parallelism-and-dp-attention)'),
  epImbalance: z.number().min(1).max(8).default(1.2).describe('with --ep: routing skew, the busiest GPU\'s expert tokens over the uniform-routing expectation (1 = uniform; real routers without expert rebalancing run ~1.1-1.5)'),
  dpAttention: z.boolean().default(false).describe('data-parallel attention (SGLang --enable-dp-attention, vLLM DP): each of the --tp GPUs runs attention for its own requests with the whole attention weights, so an MLA latent is not replicated; MoE tokens move by all-to-all (--ep) or all-gather/reduce-scatter'),
};

/** Problems with ep / dpAttention for this model and tp (empty when fine). */
export function parallelProblems(m: ModelProfile, tp: number, ep: number): string[] {
  if (ep <= 1) return [];
  const experts = m.experts ?? 1;
  if (experts <= 1) return [`--ep ${ep}: ${m.id} is a dense model (no routed experts to place)`];
  const out: string[] = [];
  if (tp % ep !== 0) out.push(`--ep ${ep}: must divide --tp ${tp} (expert-parallel groups are carved out of the tensor-parallel GPUs)`);
  if (ep > experts) out.push(`--ep ${ep}: more GPUs than the ${experts} routed experts of ${m.id}`);
  return out;
}

/** Bytes of all attention projections, whole model, in the precision the non-expert layers use. */
export function attentionWeightBytes(m: ModelProfile, dtype: WeightDtype): number {
  return m.layers * attentionParamsPerLayer(m) * WEIGHT_DTYPE_BYTES[restDtype(dtype, (m.experts ?? 1) > 1)];
}

/**
 * Extra weight bytes per GPU with --dp-attention: each GPU holds the whole attention instead of 1/tp of it,
 * attention · (1 − 1/tp).
 */
export function dpAttentionExtraBytes(m: ModelProfile, dtype: WeightDtype, tp: number, dpAttention: boolean): number {
  return dpAttention && tp > 1 ? attentionWeightBytes(m, dtype) * (1 - 1 / tp) : 0;
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
 * Communication of one step with `newTokens` tokens.
 * TP (with or without --ep): two all-reduces of newTokens·hidden BF16 per layer; with --ep the expert outputs are
 *   combined by that same all-reduce (every rank holds every token after the attention all-reduce).
 * --dp-attention: no attention all-reduce; per MoE layer the tokens of each rank (newTokens/tp) go to their experts
 *   and back: with --ep an all-to-all dispatch (FP8, 1 B per value) and combine (BF16, 2 B), each
 *   latency + (newTokens/tp)·k·hidden·B·(ep−1)/ep / link; without --ep an all-gather before and a reduce-scatter after
 *   (together one all-reduce's ring traffic). Dense layers of an MoE model keep their TP all-reduce pair.
 */
export function parallelCommMs(spec: EngineSpec, newTokens: number): number {
  const m = spec.model;
  if (spec.tp <= 1 || newTokens <= 0) return 0;
  const actBytes = newTokens * m.hidden * 2;
  if (!spec.dpAttention) return 2 * m.layers * allReduceMs(spec, actBytes);
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
