// Capacity planner (pure): memory, KV capacity, prefill/decode times, bottleneck and GPUs needed for a target load.
import { z } from 'zod';
import { UsageError } from '../errors.js';
import { engineOptionsSchema, resolveEngine, type EngineSpec } from './engine/config.js';
import { decodeShape, stepCost } from './engine/cost.js';
import { constantOptions, tuningShape, withEngineProfile } from './engine/tuning.js';

const GiB = 1024 ** 3;

/** The engine's own validators and defaults (src/sim/engine/config.ts) for the knobs both share. */
const engine = engineOptionsSchema.shape;

export const capacityInputSchema = z.object({
  gpu: engine.gpu.describe('GPU id or GPU profile file'),
  modelProfile: engine.model,
  tp: engine.tp,
  weightDtype: engine.weightDtype,
  kvDtype: engine.kvDtype,
  inputTokens: z.number().int().min(1).default(1024).describe('prompt tokens per request'),
  outputTokens: z.number().int().min(1).default(256).describe('output tokens per request'),
  concurrency: z.number().int().min(1).optional().describe('target requests in flight'),
  rate: z.number().gt(0).optional().describe('target requests per second (concurrency from Little\'s law)'),
  margin: z.number().min(0).max(10).default(0.2).describe('safety margin added to the target concurrency when sizing replicas, as a fraction: 0.2 = 20% more'),
  gpuMemoryUtilization: engine.gpuMemoryUtilization.describe('fraction of GPU memory for weights + KV cache'),
  maxNumSeqs: engine.maxNumSeqs.describe('max sequences per step'),
  maxNumBatchedTokens: engine.maxNumBatchedTokens.describe('token budget per step'),
  engineProfile: tuningShape.engineProfile,
});
export type CapacityInput = z.input<typeof capacityInputSchema>;

export type Bottleneck = 'kv-capacity' | 'prefill-compute' | 'decode-bandwidth' | 'decode-compute';

export interface CapacityReport {
  model: string;
  gpu: string;
  tp: number;
  weightDtype: string;
  kvDtype: string;
  inputTokens: number;
  outputTokens: number;
  /** Weights of the whole model, and on each GPU (÷ tp). */
  weightBytes: number;
  weightBytesPerGpu: number;
  /** 2 · layers · kvHeads · headDim · dtype bytes. */
  kvBytesPerToken: number;
  /** kvBytesPerToken · (input + output). */
  kvBytesPerRequest: number;
  /** KV cache of one replica, in tokens, and in requests of input + output tokens. */
  kvCapacityTokens: number;
  kvCapacityRequests: number;
  /** Time to prefill the input on an idle replica (chunked by maxNumBatchedTokens). */
  prefillMs: number;
  /** Decode step time with 1 request, and with the per-replica concurrency, at the mean context (input + output/2). */
  tpotBatch1Ms: number;
  tpotAtConcurrencyMs: number;
  /** Concurrency asked for (or derived from rate), and per replica after sizing. */
  concurrency: number;
  concurrencyPerReplica: number;
  /** prefillMs + outputTokens · tpotAtConcurrencyMs */
  e2eMs: number;
  /** concurrencyPerReplica · 1000 / tpotAtConcurrencyMs */
  outputTokensPerSecondPerReplica: number;
  bottleneck: Bottleneck;
  bottleneckText: string;
  margin: number;
  /** Requests in flight one replica can hold: min(KV capacity, maxNumSeqs). */
  maxConcurrencyPerReplica: number;
  replicas: number;
  gpus: number;
}

/** Prefill of `tokens` fresh tokens for one request, in chunks of at most `budget` tokens. */
export function prefillMs(spec: EngineSpec, tokens: number): number {
  let done = 0;
  let ms = 0;
  while (done < tokens) {
    const n = Math.min(spec.maxNumBatchedTokens, tokens - done);
    ms += stepCost(spec, { requests: 1, newTokens: n, contextTokens: done, attentionPairs: n * done + (n * (n + 1)) / 2 }).totalMs;
    done += n;
  }
  return ms;
}

