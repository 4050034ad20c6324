// Built-in GPU and model profiles for the sim engine: public spec-sheet and config.json figures.
import type { GpuProfile, ModelProfile } from './profile.js';

const GiB = 1024 ** 3;

/**
 * GPUs. Peak figures are dense (no sparsity) tensor-core numbers from the vendors' data sheets (named per entry).
 * `bwEfficiency` is the fraction of peak HBM bandwidth the weight reads of a decode step achieve; fitted with the
 * fixed step overheads so Llama-3.1-8B BF16 batch-1 TPOT is ~6.5 ms on H100 SXM and ~13.3 ms on A100-40GB
 * (docs/sim.md#fidelity).
 * `matmulEfficiency` is the measured BF16 MAMF / peak (stas00/ml-engineering compute/accelerator README, "Maximum
 * Achievable Matmul FLOPS comparison table": A100 SXM 271.2/312, H100 SXM 794.5/989 (H200 the same), B200
 * 1745/2250, B300 1769/2250, GB200 1822/2500, MI300X 668.4/1300, MI325X 784.9/1300, MI355X 1565/2300); GPUs
 * without a published figure take the H100's.
 * tdpW is the board power limit from the data sheet; idleW, smClockMhz (max boost) and memClockMhz are typical
 * nvidia-smi readings, used only by the sim server's DCGM series (docs/gpu-telemetry.md).
 */
