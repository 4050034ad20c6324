// Expert parallelism and data-parallel attention: options, validation, weight placement (pure; their step
// communication and expert load are in comm.ts).
import { z } from 'zod';
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
