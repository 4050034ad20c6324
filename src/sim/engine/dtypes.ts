// Weight and KV-cache precisions: bytes per value, weight memory of a model, the kernel path each precision takes on a
// GPU (native tensor cores or dequantize to BF16) and the peak compute it runs at.
import type { GpuProfile, ParamBreakdown } from './profile.js';
import { FP8_SCALINGS, WEIGHT_DTYPES, KV_DTYPES, type Fp8Scaling, type WeightDtype, type KvDtype } from './dtype-names.js';

export { FP8_SCALINGS, WEIGHT_DTYPES, KV_DTYPES, type Fp8Scaling, type WeightDtype, type KvDtype };

/**
 * Effective bytes per weight, scales included.
 * int4 (AWQ/GPTQ, group size 128): 4 bits + one fp16 scale and one 4-bit zero point per 128 weights = 4 + 20/128 = 4.156 bits.
 * mxfp4 (OCP microscaling): 4-bit E2M1 values + one 8-bit E8M0 scale per 32 = 4 + 8/32 = 4.25 bits.
 * nvfp4 (NVIDIA): 4-bit E2M1 values + one FP8 E4M3 scale per 16 (and one FP32 per tensor) = 4 + 8/16 = 4.5 bits.
 * fp8 block-scaled (DeepSeek-V3/R1, Kimi K2, MiniMax, Qwen3-FP8: one FP32 scale per 128×128 block) = 8 + 32/16384
 * bits, and per-tensor or per-channel fp8/int8 scales are smaller still: 1 byte.
 */
export const WEIGHT_DTYPE_BYTES: Record<WeightDtype, number> = {
  bf16: 2, fp16: 2, fp32: 4, fp8: 1, int8: 1, int4: (4 + 20 / 128) / 8, mxfp4: 4.25 / 8, nvfp4: 4.5 / 8,
};
/** KV bytes per value; int4 (LMDeploy-style per-head, per-token quantization) counts 4 bits, its scales not included. */
export const KV_DTYPE_BYTES: Record<KvDtype, number> = { bf16: 2, fp16: 2, fp32: 4, fp8: 1, int8: 1, int4: 0.5 };

/** Quantized checkpoints (and vLLM's on-the-fly fp8) keep the embeddings and LM head in 16 bits. */
const QUANTIZED: ReadonlySet<WeightDtype> = new Set(['fp8', 'int8', 'int4', 'mxfp4', 'nvfp4']);
const FP4: ReadonlySet<WeightDtype> = new Set(['mxfp4', 'nvfp4']);

/**
 * Precision of the non-expert linear layers (attention, dense MLPs, shared experts) of an MoE checkpoint whose routed
 * experts are in `dtype`: gpt-oss ships them in BF16 beside MXFP4 experts; NVFP4 re-quantizations of DeepSeek-R1 keep
 * them in the original block-scaled FP8. Other formats quantize every linear layer alike.
 */
export function restDtype(dtype: WeightDtype, moe: boolean): WeightDtype {
  if (!moe) return dtype;
  if (dtype === 'mxfp4') return 'bf16';
  if (dtype === 'nvfp4') return 'fp8';
  return dtype;
}

/**
 * Bytes of all weights in `dtype`, whole model (not split over TP):
 * bf16/fp16/fp32: total · bytes;
 * fp8/int8/int4/fp4 on a dense model: (total − embeddings) · bytes + embeddings · 2;
 * mxfp4/nvfp4 on an MoE model: routed experts · 4.25/8 (4.5/8) + the rest (less embeddings) in restDtype + embeddings · 2.
 * `expertFraction` (0..1, default 1) scales the routed experts: the share of them a step reads.
 */
export function weightBytes(p: ParamBreakdown, dtype: WeightDtype, expertFraction = 1): number {
  const b = WEIGHT_DTYPE_BYTES[dtype];
  const routed = p.routedExperts * expertFraction;
  const rest = p.shared;
  if (!QUANTIZED.has(dtype)) return (rest + routed) * b;
  const restB = WEIGHT_DTYPE_BYTES[restDtype(dtype, p.routedExperts > 0)];
  return routed * b + (rest - p.embedding) * restB + p.embedding * 2;
}