export const GPUS: Record<string, GpuProfile> = {
  // NVIDIA H100 Tensor Core GPU data sheet (SXM5 column).
  h100: { id: 'h100', name: 'NVIDIA H100 SXM 80GB', bf16Tflops: 989, fp8Tflops: 1979, int8Tops: 1979, hbmTBps: 3.35, memBytes: 80 * GiB, bwEfficiency: 0.8, matmulEfficiency: 0.803, linkGBps: 450, linkLatencyUs: 6, tdpW: 700, idleW: 70, smClockMhz: 1980, memClockMhz: 2619 },
  // Same data sheet, PCIe column: 2.0 TB/s HBM2e, 350 W; PCIe Gen5 x16 (64 GB/s a direction, ~50 achieved).
  'h100-pcie': { id: 'h100-pcie', name: 'NVIDIA H100 PCIe 80GB', bf16Tflops: 756, fp8Tflops: 1513, int8Tops: 1513, hbmTBps: 2.0, memBytes: 80 * GiB, bwEfficiency: 0.8, linkGBps: 50, linkLatencyUs: 15, tdpW: 350, smClockMhz: 1755 },
  // Same data sheet, H100 NVL column: 94 GB HBM3 at 3.9 TB/s, NVLink bridge 600 GB/s between pairs (300 a direction).
  'h100-nvl': { id: 'h100-nvl', name: 'NVIDIA H100 NVL 94GB', bf16Tflops: 835, fp8Tflops: 1671, int8Tops: 1671, hbmTBps: 3.9, memBytes: 94 * GiB, bwEfficiency: 0.8, linkGBps: 300, linkLatencyUs: 8, tdpW: 400, smClockMhz: 1785 },
  // NVIDIA H200 data sheet (SXM).
  h200: { id: 'h200', name: 'NVIDIA H200 SXM 141GB', bf16Tflops: 989, fp8Tflops: 1979, int8Tops: 1979, hbmTBps: 4.8, memBytes: 141 * GiB, bwEfficiency: 0.8, matmulEfficiency: 0.803, linkGBps: 450, linkLatencyUs: 6, tdpW: 700, idleW: 75, smClockMhz: 1980, memClockMhz: 3201 },
  // NVIDIA HGX H20 product brief: 148 TFLOPS BF16, 296 FP8/INT8, 96 GB HBM3 at 4.0 TB/s, NVLink 900 GB/s, 400 W.
  h20: { id: 'h20', name: 'NVIDIA H20 96GB', bf16Tflops: 148, fp8Tflops: 296, int8Tops: 296, hbmTBps: 4.0, memBytes: 96 * GiB, bwEfficiency: 0.8, linkGBps: 450, linkLatencyUs: 6, tdpW: 400 },
  // NVIDIA HGX B200 data sheet, per GPU (÷ 8, sparsity removed): 2.25 PFLOPS BF16, 4.5 FP8/INT8, 180 GB HBM3e at
  // 8 TB/s, NVLink 5 1.8 TB/s (900 a direction), 1,000 W; FP4 (NVFP4 and MXFP4) 72 PFLOPS dense ÷ 8 = 9,000.
  b200: { id: 'b200', name: 'NVIDIA B200 180GB', bf16Tflops: 2250, fp8Tflops: 4500, int8Tops: 4500, fp4Tflops: 9000, fp4Formats: ['nvfp4', 'mxfp4'], hbmTBps: 8.0, memBytes: 180 * GiB, bwEfficiency: 0.8, matmulEfficiency: 0.776, linkGBps: 900, linkLatencyUs: 6, tdpW: 1000 },
  // NVIDIA HGX B300 data sheet (Blackwell Ultra), per GPU (÷ 8, sparsity removed): 2.25 PFLOPS BF16, 4.5 FP8,
  // 13.5 FP4 (108 PFLOPS dense for eight), 288 GB HBM3e at 8 TB/s, NVLink 5 1.8 TB/s, up to 1,100 W. Blackwell Ultra
  // drops most INT8 throughput, so int8 runs at the BF16 rate here.
  b300: { id: 'b300', name: 'NVIDIA B300 288GB', bf16Tflops: 2250, fp8Tflops: 4500, fp4Tflops: 13500, fp4Formats: ['nvfp4', 'mxfp4'], hbmTBps: 8.0, memBytes: 288 * GiB, bwEfficiency: 0.8, matmulEfficiency: 0.786, linkGBps: 900, linkLatencyUs: 6, tdpW: 1100 },
  // NVIDIA GB200 NVL72 data sheet, per GB200 superchip (two B200-class GPUs and a Grace CPU) ÷ 2, sparsity removed:
  // 2.5 PFLOPS BF16, 5 FP8/INT8, 10 FP4; 186 GB HBM3e at 8 TB/s per GPU; NVLink 5 1.8 TB/s (900 a direction) to all
  // 72 GPUs of the rack; ~1,200 W per GPU.
  gb200: { id: 'gb200', name: 'NVIDIA GB200 (NVL72) 186GB', bf16Tflops: 2500, fp8Tflops: 5000, int8Tops: 5000, fp4Tflops: 10000, fp4Formats: ['nvfp4', 'mxfp4'], hbmTBps: 8.0, memBytes: 186 * GiB, bwEfficiency: 0.8, matmulEfficiency: 0.729, linkGBps: 900, linkLatencyUs: 6, tdpW: 1200 },
  // NVIDIA A100 data sheet (SXM columns): 312 TFLOPS BF16, 624 TOPS INT8, no FP8.
  'a100-80gb': { id: 'a100-80gb', name: 'NVIDIA A100 SXM 80GB', bf16Tflops: 312, int8Tops: 624, hbmTBps: 2.039, memBytes: 80 * GiB, bwEfficiency: 0.8, matmulEfficiency: 0.869, linkGBps: 300, linkLatencyUs: 8, tdpW: 400, idleW: 55, smClockMhz: 1410, memClockMhz: 1593 },
  'a100-40gb': { id: 'a100-40gb', name: 'NVIDIA A100 SXM 40GB', bf16Tflops: 312, int8Tops: 624, hbmTBps: 1.555, memBytes: 40 * GiB, bwEfficiency: 0.8, matmulEfficiency: 0.869, linkGBps: 300, linkLatencyUs: 8, tdpW: 400, idleW: 50, smClockMhz: 1410, memClockMhz: 1215 },
  // NVIDIA L40S data sheet.
  l40s: { id: 'l40s', name: 'NVIDIA L40S 48GB', bf16Tflops: 362, fp8Tflops: 733, int8Tops: 733, hbmTBps: 0.864, memBytes: 48 * GiB, bwEfficiency: 0.8, linkGBps: 25, linkLatencyUs: 15, tdpW: 350, idleW: 35, smClockMhz: 2520, memClockMhz: 9001 },
  // NVIDIA L4 data sheet: 121 TFLOPS BF16, 242 FP8/INT8 (dense), 24 GB GDDR6 at 300 GB/s, 72 W, PCIe Gen4.
  l4: { id: 'l4', name: 'NVIDIA L4 24GB', bf16Tflops: 121, fp8Tflops: 242, int8Tops: 242, hbmTBps: 0.3, memBytes: 24 * GiB, bwEfficiency: 0.8, linkGBps: 25, linkLatencyUs: 15, tdpW: 72, smClockMhz: 2040 },
  // NVIDIA L20 product brief: 119.5 TFLOPS BF16, 239 FP8/INT8 (dense), 48 GB GDDR6 at 864 GB/s, 275 W, PCIe Gen4.
  l20: { id: 'l20', name: 'NVIDIA L20 48GB', bf16Tflops: 119.5, fp8Tflops: 239, int8Tops: 239, hbmTBps: 0.864, memBytes: 48 * GiB, bwEfficiency: 0.8, linkGBps: 25, linkLatencyUs: 15, tdpW: 275 },
  // NVIDIA A10 data sheet: 125 TFLOPS BF16, 250 TOPS INT8 (dense), no FP8, 24 GB GDDR6 at 600 GB/s, 150 W.
  a10: { id: 'a10', name: 'NVIDIA A10 24GB', bf16Tflops: 125, int8Tops: 250, hbmTBps: 0.6, memBytes: 24 * GiB, bwEfficiency: 0.8, linkGBps: 25, linkLatencyUs: 15, tdpW: 150, smClockMhz: 1695 },
  // NVIDIA Ada Lovelace architecture whitepaper (GeForce RTX 4090, FP32 accumulate): 165 BF16, 330 FP8, 661 INT8.
  rtx4090: { id: 'rtx4090', name: 'NVIDIA GeForce RTX 4090 24GB', bf16Tflops: 165, fp8Tflops: 330, int8Tops: 661, hbmTBps: 1.008, memBytes: 24 * GiB, bwEfficiency: 0.8, linkGBps: 25, linkLatencyUs: 15, tdpW: 450, idleW: 25, smClockMhz: 2520, memClockMhz: 10501 },
  // NVIDIA A40 data sheet.
  a40: { id: 'a40', name: 'NVIDIA A40 48GB', bf16Tflops: 149.7, int8Tops: 299.3, hbmTBps: 0.696, memBytes: 48 * GiB, bwEfficiency: 0.8, linkGBps: 25, linkLatencyUs: 15, tdpW: 300, idleW: 30, smClockMhz: 1740, memClockMhz: 7251 },
  // AMD Instinct MI300X data sheet: 1,307.4 TFLOPS BF16, 2,614.9 FP8/INT8 (dense), 192 GB HBM3 at 5.3 TB/s,
  // 7 Infinity Fabric links of 128 GB/s (896 GB/s, 448 a direction), 750 W. bwEfficiency assumed, not calibrated.
  // linkLatencyUs 14 (all-reduce floor 35 µs, assumed): RCCL's small all-reduce over Infinity Fabric takes ~30–40 µs,
  // about twice NCCL's over NVLink; the SGLang and vLLM points on MI300X/MI355X (docs/sim.md#fidelity) agree.
  mi300x: { id: 'mi300x', name: 'AMD Instinct MI300X 192GB', bf16Tflops: 1307.4, fp8Tflops: 2614.9, int8Tops: 2614.9, hbmTBps: 5.3, memBytes: 192 * GiB, bwEfficiency: 0.7, matmulEfficiency: 0.514, linkGBps: 448, linkLatencyUs: 14, tdpW: 750, smClockMhz: 2100 },
  // AMD Instinct MI325X data sheet: MI300X compute, 256 GB HBM3E at 6 TB/s, 1,000 W.
  mi325x: { id: 'mi325x', name: 'AMD Instinct MI325X 256GB', bf16Tflops: 1307.4, fp8Tflops: 2614.9, int8Tops: 2614.9, hbmTBps: 6.0, memBytes: 256 * GiB, bwEfficiency: 0.7, matmulEfficiency: 0.604, linkGBps: 448, linkLatencyUs: 14, tdpW: 1000, smClockMhz: 2100 },
  // AMD Instinct MI355X data sheet (CDNA 4): 2,516.6 TFLOPS BF16, 5,033.2 FP8, 10,066.4 MXFP4/MXFP6 (dense), 288 GB
  // HBM3E at 8 TB/s, Infinity Fabric 1,075 GB/s (538 a direction), 1,400 W. CDNA 4 has MXFP4 but not NVFP4 (16-value
  // FP8-scaled blocks) in hardware: NVFP4 takes the dequantize path. bwEfficiency as MI300X (assumed).
  mi355x: { id: 'mi355x', name: 'AMD Instinct MI355X 288GB', bf16Tflops: 2516.6, fp8Tflops: 5033.2, int8Tops: 5033.2, fp4Tflops: 10066.4, fp4Formats: ['mxfp4'], hbmTBps: 8.0, memBytes: 288 * GiB, bwEfficiency: 0.7, matmulEfficiency: 0.68, linkGBps: 538, linkLatencyUs: 14, tdpW: 1400, smClockMhz: 2400 },
  // Not a real part: a small, slow device that keeps engine tests quick and KV pressure easy to reach.
  'tiny-gpu': { id: 'tiny-gpu', name: 'tokenflood test device 2GB', bf16Tflops: 20, hbmTBps: 0.2, memBytes: 2 * GiB, bwEfficiency: 0.8, linkGBps: 25, linkLatencyUs: 15, tdpW: 75, idleW: 10, smClockMhz: 1500, memClockMhz: 1500 },
};

