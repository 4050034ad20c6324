// Engine options (zod, every default here) and their resolution into the numbers the engine runs on.
import { z } from 'zod';
import { UsageError } from '../../errors.js';
import { DEFAULT_GPU, DEFAULT_MODEL } from './catalog.js';
import { attentionPeakTflops, blockScaledDenseRatio, expertBlockScaleRatio, FP8_SCALINGS, matmulScale, KV_DTYPE_BYTES, KV_DTYPES, kernelPath, type Fp8Scaling, modelPeakTflops, WEIGHT_DTYPES, weightBytes, type KernelPath, type KvDtype, type WeightDtype } from './dtypes.js';
import { paramBreakdown, type GpuProfile, type ModelProfile, type ParamBreakdown } from './profile.js';
import { resolveGpu, resolveModel } from './resolve-profile.js';
import { featureOptionsShape, resolveFeatures, stageLayers, draftWeightBytes, type FeatureSpec } from './features.js';
import { dpAttentionExtraBytes, parallelOptionsShape, parallelProblems } from './parallel.js';
import { BLOCK_TABLE_H2D_GBPS, blockTableRowBytes } from './max-len.js';
import { allReduceFusionApplies, FUSED_ALL_REDUCE_RATIO, kvBudgetBytes, schedulingOptionsShape, type BatchingMode, type SchedulePolicy, type SchedulingPolicy } from './scheduling.js';

const GiB = 1024 ** 3;

export { KV_DTYPE_BYTES, WEIGHT_DTYPE_BYTES, type KvDtype, type WeightDtype } from './dtypes.js';

/** Help default of --weight-dtype: the model's released precision (ModelProfile.releasedDtype). */
export const RELEASED_DTYPE_TEXT = 'as released: fp8 for DeepSeek-V3/R1 and Kimi K2, mxfp4 for gpt-oss, bf16 otherwise';

