// Tensor-parallel all-reduce time: a per-call latency floor plus the ring's bandwidth term (pure).
import type { EngineSpec } from './config.js';

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
