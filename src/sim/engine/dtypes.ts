// Weight and KV-cache precisions: bytes per value, weight memory of a model, and the peak compute each precision runs at.
import type { GpuProfile, ParamBreakdown } from './profile.js';
import { WEIGHT_DTYPES, KV_DTYPES, type WeightDtype, type KvDtype } from './dtype-names.js';

export { WEIGHT_DTYPES, KV_DTYPES, type WeightDtype, type KvDtype };

/**
 * Effective bytes per weight, scales included.
 * int4 (AWQ/GPTQ, group size 128): 4 bits + one fp16 scale and one 4-bit zero point per 128 weights = 4 + 20/128 = 4.156 bits.
 * mxfp4 (OCP microscaling): 4-bit E2M1 values + one 8-bit E8M0 scale per 32 = 4 + 8/32 = 4.25 bits.
 * fp8 and int8 carry per-tensor or per-channel scales (< 0.01 bit per weight).
 */
export const WEIGHT_DTYPE_BYTES: Record<WeightDtype, number> = {
  bf16: 2, fp16: 2, fp32: 4, fp8: 1, int8: 1, int4: (4 + 20 / 128) / 8, mxfp4: 4.25 / 8,
};
export const KV_DTYPE_BYTES: Record<KvDtype, number> = { bf16: 2, fp16: 2, fp32: 4, fp8: 1, int8: 1 };

/** Quantized checkpoints (and vLLM's on-the-fly fp8) keep the embeddings and LM head in 16 bits. */
const QUANTIZED: ReadonlySet<WeightDtype> = new Set(['fp8', 'int8', 'int4', 'mxfp4']);

/**
 * Bytes of all weights in `dtype`, whole model (not split over TP):
 * bf16/fp16/fp32: total · bytes;
 * fp8/int8/int4: (total − embeddings) · bytes + embeddings · 2;
 * mxfp4 on an MoE model: routed experts · 4.25/8 + the rest · 2 (gpt-oss ships attention, router and embeddings in BF16);
 * mxfp4 on a dense model: as int4.
 * `expertFraction` (0..1, default 1) scales the routed experts: the share of them a step reads.
 */
export function weightBytes(p: ParamBreakdown, dtype: WeightDtype, expertFraction = 1): number {
  const b = WEIGHT_DTYPE_BYTES[dtype];
  const routed = p.routedExperts * expertFraction;
  const rest = p.shared;
  if (!QUANTIZED.has(dtype)) return (rest + routed) * b;
  if (dtype === 'mxfp4' && p.routedExperts > 0) return routed * b + rest * 2;
  return (rest - p.embedding + routed) * b + p.embedding * 2;
}

/**
 * Peak dense TFLOPS the linear layers run at: fp8 weights on the GPU's FP8 tensor cores and int8 (W8A8) on its INT8
 * ones where it has them; fp32 on TF32 tensor cores (half the BF16 rate on Ampere, Ada, Hopper and CDNA3);
 * everything else (bf16, fp16, and weight-only int4/mxfp4 that dequantize to BF16) at the BF16 rate.
 */
export function peakTflops(gpu: GpuProfile, dtype: WeightDtype): number {
  if (dtype === 'fp8') return gpu.fp8Tflops ?? gpu.bf16Tflops;
  if (dtype === 'int8') return gpu.int8Tops ?? gpu.bf16Tflops;
  if (dtype === 'fp32') return gpu.bf16Tflops / 2;
  return gpu.bf16Tflops;
}
