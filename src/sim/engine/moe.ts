// Mixture-of-experts costs: experts touched by a step and the fixed per-layer cost (pure).
import type { EngineSpec } from './config.js';

/**
 * Expected distinct experts touched in one MoE layer when `tokens` tokens each pick `k` of `experts`,
 * assuming uniform independent routing: E·(1 − (1 − k/E)^T). Batch 1 → k; large batches → E.
 */
export function expectedExpertsTouched(experts: number, k: number, tokens: number): number {
  if (experts <= 1) return 1;
  return experts * (1 - Math.pow(1 - Math.min(k, experts) / experts, Math.max(1, tokens)));
}

/**
 * Fixed cost of the MoE layers per step: moeLayerOverheadUs per MoE layer (the model's layers less its dense ones):
 * gate GEMM, top-k, moe_align_block_size, the grouped GEMMs' launches and tails, the weighted reduction.
 */
export function moeRoutingMs(spec: EngineSpec): number {
  const m = spec.model;
  return (m.experts ?? 1) > 1 ? ((m.layers - (m.denseLayers ?? 0)) * spec.moeLayerOverheadUs) / 1000 : 0;
}