export const engineOptionsSchema = z.object({
  gpu: z.string().default(DEFAULT_GPU).describe('GPU id from the catalog or a GPU profile file'),
  model: z.string().default(DEFAULT_MODEL).describe('model profile id, profile file or Hugging Face config.json'),
  tp: z.number().int().min(1).max(64).default(1).describe('tensor-parallel GPUs per replica'),
  weightDtype: z.enum(WEIGHT_DTYPES).optional().describe('weight precision'),
  kvDtype: z.enum(KV_DTYPES).default('bf16').describe('KV cache precision'),
  fp8Scaling: z.enum(FP8_SCALINGS).optional().describe('scales of fp8 weights: block (one per 128x128 block, run at the BF16 rate on GPUs without block-scaled MMA such as H100/H200/MI300X) or tensor (per-tensor/per-channel, full FP8 rate) (docs/sim.md#precisions)'),
  maxNumSeqs: z.number().int().min(1).default(256).describe('max sequences in one step'),
  maxNumBatchedTokens: z.number().int().min(1).default(8192).describe('token budget of one step'),
  gpuMemoryUtilization: z.number().gt(0).lte(1).default(0.9).describe('fraction of GPU memory the engine may use'),
  maxModelLen: z.number().int().min(1).optional().describe('max prompt + output tokens (default model limit, capped by KV capacity)'),
  blockSize: z.number().int().min(1).default(16).describe('tokens per KV block'),
  prefixCaching: z.boolean().default(true).describe('reuse KV blocks of identical prompt prefixes'),
  numGpuBlocksOverride: z.number().int().min(1).optional().describe('force the number of KV blocks (as vLLM --num-gpu-blocks-override)'),
  reserveGiB: z.number().nonnegative().default(1.5).describe('memory kept for activations and CUDA graphs, per GPU'),
  mfu: z.number().gt(0).lte(1).default(0.65).describe('achieved fraction of peak FLOPs in compute-bound steps'),
  bwEfficiency: z.number().gt(0).lte(1).optional().describe('achieved fraction of peak HBM bandwidth (default GPU profile)'),
  stepOverheadMs: z.number().nonnegative().default(0.1).describe('fixed scheduler/launch cost per step'),
  layerOverheadMs: z.number().nonnegative().default(0.012).describe('kernel-launch cost per layer per step'),
  requestOverheadMs: z.number().nonnegative().default(0.015).describe('sampling/bookkeeping cost per scheduled request per step'),
  // Physics fitted in docs/sim.md#fidelity: overheads outside the engine, attention, all-reduce, MoE, async scheduling.
  apiServerMs: z.number().nonnegative().default(9).describe('per-request time outside the engine: HTTP, validation, IPC to the engine and back'),
  tokenizeMsPerToken: z.number().nonnegative().default(0.002).describe('prompt tokenization cost per prompt token'),
  detokenizeMsPerToken: z.number().nonnegative().default(0.05).describe('detokenization and streaming lag per output token of a chunk'),
  kvBwEfficiency: z.number().gt(0).lte(1).default(0.6).describe('achieved fraction of peak HBM bandwidth reading KV in decode attention (paged, short sequences)'),
  attnSeqOverheadUs: z.number().nonnegative().default(0.3).describe('attention kernel cost per scheduled sequence per layer'),
  allReduceLatencyUs: z.number().nonnegative().optional().describe('latency floor of one tensor-parallel all-reduce (default 2.5 x the GPU link latency)'),
  moeGemmEfficiency: z.number().gt(0).lte(1).default(0.35).describe('achieved share of --mfu by the routed experts\' grouped GEMMs (token permutation, small per-expert tiles) in compute-bound steps'),
  moeSliceHalfMiB: z.number().nonnegative().default(4).describe('per-GPU expert slice size (MiB) at which expert weight streaming reaches half the dense bandwidth: S / (S + this)'),
  moeLayerOverheadUs: z.number().nonnegative().default(25).describe('fixed cost of one MoE layer per step beyond its weight reads and FLOPs (gate, top-k, token alignment, grouped-GEMM launches, reduction)'),
  asyncScheduling: z.boolean().default(true).describe('schedule step N+1 while step N runs (vLLM --async-scheduling): a request arriving mid-step starts one step later'),
  ...featureOptionsShape,
  ...parallelOptionsShape,
  ...schedulingOptionsShape,
});
export type EngineOptions = z.input<typeof engineOptionsSchema>;