/** How a GPU runs the GEMMs of a precision: on tensor cores made for it, or by dequantizing weights to BF16 in the kernel. */
export type KernelPath = 'native' | 'dequant-bf16';

/**
 * bf16/fp16/fp32: native. fp8 and int8 (W8A8): native where the GPU has FP8 / INT8 tensor cores. mxfp4/nvfp4: native
 * where the GPU lists the format in fp4Formats (Blackwell both, MI355X MXFP4 only). int4 is weight-only (AWQ/GPTQ):
 * always dequantized. Without native support (FP4 on H100/H200/MI300X, FP8 on A100) the engines run weight-only
 * kernels (Marlin, Machete, Triton matmul_ogs) that read the compressed weights and dequantize to BF16 in registers.
 */
export function kernelPath(gpu: GpuProfile, dtype: WeightDtype): KernelPath {
  if (dtype === 'fp8') return gpu.fp8Tflops ? 'native' : 'dequant-bf16';
  if (dtype === 'int8') return gpu.int8Tops ? 'native' : 'dequant-bf16';
  if (dtype === 'int4') return 'dequant-bf16';
  if (FP4.has(dtype)) return gpu.fp4Tflops && (gpu.fp4Formats ?? []).includes(dtype as 'mxfp4' | 'nvfp4') ? 'native' : 'dequant-bf16';
  return 'native';
}

/**
 * Compute-bound throughput of a dequantize-to-BF16 GEMM relative to a plain BF16 GEMM: the unpacking and scaling in
 * registers costs about a fifth of the tensor-core time at large batch (Marlin and Machete reach ~80% of cuBLAS BF16).
 */
export const DEQUANT_EFFICIENCY = 0.8;

/**
 * Peak dense TFLOPS the linear layers of one precision run at: native fp8/int8/fp4 on their tensor cores; fp32 on
 * TF32 tensor cores (half the BF16 rate on Ampere, Ada, Hopper and CDNA3); bf16/fp16 at the BF16 rate; a
 * dequantize-to-BF16 path at BF16 · DEQUANT_EFFICIENCY.
 */
export function peakTflops(gpu: GpuProfile, dtype: WeightDtype): number {
  if (kernelPath(gpu, dtype) === 'dequant-bf16') return gpu.bf16Tflops * DEQUANT_EFFICIENCY;
  if (dtype === 'fp8') return gpu.fp8Tflops!;
  if (dtype === 'int8') return gpu.int8Tops!;
  if (FP4.has(dtype)) return gpu.fp4Tflops!;
  if (dtype === 'fp32') return gpu.bf16Tflops / 2;
  return gpu.bf16Tflops;
}

/** MAMF / BF16 peak of the H100 SXM (794.5 of 989 TFLOPS), the GPU the default --mfu was fitted on. */
export const REFERENCE_MATMUL_EFFICIENCY = 0.803;

/**
 * Compute-rate scale of a GPU relative to the one --mfu was fitted on: matmulEfficiency / 0.803. The same software
 * stack reaches different shares of the data-sheet peak on different GPUs (BF16 MAMF: A100 SXM 86.9%, H100 80.3%,
 * B200 77.6%, GB200 72.9%, MI355X 68.0%, MI325X 60.4%, MI300X 51.4%; stas00/ml-engineering, compute/accelerator,
 * "Maximum Achievable Matmul FLOPS comparison table"), so a peak · mfu fitted on H100 overstates AMD's by 15–35%.
 */
export function matmulScale(gpu: GpuProfile): number {
  return (gpu.matmulEfficiency ?? REFERENCE_MATMUL_EFFICIENCY) / REFERENCE_MATMUL_EFFICIENCY;
}