/** DeepSeek-V3's shape (deepseek-ai/DeepSeek-V3 config.json); DeepSeek-R1 has the same config. */
const DEEPSEEK_V3 = {
  layers: 61, hidden: 7168, heads: 128, kvHeads: 128, headDim: 128, intermediate: 2048, vocab: 129280,
  experts: 256, expertsPerToken: 8, sharedExperts: 1, denseLayers: 3, denseIntermediate: 18432,
  mla: { kvLoraRank: 512, qkRopeHeadDim: 64, qkNopeHeadDim: 128, vHeadDim: 128, qLoraRank: 1536 }, maxModelLen: 163840,
};

/**
 * Models, from each Hugging Face config.json (`hfName` is the repository id). Parameter counts are estimated from the
 * architecture. Sliding-window layer counts come from `layer_types` / `sliding_window_pattern` (see fromHfConfig).
 */
export const MODELS: Record<string, ModelProfile> = {
  'llama-3.1-8b': { id: 'llama-3.1-8b', hfName: 'meta-llama/Llama-3.1-8B-Instruct', layers: 32, hidden: 4096, heads: 32, kvHeads: 8, headDim: 128, intermediate: 14336, vocab: 128256, maxModelLen: 131072 },
  'llama-3.1-70b': { id: 'llama-3.1-70b', hfName: 'meta-llama/Llama-3.1-70B-Instruct', layers: 80, hidden: 8192, heads: 64, kvHeads: 8, headDim: 128, intermediate: 28672, vocab: 128256, maxModelLen: 131072 },
  'llama-2-7b': { id: 'llama-2-7b', hfName: 'meta-llama/Llama-2-7b-hf', layers: 32, hidden: 4096, heads: 32, kvHeads: 32, headDim: 128, intermediate: 11008, vocab: 32000, maxModelLen: 4096 },
  'llama-2-13b': { id: 'llama-2-13b', hfName: 'meta-llama/Llama-2-13b-hf', layers: 40, hidden: 5120, heads: 40, kvHeads: 40, headDim: 128, intermediate: 13824, vocab: 32000, maxModelLen: 4096 },
  'llama-2-70b': { id: 'llama-2-70b', hfName: 'meta-llama/Llama-2-70b-hf', layers: 80, hidden: 8192, heads: 64, kvHeads: 8, headDim: 128, intermediate: 28672, vocab: 32000, maxModelLen: 4096 },
  // Llama 4's chunked local attention (8,192-token chunks on 3 of every 4 layers) is modelled as a sliding window.
  'llama-4-scout': { id: 'llama-4-scout', hfName: 'meta-llama/Llama-4-Scout-17B-16E-Instruct', layers: 48, hidden: 5120, heads: 40, kvHeads: 8, headDim: 128, intermediate: 8192, vocab: 202048, experts: 16, expertsPerToken: 1, sharedExperts: 1, slidingWindow: 8192, slidingLayers: 36, maxModelLen: 10485760 },
  // Maverick: MoE on every 2nd layer (interleave_moe_layer_step 2), the other 24 dense with intermediate_size_mlp 16384.
  'llama-4-maverick': { id: 'llama-4-maverick', hfName: 'meta-llama/Llama-4-Maverick-17B-128E-Instruct', layers: 48, hidden: 5120, heads: 40, kvHeads: 8, headDim: 128, intermediate: 8192, vocab: 202048, experts: 128, expertsPerToken: 1, sharedExperts: 1, denseLayers: 24, denseIntermediate: 16384, slidingWindow: 8192, slidingLayers: 36, maxModelLen: 1048576 },
  // Llama 3.3 70B has Llama 3.1 70B's shape.
  'llama-3.3-70b': { id: 'llama-3.3-70b', hfName: 'meta-llama/Llama-3.3-70B-Instruct', layers: 80, hidden: 8192, heads: 64, kvHeads: 8, headDim: 128, intermediate: 28672, vocab: 128256, maxModelLen: 131072 },
  'qwen2.5-7b': { id: 'qwen2.5-7b', hfName: 'Qwen/Qwen2.5-7B-Instruct', layers: 28, hidden: 3584, heads: 28, kvHeads: 4, headDim: 128, intermediate: 18944, vocab: 152064, maxModelLen: 32768 },
  'qwen2.5-72b': { id: 'qwen2.5-72b', hfName: 'Qwen/Qwen2.5-72B-Instruct', layers: 80, hidden: 8192, heads: 64, kvHeads: 8, headDim: 128, intermediate: 29568, vocab: 152064, maxModelLen: 32768 },
  'qwen3-8b': { id: 'qwen3-8b', hfName: 'Qwen/Qwen3-8B', layers: 36, hidden: 4096, heads: 32, kvHeads: 8, headDim: 128, intermediate: 12288, vocab: 151936, maxModelLen: 40960, fp8Scaling: 'block' },
  'qwen3-32b': { id: 'qwen3-32b', hfName: 'Qwen/Qwen3-32B', layers: 64, hidden: 5120, heads: 64, kvHeads: 8, headDim: 128, intermediate: 25600, vocab: 151936, maxModelLen: 40960, fp8Scaling: 'block' },
  'qwen3-30b-a3b': { id: 'qwen3-30b-a3b', hfName: 'Qwen/Qwen3-30B-A3B', layers: 48, hidden: 2048, heads: 32, kvHeads: 4, headDim: 128, intermediate: 768, vocab: 151936, experts: 128, expertsPerToken: 8, maxModelLen: 40960, fp8Scaling: 'block' },
  'qwen3-235b-a22b': { id: 'qwen3-235b-a22b', hfName: 'Qwen/Qwen3-235B-A22B', layers: 94, hidden: 4096, heads: 64, kvHeads: 4, headDim: 128, intermediate: 1536, vocab: 151936, experts: 128, expertsPerToken: 8, maxModelLen: 40960, fp8Scaling: 'block' },
  // GLM-4.5-Air: first_k_dense_replace 1 (one dense layer of 10944), one shared expert of moe_intermediate_size.
  'glm-4.5-air': { id: 'glm-4.5-air', hfName: 'zai-org/GLM-4.5-Air', layers: 46, hidden: 4096, heads: 96, kvHeads: 8, headDim: 128, intermediate: 1408, vocab: 151552, experts: 128, expertsPerToken: 8, sharedExperts: 1, denseLayers: 1, denseIntermediate: 10944, maxModelLen: 131072 },
  // MiniMax-M2.5: 256 experts, top-8, no shared expert; released as block-scaled FP8.
  'minimax-m2.5': { id: 'minimax-m2.5', hfName: 'MiniMaxAI/MiniMax-M2.5', layers: 62, hidden: 3072, heads: 48, kvHeads: 8, headDim: 128, intermediate: 1536, vocab: 200064, experts: 256, expertsPerToken: 8, qkNormAcrossHeads: true, maxModelLen: 196608, releasedDtype: 'fp8', fp8Scaling: 'block' },
  'mistral-7b': { id: 'mistral-7b', hfName: 'mistralai/Mistral-7B-Instruct-v0.3', layers: 32, hidden: 4096, heads: 32, kvHeads: 8, headDim: 128, intermediate: 14336, vocab: 32768, maxModelLen: 32768 },
  // v0.1 is the Mistral with a sliding window (4,096 tokens) on every layer.
  'mistral-7b-v0.1': { id: 'mistral-7b-v0.1', hfName: 'mistralai/Mistral-7B-v0.1', layers: 32, hidden: 4096, heads: 32, kvHeads: 8, headDim: 128, intermediate: 14336, vocab: 32000, slidingWindow: 4096, slidingLayers: 32, maxModelLen: 32768 },
  // config.json says max_position_embeddings 1,024,000; the model card's supported context is 128k.
  'mistral-nemo': { id: 'mistral-nemo', hfName: 'mistralai/Mistral-Nemo-Instruct-2407', layers: 40, hidden: 5120, heads: 32, kvHeads: 8, headDim: 128, intermediate: 14336, vocab: 131072, maxModelLen: 131072 },
  'mixtral-8x7b': { id: 'mixtral-8x7b', hfName: 'mistralai/Mixtral-8x7B-Instruct-v0.1', layers: 32, hidden: 4096, heads: 32, kvHeads: 8, headDim: 128, intermediate: 14336, vocab: 32000, experts: 8, expertsPerToken: 2, maxModelLen: 32768 },
  'deepseek-r1-distill-qwen-32b': { id: 'deepseek-r1-distill-qwen-32b', hfName: 'deepseek-ai/DeepSeek-R1-Distill-Qwen-32B', layers: 64, hidden: 5120, heads: 40, kvHeads: 8, headDim: 128, intermediate: 27648, vocab: 152064, maxModelLen: 131072 },
  'deepseek-v3': { id: 'deepseek-v3', hfName: 'deepseek-ai/DeepSeek-V3', ...DEEPSEEK_V3, releasedDtype: 'fp8', fp8Scaling: 'block' },
  'deepseek-r1': { id: 'deepseek-r1', hfName: 'deepseek-ai/DeepSeek-R1', ...DEEPSEEK_V3, releasedDtype: 'fp8', fp8Scaling: 'block' },
  'kimi-k2': { id: 'kimi-k2', hfName: 'moonshotai/Kimi-K2-Instruct', ...DEEPSEEK_V3, heads: 64, kvHeads: 64, vocab: 163840, experts: 384, denseLayers: 1, maxModelLen: 131072, releasedDtype: 'fp8', fp8Scaling: 'block' },
  // gpt-oss: layer_types alternate sliding (128 tokens) and full attention; experts ship in MXFP4 (--weight-dtype mxfp4).
  'gpt-oss-20b': { id: 'gpt-oss-20b', hfName: 'openai/gpt-oss-20b', layers: 24, hidden: 2880, heads: 64, kvHeads: 8, headDim: 64, intermediate: 2880, vocab: 201088, experts: 32, expertsPerToken: 4, slidingWindow: 128, slidingLayers: 12, maxModelLen: 131072, releasedDtype: 'mxfp4' },
  'gpt-oss-120b': { id: 'gpt-oss-120b', hfName: 'openai/gpt-oss-120b', layers: 36, hidden: 2880, heads: 64, kvHeads: 8, headDim: 64, intermediate: 2880, vocab: 201088, experts: 128, expertsPerToken: 4, slidingWindow: 128, slidingLayers: 18, maxModelLen: 131072, releasedDtype: 'mxfp4' },
  // Gemma 3 (text_config): every 6th layer global, the other five local with a 1,024-token window; embeddings tied.
  'gemma-3-12b': { id: 'gemma-3-12b', hfName: 'google/gemma-3-12b-it', layers: 48, hidden: 3840, heads: 16, kvHeads: 8, headDim: 256, intermediate: 15360, vocab: 262208, tiedEmbeddings: true, slidingWindow: 1024, slidingLayers: 40, maxModelLen: 131072 },
  'gemma-3-27b': { id: 'gemma-3-27b', hfName: 'google/gemma-3-27b-it', layers: 62, hidden: 5376, heads: 32, kvHeads: 16, headDim: 128, intermediate: 21504, vocab: 262208, tiedEmbeddings: true, slidingWindow: 1024, slidingLayers: 52, maxModelLen: 131072 },
  // Multimodal models (issue 28): the language model's shape here; image/audio token rules and tower sizes in media.ts.
  'qwen2.5-vl-7b': { id: 'qwen2.5-vl-7b', hfName: 'Qwen/Qwen2.5-VL-7B-Instruct', layers: 28, hidden: 3584, heads: 28, kvHeads: 4, headDim: 128, intermediate: 18944, vocab: 152064, maxModelLen: 128000 },
  'qwen2.5-vl-72b': { id: 'qwen2.5-vl-72b', hfName: 'Qwen/Qwen2.5-VL-72B-Instruct', layers: 80, hidden: 8192, heads: 64, kvHeads: 8, headDim: 128, intermediate: 29568, vocab: 152064, maxModelLen: 128000 },
  'llava-1.5-7b': { id: 'llava-1.5-7b', hfName: 'llava-hf/llava-1.5-7b-hf', layers: 32, hidden: 4096, heads: 32, kvHeads: 32, headDim: 128, intermediate: 11008, vocab: 32064, maxModelLen: 4096 },
  // 40 decoder layers, 8 of them cross-attention to the image (modelled as ordinary layers).
  'llama-3.2-11b-vision': { id: 'llama-3.2-11b-vision', hfName: 'meta-llama/Llama-3.2-11B-Vision-Instruct', layers: 40, hidden: 4096, heads: 32, kvHeads: 8, headDim: 128, intermediate: 14336, vocab: 128256, maxModelLen: 131072 },
  'internvl3-8b': { id: 'internvl3-8b', hfName: 'OpenGVLab/InternVL3-8B', layers: 28, hidden: 3584, heads: 28, kvHeads: 4, headDim: 128, intermediate: 18944, vocab: 151674, maxModelLen: 32768 },
  // Qwen-7B language model (Qwen2-Audio-7B-Instruct text_config).
  'qwen2-audio-7b': { id: 'qwen2-audio-7b', hfName: 'Qwen/Qwen2-Audio-7B-Instruct', layers: 32, hidden: 4096, heads: 32, kvHeads: 32, headDim: 128, intermediate: 11008, vocab: 156032, maxModelLen: 8192 },
  // Whisper-large-v3's decoder (32 layers, d_model 1280, 20 heads, 448 target positions); the encoder is in media.ts.
  'whisper-large-v3': { id: 'whisper-large-v3', hfName: 'openai/whisper-large-v3', layers: 32, hidden: 1280, heads: 20, kvHeads: 20, headDim: 64, intermediate: 5120, vocab: 51866, tiedEmbeddings: true, maxModelLen: 448 },
  // Not a real model: ~60M parameters, for fast tests.
  tiny: { id: 'tiny', layers: 4, hidden: 512, heads: 8, kvHeads: 2, headDim: 64, intermediate: 2048, vocab: 32000, maxModelLen: 8192 },
};

export const DEFAULT_GPU = 'h100';
export const DEFAULT_MODEL = 'llama-3.1-8b';