/** Everything the engine and the cost model need, in plain numbers. */
export interface EngineSpec {
  gpu: GpuProfile;
  model: ModelProfile;
  params: ParamBreakdown;
  tp: number;
  /** Expert-parallel GPUs (divides tp; 1 = experts sliced over TP), the routing skew, data-parallel attention (parallel.ts). */
  ep: number;
  epImbalance: number;
  dpAttention: boolean;
  /** Draft model (or EAGLE head) weights per GPU, taken from the KV budget (features.ts). */
  draftWeightBytesPerGpu: number;
  weightDtype: WeightDtype;
  /** Scaling of fp8 weights: --fp8-scaling, else the model profile's, else tensor (dtypes.ts blockScaleRatio). */
  fp8Scaling: Fp8Scaling;
  /** Native tensor cores for weightDtype, or weight-only kernels that dequantize to BF16 (dtypes.ts). */
  kernelPath: KernelPath;
  kvDtype: KvDtype;
  maxNumSeqs: number;
  maxNumBatchedTokens: number;
  blockSize: number;
  prefixCaching: boolean;
  maxModelLen: number;
  numBlocks: number;
  /** Weight bytes resident on each GPU. */
  weightBytesPerGpu: number;
  /** KV bytes one token adds in every layer, whole model (kvBytesPerToken); sliding layers stop adding past their window. */
  kvBytesPerToken: number;
  /** Same, on one GPU: kv heads split over TP, at least one per GPU (an MLA latent is replicated unless --dp-attention). */
  kvBytesPerTokenPerGpu: number;
  /** KV capacity in full-attention-equivalent tokens (numBlocks · blockSize); see kvEquivalentTokens. */
  kvCapacityTokens: number;
  /** Effective FLOP/s and byte/s of one GPU. */
  flopsPerSec: number;
  bytesPerSec: number;
  stepOverheadMs: number;
  layerOverheadMs: number;
  requestOverheadMs: number;
  apiServerMs: number;
  tokenizeMsPerToken: number;
  detokenizeMsPerToken: number;
  /** Effective byte/s of one GPU reading KV in attention kernels. */
  kvBytesPerSec: number;
  /** Effective FLOP/s of attention (QK and AV): the KV cache precision's tensor-core peak · mfu (dtypes.ts attentionPeakTflops). */
  attnFlopsPerSec: number;
  attnSeqOverheadUs: number;
  allReduceLatencyUs: number;
  moeLayerOverheadUs: number;
  moeGemmEfficiency: number;
  /** Routed experts' rate relative to flopsPerSec from their scaling format (dtypes.ts expertBlockScaleRatio). */
  expertScaleRatio: number;
  /**
   * Dense layers' (attention projections, shared experts, dense MLPs) rate relative to flopsPerSec: a block-scaled
   * FP8 checkpoint is block-scaled throughout, so its dense GEMMs take expertScaleRatio too (dtypes.ts
   * blockScaledDenseRatio); per-tensor or per-channel FP8 keeps the FP8 rate: 1.
   */
  denseScaleRatio: number;
  moeSliceHalfMiB: number;
  asyncScheduling: boolean;
  /** Engine scheduling differences (scheduling.ts, data/engines/*.yaml). */
  schedulePolicy: SchedulePolicy;
  batching: BatchingMode;
  schedulingPolicy: SchedulingPolicy;
  newTokenRatio: number;
  cudaGraphMaxBatch: number;
  eagerLayerOverheadMs: number;
  /** Block-table row uploaded per scheduled request per step (0 = none), and the host-to-GPU bandwidth (max-len.ts). */
  blockTableBytesPerRequest: number;
  hostToDeviceBytesPerSec: number;
  /** Speculative decoding, KV offload, pipeline stages (features.ts). */
  features: FeatureSpec;
}

/**
 * KV bytes one token adds to one layer on one GPU.
 * GQA/MHA: 2 (K and V) · max(1, ceil(kvHeads / tp)) · headDim · bytes;
 * MLA: (kvLoraRank + qkRopeHeadDim) · bytes, one latent shared by K and V and replicated on every TP rank.
 */
export function kvBytesPerLayerToken(m: ModelProfile, kvDtype: KvDtype, tp = 1): number {
  if (m.mla) return (m.mla.kvLoraRank + m.mla.qkRopeHeadDim) * KV_DTYPE_BYTES[kvDtype];
  return 2 * Math.max(1, Math.ceil(m.kvHeads / tp)) * m.headDim * KV_DTYPE_BYTES[kvDtype];
}

/** kv bytes/token = layers · kvBytesPerLayerToken (every layer, before any sliding window is full). */
export function kvBytesPerToken(m: ModelProfile, kvDtype: KvDtype, tp = 1): number {
  return m.layers * kvBytesPerLayerToken(m, kvDtype, tp);
}

/** Layer-tokens of KV a sequence of `tokens` holds: fullLayers · tokens + slidingLayers · min(tokens, window). */
export function kvLayerTokens(m: ModelProfile, tokens: number): number {
  const sliding = m.slidingWindow ? (m.slidingLayers ?? m.layers) : 0;
  return (m.layers - sliding) * tokens + sliding * Math.min(tokens, m.slidingWindow ?? tokens);
}

/** KV bytes of one sequence of `tokens` tokens: kvBytesPerLayerToken · kvLayerTokens. */
export function kvBytesForTokens(m: ModelProfile, kvDtype: KvDtype, tp: number, tokens: number): number {
  return kvBytesPerLayerToken(m, kvDtype, tp) * kvLayerTokens(m, tokens);
}

/** KV bytes one GPU holds for one sequence of `tokens` tokens (what a step reads for that context). */
export function kvBytesForContext(spec: Pick<EngineSpec, 'model' | 'kvDtype' | 'tp'>, tokens: number): number {
  return kvBytesForTokens(spec.model, spec.kvDtype, spec.tp, tokens);
}

