// Built-in GPU and model profiles for the sim engine: public spec-sheet and config.json figures.
import type { GpuProfile, ModelProfile } from './profile.js';

const GiB = 1024 ** 3;

/**
 * GPUs. Peak figures are dense (no sparsity) tensor-core numbers from NVIDIA data sheets.
 * `bwEfficiency` is the fraction of peak HBM bandwidth the weight reads of a decode step achieve; fitted with the
 * fixed step overheads so Llama-3.1-8B BF16 batch-1 TPOT is ~6.5 ms on H100 SXM and ~13.3 ms on A100-40GB
 * (docs/sim.md#fidelity).
 * tdpW is the board power limit from the data sheet; idleW, smClockMhz (max boost) and memClockMhz are typical
 * nvidia-smi readings, used only by the sim server's DCGM series (docs/gpu-telemetry.md).
 */
export const GPUS: Record<string, GpuProfile> = {
  h100: { id: 'h100', name: 'NVIDIA H100 SXM 80GB', bf16Tflops: 989, fp8Tflops: 1979, hbmTBps: 3.35, memBytes: 80 * GiB, bwEfficiency: 0.8, linkGBps: 450, linkLatencyUs: 6, tdpW: 700, idleW: 70, smClockMhz: 1980, memClockMhz: 2619 },
  h200: { id: 'h200', name: 'NVIDIA H200 SXM 141GB', bf16Tflops: 989, fp8Tflops: 1979, hbmTBps: 4.8, memBytes: 141 * GiB, bwEfficiency: 0.8, linkGBps: 450, linkLatencyUs: 6, tdpW: 700, idleW: 75, smClockMhz: 1980, memClockMhz: 3201 },
  'a100-80gb': { id: 'a100-80gb', name: 'NVIDIA A100 SXM 80GB', bf16Tflops: 312, hbmTBps: 2.039, memBytes: 80 * GiB, bwEfficiency: 0.8, linkGBps: 300, linkLatencyUs: 8, tdpW: 400, idleW: 55, smClockMhz: 1410, memClockMhz: 1593 },
  'a100-40gb': { id: 'a100-40gb', name: 'NVIDIA A100 SXM 40GB', bf16Tflops: 312, hbmTBps: 1.555, memBytes: 40 * GiB, bwEfficiency: 0.8, linkGBps: 300, linkLatencyUs: 8, tdpW: 400, idleW: 50, smClockMhz: 1410, memClockMhz: 1215 },
  l40s: { id: 'l40s', name: 'NVIDIA L40S 48GB', bf16Tflops: 362, fp8Tflops: 733, hbmTBps: 0.864, memBytes: 48 * GiB, bwEfficiency: 0.8, linkGBps: 25, linkLatencyUs: 15, tdpW: 350, idleW: 35, smClockMhz: 2520, memClockMhz: 9001 },
  rtx4090: { id: 'rtx4090', name: 'NVIDIA GeForce RTX 4090 24GB', bf16Tflops: 165, fp8Tflops: 330, hbmTBps: 1.008, memBytes: 24 * GiB, bwEfficiency: 0.8, linkGBps: 25, linkLatencyUs: 15, tdpW: 450, idleW: 25, smClockMhz: 2520, memClockMhz: 10501 },
  a40: { id: 'a40', name: 'NVIDIA A40 48GB', bf16Tflops: 149.7, hbmTBps: 0.696, memBytes: 48 * GiB, bwEfficiency: 0.8, linkGBps: 25, linkLatencyUs: 15, tdpW: 300, idleW: 30, smClockMhz: 1740, memClockMhz: 7251 },
  // Not a real part: a small, slow device that keeps engine tests quick and KV pressure easy to reach.
  'tiny-gpu': { id: 'tiny-gpu', name: 'tokenflood test device 2GB', bf16Tflops: 20, hbmTBps: 0.2, memBytes: 2 * GiB, bwEfficiency: 0.8, linkGBps: 25, linkLatencyUs: 15, tdpW: 75, idleW: 10, smClockMhz: 1500, memClockMhz: 1500 },
};

/** Models, from each Hugging Face config.json. Parameter counts are estimated from the architecture. */
export const MODELS: Record<string, ModelProfile> = {
  'llama-3.1-8b': { id: 'llama-3.1-8b', hfName: 'meta-llama/Llama-3.1-8B-Instruct', layers: 32, hidden: 4096, heads: 32, kvHeads: 8, headDim: 128, intermediate: 14336, vocab: 128256, maxModelLen: 131072 },
  'llama-3.1-70b': { id: 'llama-3.1-70b', hfName: 'meta-llama/Llama-3.1-70B-Instruct', layers: 80, hidden: 8192, heads: 64, kvHeads: 8, headDim: 128, intermediate: 28672, vocab: 128256, maxModelLen: 131072 },
  'llama-2-70b': { id: 'llama-2-70b', hfName: 'meta-llama/Llama-2-70b-hf', layers: 80, hidden: 8192, heads: 64, kvHeads: 8, headDim: 128, intermediate: 28672, vocab: 32000, maxModelLen: 4096 },
  'qwen2.5-7b': { id: 'qwen2.5-7b', hfName: 'Qwen/Qwen2.5-7B-Instruct', layers: 28, hidden: 3584, heads: 28, kvHeads: 4, headDim: 128, intermediate: 18944, vocab: 152064, maxModelLen: 32768 },
  'qwen2.5-72b': { id: 'qwen2.5-72b', hfName: 'Qwen/Qwen2.5-72B-Instruct', layers: 80, hidden: 8192, heads: 64, kvHeads: 8, headDim: 128, intermediate: 29568, vocab: 152064, maxModelLen: 32768 },
  'mistral-7b': { id: 'mistral-7b', hfName: 'mistralai/Mistral-7B-Instruct-v0.3', layers: 32, hidden: 4096, heads: 32, kvHeads: 8, headDim: 128, intermediate: 14336, vocab: 32768, maxModelLen: 32768 },
  'deepseek-r1-distill-qwen-32b': { id: 'deepseek-r1-distill-qwen-32b', hfName: 'deepseek-ai/DeepSeek-R1-Distill-Qwen-32B', layers: 64, hidden: 5120, heads: 40, kvHeads: 8, headDim: 128, intermediate: 27648, vocab: 152064, maxModelLen: 131072 },
  'mixtral-8x7b': { id: 'mixtral-8x7b', hfName: 'mistralai/Mixtral-8x7B-Instruct-v0.1', layers: 32, hidden: 4096, heads: 32, kvHeads: 8, headDim: 128, intermediate: 14336, vocab: 32000, experts: 8, expertsPerToken: 2, maxModelLen: 32768 },
  'qwen3-30b-a3b': { id: 'qwen3-30b-a3b', hfName: 'Qwen/Qwen3-30B-A3B', layers: 48, hidden: 2048, heads: 32, kvHeads: 4, headDim: 128, intermediate: 768, vocab: 151936, experts: 128, expertsPerToken: 8, maxModelLen: 40960 },
  // Not a real model: ~60M parameters, for fast tests.
  tiny: { id: 'tiny', layers: 4, hidden: 512, heads: 8, kvHeads: 2, headDim: 64, intermediate: 2048, vocab: 32000, maxModelLen: 8192 },
};

export const DEFAULT_GPU = 'h100';
export const DEFAULT_MODEL = 'llama-3.1-8b';