function bottleneckOf(r: Omit<CapacityReport, 'bottleneck' | 'bottleneckText'>, decodeComputeBound: boolean): [Bottleneck, string] {
  if (r.concurrency * (1 + r.margin) > r.kvCapacityRequests)
    return ['kv-capacity', `KV cache capacity: one replica holds ${r.kvCapacityRequests} requests of ${r.inputTokens + r.outputTokens} tokens; more concurrency queues or preempts, so add replicas (or use fp8 KV / more TP)`];
  // GPU time per request lifetime: every request in the batch is prefilled once while the batch decodes `outputTokens` steps.
  const prefillWork = r.concurrencyPerReplica * r.prefillMs;
  if (prefillWork > r.outputTokens * r.tpotAtConcurrencyMs)
    return ['prefill-compute', `prefill compute: prefilling ${r.concurrencyPerReplica} x ${r.inputTokens} tokens (${prefillWork.toFixed(0)} ms of GPU time) outweighs decoding ${r.outputTokens} tokens; TTFT and prefill stalls dominate`];
  if (decodeComputeBound)
    return ['decode-compute', `decode compute: at ${r.concurrencyPerReplica} requests per replica the decode step is FLOP-bound; more batch no longer comes free`];
  return ['decode-bandwidth', `decode memory bandwidth: each step streams ${(r.weightBytesPerGpu / GiB).toFixed(1)} GiB of weights plus the KV cache per GPU; TPOT tracks HBM bandwidth`];
}

/** Size a deployment. Throws UsageError for bad inputs or a model that does not fit. */
export function planCapacity(input: CapacityInput): CapacityReport {
  // The profile's deployment fills unset flags; its fitted constants go to the engine as they are (its feature keys are not modelled here).
  const merged = withEngineProfile(input as Record<string, unknown>);
  const parsed = capacityInputSchema.safeParse(merged);
  if (!parsed.success) throw new UsageError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  const o = parsed.data;
  const spec = resolveEngine({
    gpu: o.gpu, model: o.modelProfile, tp: o.tp, weightDtype: o.weightDtype, kvDtype: o.kvDtype,
    gpuMemoryUtilization: o.gpuMemoryUtilization, maxNumSeqs: o.maxNumSeqs, maxNumBatchedTokens: o.maxNumBatchedTokens,
    maxModelLen: undefined,
    ...constantOptions(merged),
  });
  const seqTokens = o.inputTokens + o.outputTokens;
  const kvCapacityRequests = Math.floor(spec.kvCapacityTokens / seqTokens);
  const maxConcurrencyPerReplica = Math.max(1, Math.min(kvCapacityRequests, o.maxNumSeqs));
  const meanContext = o.inputTokens + o.outputTokens / 2;
  const tpotAt = (batch: number): number => stepCost(spec, decodeShape(batch, meanContext)).totalMs;
  const prefill = prefillMs(spec, o.inputTokens);
  const tpot1 = tpotAt(1);

  // With a rate, concurrency = rate · e2e (Little's law); e2e depends on the batch, so iterate to a fixed point.
  let concurrency = o.concurrency ?? 1;
  if (o.rate !== undefined) {
    let c = 1;
    for (let i = 0; i < 20; i++) {
      const perReplica = Math.min(c, maxConcurrencyPerReplica);
      c = Math.max(1, Math.ceil((o.rate * (prefill + o.outputTokens * tpotAt(perReplica))) / 1000));
    }
    concurrency = o.concurrency !== undefined ? Math.min(o.concurrency, c) : c;
  }
  const target = concurrency * (1 + o.margin);
  const replicas = Math.max(1, Math.ceil(target / maxConcurrencyPerReplica));
  const concurrencyPerReplica = Math.max(1, Math.ceil(concurrency / replicas));
  const tpotC = tpotAt(concurrencyPerReplica);
  const cost = stepCost(spec, decodeShape(concurrencyPerReplica, meanContext));
  const base = {
    model: spec.model.id,
    gpu: spec.gpu.id,
    tp: spec.tp,
    weightDtype: spec.weightDtype,
    kvDtype: spec.kvDtype,
    inputTokens: o.inputTokens,
    outputTokens: o.outputTokens,
    weightBytes: spec.weightBytesPerGpu * spec.tp,
    weightBytesPerGpu: spec.weightBytesPerGpu,
    kvBytesPerToken: spec.kvBytesPerToken,
    kvBytesPerRequest: spec.kvBytesPerToken * seqTokens,
    kvCapacityTokens: spec.kvCapacityTokens,
    kvCapacityRequests,
    prefillMs: prefill,
    tpotBatch1Ms: tpot1,
    tpotAtConcurrencyMs: tpotC,
    concurrency,
    concurrencyPerReplica,
    e2eMs: prefill + o.outputTokens * tpotC,
    outputTokensPerSecondPerReplica: (concurrencyPerReplica * 1000) / tpotC,
    margin: o.margin,
    maxConcurrencyPerReplica,
    replicas,
    gpus: replicas * spec.tp,
  };
  const [bottleneck, bottleneckText] = bottleneckOf(base, cost.computeMs > cost.memoryMs);
  return { ...base, bottleneck, bottleneckText };
}