/**
 * Full-attention-equivalent tokens of a sequence: kvLayerTokens / layers. The block pool counts in these units,
 * so a block holds blockSize · kvBytesPerTokenPerGpu bytes whatever the layer mix; = tokens without sliding layers.
 */
export function kvEquivalentTokens(m: ModelProfile, tokens: number): number {
  return m.slidingWindow ? kvLayerTokens(m, tokens) / m.layers : tokens;
}

/** Longest sequence whose KV fits in `equivalentTokens` (inverse of kvEquivalentTokens; Infinity when every layer slides). */
export function maxTokensForKv(m: ModelProfile, equivalentTokens: number): number {
  const w = m.slidingWindow;
  if (!w || equivalentTokens <= w) return equivalentTokens;
  const full = m.layers - (m.slidingLayers ?? m.layers);
  if (full === 0) return Infinity;
  return Math.floor(w + ((equivalentTokens - w) * m.layers) / full);
}

/** Resolve options to an EngineSpec; throws UsageError listing every problem (unknown ids, model too big, ...). */
export function resolveEngine(input: EngineOptions = {}): EngineSpec {
  const parsed = engineOptionsSchema.safeParse(input);
  if (!parsed.success) throw new UsageError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  const o = parsed.data;
  const problems: string[] = [];
  let gpu: GpuProfile | undefined;
  let model: ModelProfile | undefined;
  try { gpu = resolveGpu(o.gpu); } catch (e) { problems.push(...((e as UsageError).problems ?? [String(e)])); }
  try { model = resolveModel(o.model); } catch (e) { problems.push(...((e as UsageError).problems ?? [String(e)])); }
  if (!gpu || !model) throw new UsageError(problems);
  const params = paramBreakdown(model);
  // Unset: the precision the checkpoint was released in (a DeepSeek-V3 served as released is FP8, not BF16).
  const weightDtype: WeightDtype = o.weightDtype ?? model.releasedDtype ?? 'bf16';
  // Unset: the scaling of the model's FP8 checkpoint (block for DeepSeek, Qwen3, MiniMax), per-tensor otherwise.
  const fp8Scaling: Fp8Scaling = o.fp8Scaling ?? model.fp8Scaling ?? 'tensor';
  problems.push(...parallelProblems(model, o.tp, o.ep));
  if (problems.length) throw new UsageError(problems);
  const weightBytesPerGpu = (weightBytes(params, weightDtype) / o.tp + dpAttentionExtraBytes(model, weightDtype, o.tp, o.dpAttention)) / o.pp;
  const kvTok = kvBytesPerToken(model, o.kvDtype);
  // With pipeline stages each GPU holds the KV of its own layers only. With DP attention each GPU holds the whole KV
  // of its own requests (1/tp of them), so per token of the replica 1/tp of the unsplit KV (an MLA latent included).
  const kvTokAllStages = o.dpAttention ? kvBytesPerToken(model, o.kvDtype, 1) / o.tp : kvBytesPerToken(model, o.kvDtype, o.tp);
  const kvTokGpu = (kvTokAllStages * stageLayers(model.layers, o.pp)) / model.layers;
  const draftBytes = draftWeightBytes(o, weightBytesPerGpu, model.layers);
  const budget = kvBudgetBytes(gpu.memBytes, o.gpuMemoryUtilization, o.kvFreeMemoryFraction, weightBytesPerGpu + draftBytes + o.reserveGiB * GiB);
  const numBlocks = o.numGpuBlocksOverride ?? Math.floor(budget / (kvTokGpu * o.blockSize));
  if (numBlocks < 1) {
    const needGiB = (weightBytesPerGpu + draftBytes + o.reserveGiB * GiB) / GiB;
    throw new UsageError([
      `${model.id} (${weightDtype}) needs ${needGiB.toFixed(1)} GiB per GPU before any KV cache, but ${o.tp}x ${gpu.id} at gpu-memory-utilization ${o.gpuMemoryUtilization} offers ${((gpu.memBytes * o.gpuMemoryUtilization) / GiB).toFixed(1)} GiB: raise --tp or use a smaller dtype`,
    ]);
  }
  const kvCapacityTokens = numBlocks * o.blockSize;
  const kvMaxTokens = maxTokensForKv(model, kvCapacityTokens);
  const maxModelLen = o.maxModelLen ?? Math.min(model.maxModelLen, kvMaxTokens);
  if (o.maxModelLen !== undefined && o.maxModelLen > kvMaxTokens)
    problems.push(`max-model-len ${o.maxModelLen} exceeds the KV cache capacity of ${kvMaxTokens} tokens`);
  if (problems.length) throw new UsageError(problems);
  return {
    gpu,
    model,
    params,
    tp: o.tp,
    ep: o.ep,
    epImbalance: o.epImbalance,
    dpAttention: o.dpAttention,
    draftWeightBytesPerGpu: draftBytes,
    weightDtype,
    fp8Scaling,
    kvDtype: o.kvDtype,
    maxNumSeqs: o.maxNumSeqs,
    maxNumBatchedTokens: o.maxNumBatchedTokens,
    blockSize: o.blockSize,
    prefixCaching: o.prefixCaching,
    maxModelLen,
    numBlocks,
    weightBytesPerGpu,
    kvBytesPerToken: kvTok,
    kvBytesPerTokenPerGpu: kvTokGpu,
    kvCapacityTokens,
    flopsPerSec: modelPeakTflops(gpu, weightDtype, params, Math.min(model.expertsPerToken ?? 1, model.experts ?? 1), model.layers) * 1e12 * o.mfu * matmulScale(gpu),
    kernelPath: kernelPath(gpu, weightDtype),
    bytesPerSec: gpu.hbmTBps * 1e12 * (o.bwEfficiency ?? gpu.bwEfficiency),
    stepOverheadMs: o.stepOverheadMs,
    layerOverheadMs: o.layerOverheadMs,
    requestOverheadMs: o.requestOverheadMs,
    apiServerMs: o.apiServerMs,
    tokenizeMsPerToken: o.tokenizeMsPerToken,
    detokenizeMsPerToken: o.detokenizeMsPerToken,
    kvBytesPerSec: gpu.hbmTBps * 1e12 * o.kvBwEfficiency,
    attnFlopsPerSec: attentionPeakTflops(gpu, o.kvDtype) * 1e12 * o.mfu * matmulScale(gpu),
    attnSeqOverheadUs: o.attnSeqOverheadUs,
    // A small all-reduce crosses the link about twice (one-shot exchange, then the barrier) plus the kernel's own cost;
    // fused with the residual add and RMSNorm (SGLang's MoE models on Blackwell) the floor is 8.7/13.5 of that.
    allReduceLatencyUs: o.allReduceLatencyUs ?? 2.5 * gpu.linkLatencyUs * (allReduceFusionApplies(o, gpu, model.experts ?? 1) ? FUSED_ALL_REDUCE_RATIO : 1),
    moeLayerOverheadUs: o.moeLayerOverheadUs,
    moeGemmEfficiency: o.moeGemmEfficiency,
    expertScaleRatio: expertBlockScaleRatio(gpu, weightDtype, fp8Scaling),
    denseScaleRatio: blockScaledDenseRatio(gpu, weightDtype, fp8Scaling),
    moeSliceHalfMiB: o.moeSliceHalfMiB,
    asyncScheduling: o.asyncScheduling,
    schedulePolicy: o.schedulePolicy,
    batching: o.batching,
    schedulingPolicy: o.schedulingPolicy,
    newTokenRatio: o.newTokenRatio,
    cudaGraphMaxBatch: o.cudaGraphMaxBatch,
    eagerLayerOverheadMs: o.eagerLayerOverheadMs,
    blockTableBytesPerRequest: o.blockTableUpload ? blockTableRowBytes(maxModelLen, o.blockSize) : 0,
    hostToDeviceBytesPerSec: BLOCK_TABLE_H2D_GBPS * 1e9,
    features: resolveFeatures(o, kvTokGpu * o.blockSize),
  };
}
