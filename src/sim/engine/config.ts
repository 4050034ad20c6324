// Engine options (zod, every default here) and their resolution into the numbers the engine runs on.
import { z } from 'zod';
import { UsageError } from '../../errors.js';
import { DEFAULT_GPU, DEFAULT_MODEL } from './catalog.js';
import { paramBreakdown, type GpuProfile, type ModelProfile, type ParamBreakdown } from './profile.js';
import { resolveGpu, resolveModel } from './resolve-profile.js';
import { featureOptionsShape, resolveFeatures, stageLayers, type FeatureSpec } from './features.js';

const GiB = 1024 ** 3;

export const WEIGHT_DTYPE_BYTES = { bf16: 2, fp16: 2, fp8: 1, int4: 0.5 } as const;
export const KV_DTYPE_BYTES = { bf16: 2, fp16: 2, fp8: 1 } as const;
export type WeightDtype = keyof typeof WEIGHT_DTYPE_BYTES;
export type KvDtype = keyof typeof KV_DTYPE_BYTES;

export const engineOptionsSchema = z.object({
  gpu: z.string().default(DEFAULT_GPU).describe('GPU id from the catalog or a GPU profile file'),
  model: z.string().default(DEFAULT_MODEL).describe('model profile id, profile file or Hugging Face config.json'),
  tp: z.number().int().min(1).max(64).default(1).describe('tensor-parallel GPUs per replica'),
  weightDtype: z.enum(['bf16', 'fp16', 'fp8', 'int4']).default('bf16').describe('weight precision'),
  kvDtype: z.enum(['bf16', 'fp16', 'fp8']).default('bf16').describe('KV cache precision'),
  maxNumSeqs: z.number().int().min(1).default(256).describe('max sequences in one step'),
  maxNumBatchedTokens: z.number().int().min(1).default(8192).describe('token budget of one step'),
  gpuMemoryUtilization: z.number().gt(0).lte(1).default(0.9).describe('fraction of GPU memory the engine may use'),
  maxModelLen: z.number().int().min(1).optional().describe('max prompt + output tokens (default model limit, capped by KV capacity)'),
  blockSize: z.number().int().min(1).default(16).describe('tokens per KV block'),
  prefixCaching: z.boolean().default(true).describe('reuse KV blocks of identical prompt prefixes'),
  numGpuBlocksOverride: z.number().int().min(1).optional().describe('force the number of KV blocks (as vLLM --num-gpu-blocks-override)'),
  reserveGiB: z.number().nonnegative().default(1.5).describe('memory kept for activations and CUDA graphs, per GPU'),
  mfu: z.number().gt(0).lte(1).default(0.5).describe('achieved fraction of peak FLOPs in compute-bound steps'),
  bwEfficiency: z.number().gt(0).lte(1).optional().describe('achieved fraction of peak HBM bandwidth (default GPU profile)'),
  stepOverheadMs: z.number().nonnegative().default(0.06).describe('fixed scheduler/launch cost per step'),
  layerOverheadMs: z.number().nonnegative().default(0.0015).describe('kernel-launch cost per layer per step'),
  requestOverheadMs: z.number().nonnegative().default(0.005).describe('sampling/bookkeeping cost per scheduled request per step'),
  ...featureOptionsShape,
});
export type EngineOptions = z.input<typeof engineOptionsSchema>;

/** Everything the engine and the cost model need, in plain numbers. */
export interface EngineSpec {
  gpu: GpuProfile;
  model: ModelProfile;
  params: ParamBreakdown;
  tp: number;
  weightDtype: WeightDtype;
  kvDtype: KvDtype;
  maxNumSeqs: number;
  maxNumBatchedTokens: number;
  blockSize: number;
  prefixCaching: boolean;
  maxModelLen: number;
  numBlocks: number;
  /** Weight bytes resident on each GPU. */
  weightBytesPerGpu: number;
  /** 2·layers·kvHeads·headDim·bytes for the whole model. */
  kvBytesPerToken: number;
  /** Same, on one GPU: kv heads split over TP, at least one per GPU. */
  kvBytesPerTokenPerGpu: number;
  kvCapacityTokens: number;
  /** Effective FLOP/s and byte/s of one GPU. */
  flopsPerSec: number;
  bytesPerSec: number;
  stepOverheadMs: number;
  layerOverheadMs: number;
  requestOverheadMs: number;
  /** Speculative decoding, KV offload, pipeline stages (features.ts). */
  features: FeatureSpec;
}

/** kv bytes/token = 2 (K and V) · layers · kvHeads · headDim · dtype bytes. */
export function kvBytesPerToken(m: ModelProfile, kvDtype: KvDtype, tp = 1): number {
  const heads = Math.max(1, Math.ceil(m.kvHeads / tp));
  return 2 * m.layers * heads * m.headDim * KV_DTYPE_BYTES[kvDtype];
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
  const weightBytesPerGpu = (params.total * WEIGHT_DTYPE_BYTES[o.weightDtype]) / o.tp / o.pp;
  const kvTok = kvBytesPerToken(model, o.kvDtype);
  // With pipeline stages each GPU holds the KV of its own layers only.
  const kvTokGpu = (kvBytesPerToken(model, o.kvDtype, o.tp) * stageLayers(model.layers, o.pp)) / model.layers;
  const budget = gpu.memBytes * o.gpuMemoryUtilization - weightBytesPerGpu - o.reserveGiB * GiB;
  const numBlocks = o.numGpuBlocksOverride ?? Math.floor(budget / (kvTokGpu * o.blockSize));
  if (numBlocks < 1) {
    const needGiB = (weightBytesPerGpu + o.reserveGiB * GiB) / GiB;
    throw new UsageError([
      `${model.id} (${o.weightDtype}) needs ${needGiB.toFixed(1)} GiB per GPU before any KV cache, but ${o.tp}x ${gpu.id} at gpu-memory-utilization ${o.gpuMemoryUtilization} offers ${((gpu.memBytes * o.gpuMemoryUtilization) / GiB).toFixed(1)} GiB: raise --tp or use a smaller dtype`,
    ]);
  }
  const kvCapacityTokens = numBlocks * o.blockSize;
  const maxModelLen = o.maxModelLen ?? Math.min(model.maxModelLen, kvCapacityTokens);
  if (o.maxModelLen !== undefined && o.maxModelLen > kvCapacityTokens)
    problems.push(`max-model-len ${o.maxModelLen} exceeds the KV cache capacity of ${kvCapacityTokens} tokens`);
  if (problems.length) throw new UsageError(problems);
  const fp8Compute = o.weightDtype === 'fp8' && gpu.fp8Tflops !== undefined;
  return {
    gpu,
    model,
    params,
    tp: o.tp,
    weightDtype: o.weightDtype,
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
    flopsPerSec: (fp8Compute ? gpu.fp8Tflops! : gpu.bf16Tflops) * 1e12 * o.mfu,
    bytesPerSec: gpu.hbmTBps * 1e12 * (o.bwEfficiency ?? gpu.bwEfficiency),
    stepOverheadMs: o.stepOverheadMs,
    layerOverheadMs: o.layerOverheadMs,
    requestOverheadMs: o.requestOverheadMs,
    features: resolveFeatures(o, kvTokGpu * o.blockSize),
  };
}
