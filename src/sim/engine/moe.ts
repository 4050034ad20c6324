// Mixture-of-experts costs: experts touched by a step, the busiest expert's load and the routing overhead (pure).
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
 * Expert compute is set by the busiest expert: with T·k assignments over E experts (mean μ = T·k/E), the expected
 * maximum load of a multinomial is ≈ μ·(1 + √(2·ln E / μ)), so expert FLOPs scale by 1 + √(2·E·ln E / (T·k)),
 * capped at E/k (every expert computing a full batch).
 */
export function expertImbalance(experts: number, k: number, tokens: number): number {
  if (experts <= 1 || tokens <= 0) return 1;
  const kk = Math.min(k, experts);
  return Math.min(experts / kk, 1 + Math.sqrt((2 * experts * Math.log(experts)) / (tokens * kk)));
}

/**
 * Fixed cost of the MoE layers per step: moeLayerOverheadUs per MoE layer (the model's layers less its dense ones):
 * gate GEMM, top-k, moe_align_block_size, the grouped GEMMs' launches and tails, the weighted reduction.
 */
export function moeRoutingMs(spec: EngineSpec): number {
  const m = spec.model;
  return (m.experts ?? 1) > 1 ? ((m.layers - (m.denseLayers ?? 0)) * spec.moeLayerOverheadUs) / 1000 : 0;
}