/**
 * Rate of the linear layers of a block-scaled FP8 checkpoint relative to the FP8 peak (DeepSeek-V3/R1, Kimi K2,
 * Qwen3-FP8, MiniMax: one scale per 128×128 weight block and per 1×128 activation group). Hopper's FP8 tensor cores
 * accumulate with limited precision and have no block scales, so the kernels promote partial sums to FP32 on CUDA
 * cores and rescale them every 128 K elements (DeepSeek-V3 report §3.3.2); vLLM measured the Triton block-FP8 MoE at
 * well under the BF16 rate (PR #13932, H100, DeepSeek-V3 shapes at TP8: 2.8 ms for 2,048 tokens, ≈ 64 TFLOPS) and the
 * dense block-FP8 GEMM at 0.61–0.74 of torch BF16 (PR #23280, N=2112, K=7168, 2,048–8,192 tokens: 427–490 TFLOPS
 * CUTLASS, 396–407 Triton, against 648–666). So on a GPU without block-scaled MMA they run no faster than the BF16
 * peak: ratio bf16 / fp8 peak. GPUs that scale blocks in the tensor core (Blackwell's block-scaled tcgen05 MMA,
 * MI355X's MX: those listing fp4Formats) keep the FP8 rate. Per-tensor and per-channel FP8 (`tensor`: cuBLASLt and
 * CUTLASS FP8 apply the scales in the epilogue, at full rate), and every other precision: 1.
 */
export function blockScaleRatio(gpu: GpuProfile, dtype: WeightDtype, scaling: Fp8Scaling): number {
  if (dtype !== 'fp8' || scaling !== 'block' || kernelPath(gpu, dtype) !== 'native' || (gpu.fp4Formats ?? []).length > 0) return 1;
  return gpu.bf16Tflops / gpu.fp8Tflops!;
}

/** Routed experts' rate from their FP8 scaling (blockScaleRatio); the grouped GEMM's own efficiency is moeGemmEfficiency. */
export function expertBlockScaleRatio(gpu: GpuProfile, dtype: WeightDtype, scaling: Fp8Scaling): number {
  return blockScaleRatio(gpu, dtype, scaling);
}

/**
 * Dense layers' rate (attention projections, shared experts, dense MLPs; every linear layer of a dense model): a
 * block-scaled checkpoint is block-scaled in every linear layer, not only the experts, so the same ratio.
 */
export function blockScaledDenseRatio(gpu: GpuProfile, dtype: WeightDtype, scaling: Fp8Scaling): number {
  return blockScaleRatio(gpu, dtype, scaling);
}

/**
 * Peak of a whole forward pass when routed experts and the rest run in different precisions (MoE in mxfp4/nvfp4):
 * the FLOP-weighted harmonic mean, active / (expertActive / peak(dtype) + restActive / peak(restDtype)).
 */
export function modelPeakTflops(gpu: GpuProfile, dtype: WeightDtype, p: ParamBreakdown, expertsPerToken: number, layers: number): number {
  const expert = p.routedExperts > 0 ? layers * expertsPerToken * p.perExpertPerLayer : 0;
  const rest = p.activePerToken - expert;
  const restD = restDtype(dtype, p.routedExperts > 0);
  if (restD === dtype || expert === 0) return peakTflops(gpu, dtype);
  return p.activePerToken / (expert / peakTflops(gpu, dtype) + rest / peakTflops(gpu, restD));
}

/**
 * Peak dense TFLOPS of attention (QK and AV), set by the KV cache's precision, not the weights': the attention kernels
 * (FlashAttention, FlashMLA, FlashInfer, AITER, TRT-LLM FMHA) multiply queries by cached keys and probabilities by
 * cached values in the cache's format. BF16/FP16 (and INT8, dequantized on load) KV → BF16 tensor cores, even beside
 * FP8 or FP4 weights; FP8 KV → FP8 tensor cores where the GPU has them (FA3 FP8, TRT-LLM FP8 FMHA), else BF16;
 * FP32 KV → TF32 (half the BF16 rate).
 */
export function attentionPeakTflops(gpu: GpuProfile, kvDtype: KvDtype): number {
  if (kvDtype === 'fp8' && gpu.fp8Tflops) return gpu.fp8Tflops;
  if (kvDtype === 'fp32') return gpu.bf16Tflops / 2;
  return gpu.bf16Tflops;
}
