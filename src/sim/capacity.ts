// Capacity planner (pure): memory, KV capacity, prefill/decode times, bottleneck, utilization, headroom and GPUs needed for a target load.
import { z } from 'zod';
import { UsageError } from '../errors.js';
import { engineOptionsSchema, kvBytesForTokens, kvEquivalentTokens, resolveEngine, type EngineSpec } from './engine/config.js';
import { decodeShape, linearComputeMs, linearFlopsParts, type StepShape } from './engine/cost.js';
import { featureOptionsShape } from './engine/features.js';
import { parallelOptionsShape } from './engine/parallel.js';
import { engineStepCost, prefillOnlyMs } from './engine/pipeline.js';
import { draftMs, expectedTokensPerStep } from './engine/spec-decode.js';
import { peakTflops, weightBytes } from './engine/dtypes.js';
import { attentionFlopsPerPair } from './engine/profile.js';
import { constantOptions, tuningShape, withEngineProfile } from './engine/tuning.js';

const GiB = 1024 ** 3;

/** The engine's own validators and defaults (src/sim/engine/config.ts) for the knobs both share. */
const engine = engineOptionsSchema.shape;

export const capacityInputSchema = z.object({
  gpu: engine.gpu.describe('GPU id or GPU profile file'),
  modelProfile: engine.model,
  tp: engine.tp.describe('tensor-parallel GPUs per replica'),
  weightDtype: engine.weightDtype,
  fp8Scaling: engine.fp8Scaling,
  kvDtype: engine.kvDtype,
  inputTokens: z.number().int().min(1).default(1024).describe('prompt tokens per request'),
  outputTokens: z.number().int().min(1).default(256).describe('output tokens per request'),
  longShare: z.number().min(0).max(1).default(0).describe('share of requests that are long (0..1), sized by --long-input-tokens and --long-output-tokens'),
  longInputTokens: z.number().int().min(1).optional().describe('prompt tokens of a long request (needed with --long-share)'),
  longOutputTokens: z.number().int().min(1).optional().describe('output tokens of a long request'),
  concurrency: z.number().int().min(1).optional().describe('target requests in flight'),
  rate: z.number().gt(0).optional().describe('target requests per second (concurrency from Little\'s law)'),
  margin: z.number().min(0).max(10).default(0.2).describe('safety margin added to the target concurrency when sizing replicas, as a fraction: 0.2 = 20% more'),
  gpuMemoryUtilization: engine.gpuMemoryUtilization.describe('fraction of GPU memory for weights + KV cache'),
  maxNumSeqs: engine.maxNumSeqs.describe('max sequences per step'),
  maxNumBatchedTokens: engine.maxNumBatchedTokens.describe('token budget per step'),
  mfu: engine.mfu,
  // Parallelism and the features that change memory or step time (the engine's own validators, see docs/capacity.md).
  pp: featureOptionsShape.pp,
  ep: parallelOptionsShape.ep,
  epImbalance: parallelOptionsShape.epImbalance,
  dpAttention: parallelOptionsShape.dpAttention,
  disagg: featureOptionsShape.disagg,
  disaggLinkGBps: featureOptionsShape.disaggLinkGBps,
  specMethod: featureOptionsShape.specMethod,
  specTokens: featureOptionsShape.specTokens,
  specAcceptance: featureOptionsShape.specAcceptance,
  specDraftCost: featureOptionsShape.specDraftCost,
  specDraftGiB: featureOptionsShape.specDraftGiB,
  kvOffloadGiB: featureOptionsShape.kvOffloadGiB,
  engineProfile: tuningShape.engineProfile,
  engine: tuningShape.engine,
  kvFreeMemoryFraction: tuningShape.kvFreeMemoryFraction,
  blockSize: engine.blockSize,
  // A decode batch above the largest CUDA graph runs eagerly (slower TPOT at high concurrency per replica).
  cudaGraphMaxBatch: tuningShape.cudaGraphMaxBatch,
  eagerLayerOverheadMs: tuningShape.eagerLayerOverheadMs,
});
export type CapacityInput = z.input<typeof capacityInputSchema>;

export type Bottleneck = 'kv-capacity' | 'prefill-compute' | 'decode-bandwidth' | 'decode-compute';
/** What runs out first as load grows: KV cache, sequence slots (max_num_seqs) or FLOPs at --mfu. */
export type HeadroomLimit = 'kv-capacity' | 'max-num-seqs' | 'compute';

export interface CapacityReport {
  model: string;
  gpu: string;
  tp: number;
  /** Pipeline stages, expert-parallel GPUs, DP attention; prefill and decode instances per replica with --disagg (1 and 1 without). */
  pp: number;
  ep: number;
  dpAttention: boolean;
  prefillInstances: number;
  decodeInstances: number;
  /** GPUs of one replica: tp · pp · (prefill + decode instances with --disagg, else 1). */
  gpusPerReplica: number;
  /** Draft model (or EAGLE head) weights per GPU, and the tokens one decode step emits per sequence (1 without spec decode). */
  draftWeightBytesPerGpu: number;
  tokensPerStep: number;
  /** KV tokens the host memory of --kv-offload-gib holds per replica (evicted prefixes, preempted requests; not in-flight capacity). */
  kvOffloadTokens: number;
  /** True when --tp was not given and tp is the smallest power of two whose GPUs hold the weights. */
  tpAuto: boolean;
  /** The --engine preset the defaults came from (data/engines), null without one. */
  engine: string | null;
  /** What the preset set: "sglang defaults (data/engines/sglang.yaml): KV = 0.88 of memory − weights, ..."; null without --engine. */
  engineText: string | null;
  weightDtype: string;
  kvDtype: string;
  inputTokens: number;
  outputTokens: number;
  /** Share of long requests and their size (0 and the short size when there are none). */
  longShare: number;
  longInputTokens: number;
  longOutputTokens: number;
  mfu: number;
  /** Weights of the whole model, and on each GPU (÷ tp). */
  weightBytes: number;
  weightBytesPerGpu: number;
  /** KV bytes one token adds in every layer, whole model: layers · 2 · kvHeads · headDim · bytes (MLA: layers · (kvLoraRank + rope) · bytes). */
  kvBytesPerToken: number;
  /** KV of a 1,024-token sequence, whole model (sliding layers capped at their window). */
  kvBytesPerKTokens: number;
  /** Mean KV of one request at its full length, over the request mix. */
  kvBytesPerRequest: number;
  /** KV cache of one replica, in full-attention-equivalent tokens, and in requests of the mix at full length. */
  kvCapacityTokens: number;
  kvCapacityRequests: number;
  /** Time to prefill the input on an idle replica (chunked by maxNumBatchedTokens); the long request's too. */
  prefillMs: number;
  prefillLongMs: number;
  /** Decode step time with 1 request, and with the per-replica concurrency, at the mean context of the decoding requests. */
  tpotBatch1Ms: number;
  tpotAtConcurrencyMs: number;
  /** Concurrency asked for (or derived from rate), and per replica after sizing. */
  concurrency: number;
  concurrencyPerReplica: number;
  /** prefillMs + outputTokens · tpotAtConcurrencyMs; the long request's; the mean over the mix. */
  e2eMs: number;
  e2eLongMs: number;
  meanE2eMs: number;
  /** concurrencyPerReplica · 1000 / tpotAtConcurrencyMs */
  outputTokensPerSecondPerReplica: number;
  /** Requests per second per replica: --rate / replicas, or concurrencyPerReplica · 1000 / meanE2eMs (Little's law). */
  requestsPerSecondPerReplica: number;
  bottleneck: Bottleneck;
  bottleneckText: string;
  margin: number;
  /** Requests in flight one replica can hold: min(KV capacity, maxNumSeqs). */
  maxConcurrencyPerReplica: number;
  replicas: number;
  gpus: number;
  /** concurrencyPerReplica · mean KV tokens of a request at full length / kvCapacityTokens. */
  kvUtilization: number;
  /** Of the decode step at concurrencyPerReplica: FLOPs / (peak FLOP/s · step time), bytes / (peak HBM B/s · step time). */
  decodeComputeUtilization: number;
  decodeBandwidthUtilization: number;
  /**
   * Compute time the load needs per replica / (GPUs per replica · 1 s): rate · requestComputeGpuMs / 1000 / GPUs, each
   * FLOP at the rate the step model runs it (= FLOP/s needed / (GPUs · computeTflopsPerGpu)).
   */
  computeUtilization: number;
  /** FLOP/s one GPU gives the request mix at --mfu in the step model: requestFlops / requestComputeGpuMs (TFLOPS). */
  computeTflopsPerGpu: number;
  /** How much more load fits before the first limit: min(kv, seqs, compute headroom) − 1 (0.5 = 50% more; < 0 = over). */
  headroom: number;
  headroomLimit: HeadroomLimit;
  headroomText: string;
  /** Replicas that hold the target concurrency with the margin: ceil(concurrency · (1 + margin) / maxConcurrencyPerReplica). */
  replicasForConcurrency: number;
  /**
   * Replicas the load needs for FLOPs alone: the smallest n with n · computeUtilization(n) · (1 + margin) ≤ n, i.e. each
   * replica's load at most 1 / (1 + margin) of its FLOPs at --mfu. replicas = max(replicasForConcurrency, replicasForCompute).
   */
  replicasForCompute: number;
}

/** Prefill of `tokens` fresh tokens for one request, in chunks of at most maxNumBatchedTokens (pipeline.ts). */
export const prefillMs = prefillOnlyMs;

/** Query-key pairs of one whole request: in·(in+1)/2 + out·(in + (out+1)/2). */
function requestPairs(input: number, output: number): number {
  return (input * (input + 1)) / 2 + output * (input + (output + 1) / 2);
}

/** FLOPs of one whole request, all GPUs: 2·active·(in + out) + attention over in·(in+1)/2 + out·(in + (out+1)/2) pairs. */
export function requestFlops(spec: EngineSpec, input: number, output: number): number {
  return 2 * spec.params.activePerToken * (input + output) + attentionFlopsPerPair(spec.model) * requestPairs(input, output);
}

/**
 * GPU-milliseconds of compute one whole request needs, summed over the GPUs of a replica, at the rates the step model
 * runs each kind of FLOP (cost.ts linearComputeMs, attnFlopsPerSec): the dense layers at peak·mfu·gpu_scale (BF16
 * rate for a block-scaled FP8 checkpoint on Hopper), the routed experts as grouped GEMMs (moeGemmEfficiency, block
 * scales, the busiest expert's load in a full step), attention at the KV precision's peak. requestFlops / this = the
 * FLOP/s one GPU gives the request.
 */
export function requestComputeGpuMs(spec: EngineSpec, input: number, output: number): number {
  // Linear FLOPs per token of a full step (maxNumBatchedTokens tokens, where compute limits), all GPUs: the busiest
  // expert's (TP) or GPU's (EP) load at that step size included, as stepCost charges it.
  const full = spec.maxNumBatchedTokens;
  const ref = linearFlopsParts(spec, full);
  const perToken = (x: number): number => (x * spec.tp * (input + output)) / full;
  const lin = { dense: perToken(ref.dense), expert: perToken(ref.expert) };
  return linearComputeMs(spec, lin) + ((attentionFlopsPerPair(spec.model) * requestPairs(input, output)) / spec.attnFlopsPerSec) * 1000;
}

type Base = Omit<CapacityReport, 'bottleneck' | 'bottleneckText' | 'headroom' | 'headroomLimit' | 'headroomText'>;

function bottleneckOf(r: Base, meanPrefillMs: number, meanOutput: number, decodeComputeBound: boolean): [Bottleneck, string] {
  if (r.concurrency * (1 + r.margin) > r.kvCapacityRequests)
    return ['kv-capacity', `KV cache capacity: one replica holds ${r.kvCapacityRequests} requests of ${requestText(r)}; more concurrency queues or preempts, so add replicas (or use fp8 KV / more TP)`];
  // GPU time per request lifetime: every request in the batch is prefilled once while the batch decodes `outputTokens` steps.
  const prefillWork = r.concurrencyPerReplica * meanPrefillMs;
  if (prefillWork > meanOutput * r.tpotAtConcurrencyMs)
    return ['prefill-compute', `prefill compute: prefilling ${r.concurrencyPerReplica} x ${r.longShare > 0 ? 'the mix' : `${r.inputTokens} tokens`} (${prefillWork.toFixed(0)} ms of GPU time) outweighs decoding ${Number(meanOutput.toFixed(1))} tokens; TTFT and prefill stalls dominate`];
  if (decodeComputeBound)
    return ['decode-compute', `decode compute: at ${r.concurrencyPerReplica} requests per replica the decode step is FLOP-bound; more batch no longer comes free`];
  return ['decode-bandwidth', `decode memory bandwidth: each step streams ${(r.weightBytesPerGpu / GiB).toFixed(1)} GiB of weights plus the KV cache per GPU; TPOT tracks HBM bandwidth`];
}

function requestText(r: Pick<CapacityReport, 'inputTokens' | 'outputTokens' | 'longShare' | 'longInputTokens' | 'longOutputTokens'>): string {
  const short = `${r.inputTokens + r.outputTokens} tokens`;
  if (r.longShare === 0) return short;
  return `the mix (${Number(((1 - r.longShare) * 100).toFixed(1))}% of ${short}, ${Number((r.longShare * 100).toFixed(1))}% of ${r.longInputTokens + r.longOutputTokens})`;
}

const pct = (x: number): string => `${Number((x * 100).toFixed(1))}%`;

function headroomOf(r: Base, maxNumSeqs: number): [number, HeadroomLimit, string] {
  const limits: [HeadroomLimit, number][] = [
    ['kv-capacity', r.kvUtilization > 0 ? 1 / r.kvUtilization : Infinity],
    ['max-num-seqs', maxNumSeqs / r.concurrencyPerReplica],
    ['compute', r.computeUtilization > 0 ? 1 / r.computeUtilization : Infinity],
  ];
  const [limit, factor] = limits.reduce((a, b) => (b[1] < a[1] ? b : a));
  const headroom = factor - 1;
  const gpus = `${r.gpusPerReplica} GPU${r.gpusPerReplica === 1 ? '' : 's'}`;
  const what = { 'kv-capacity': `the KV cache (${pct(r.kvUtilization)} used)`, 'max-num-seqs': `max-num-seqs ${maxNumSeqs} (${r.concurrencyPerReplica} in use)`, compute: `the FLOPs of ${gpus} at --mfu ${r.mfu} (${pct(r.computeUtilization)} used)` }[limit];
  const over = { 'kv-capacity': 'the KV cache of a replica', 'max-num-seqs': `max-num-seqs ${maxNumSeqs}`, compute: `the FLOPs ${gpus} give at --mfu ${r.mfu}` }[limit];
  const text = headroom >= 1
    ? `${Number(factor.toFixed(1))}x the load fits before ${what}`
    : headroom >= 0
    ? `${pct(headroom)} more load fits before ${what}`
    : `over capacity: the load needs ${Number((1 / factor).toFixed(2))}x ${over}${limit === 'compute' ? `; ${r.replicasForCompute} replicas carry it with the margin` : ''}`;
  return [headroom, limit, text];
}

/** Without --tp: the smallest power of two up to 64 whose GPUs hold the weights; the TP-1 error when none does. */
function smallestTpThatFits(engineAt: (tp: number) => EngineSpec): EngineSpec {
  let first: unknown;
  for (let tp = 1; tp <= 64; tp *= 2) {
    try {
      return engineAt(tp);
    } catch (e) {
      first ??= e;
      if (!(e instanceof UsageError) || !/ needs [\d.]+ GiB per GPU before any KV cache/.test(e.message + (e.problems ?? []).join('\n'))) break;
    }
  }
  throw first;
}

/** What an --engine preset set, in the capacity table's words. */
function engineText(engine: string, spec: EngineSpec, o: { gpuMemoryUtilization: number; kvFreeMemoryFraction?: number }): string {
  const kv = o.kvFreeMemoryFraction !== undefined ? `KV = ${o.kvFreeMemoryFraction} of the memory free after weights` : `KV = ${o.gpuMemoryUtilization} of memory - weights`;
  return `${engine} defaults (data/engines/${engine}.yaml): ${kv}, KV blocks of ${spec.blockSize} tokens, up to ${spec.maxNumSeqs} sequences, CUDA graphs up to batch ${spec.cudaGraphMaxBatch}`;
}

/** Size a deployment. Throws UsageError for bad inputs or a model that does not fit (at --tp, or at any TP up to 64 without it). */
export function planCapacity(input: CapacityInput): CapacityReport {
  // The profile's deployment fills unset flags; its fitted constants go to the engine as they are (its feature keys are not modelled here).
  const merged = withEngineProfile(input as Record<string, unknown>);
  const parsed = capacityInputSchema.safeParse(merged);
  if (!parsed.success) throw new UsageError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  const o = parsed.data;
  const problems: string[] = [];
  if (o.longShare > 0 && o.longInputTokens === undefined)
    problems.push('--long-input-tokens: needed with --long-share (the prompt tokens of a long request)');
  const engineAt = (tp: number): EngineSpec => resolveEngine({
    gpu: o.gpu, model: o.modelProfile, tp, weightDtype: o.weightDtype, fp8Scaling: o.fp8Scaling, kvDtype: o.kvDtype,
    gpuMemoryUtilization: o.gpuMemoryUtilization, maxNumSeqs: o.maxNumSeqs, maxNumBatchedTokens: o.maxNumBatchedTokens,
    maxModelLen: undefined, kvFreeMemoryFraction: o.kvFreeMemoryFraction, blockSize: o.blockSize,
    cudaGraphMaxBatch: o.cudaGraphMaxBatch, eagerLayerOverheadMs: o.eagerLayerOverheadMs,
    ...constantOptions(merged),
    mfu: o.mfu,
    pp: o.pp, ep: o.ep, epImbalance: o.epImbalance, dpAttention: o.dpAttention, disagg: o.disagg, disaggLinkGBps: o.disaggLinkGBps,
    specMethod: o.specMethod, specTokens: o.specTokens, specAcceptance: o.specAcceptance, specDraftCost: o.specDraftCost,
    specDraftGiB: o.specDraftGiB, kvOffloadGiB: o.kvOffloadGiB,
  });
  const tpAuto = input.tp === undefined;
  const spec = tpAuto ? smallestTpThatFits(engineAt) : engineAt(o.tp);
  const longIn = o.longShare > 0 ? (o.longInputTokens ?? o.inputTokens) : o.inputTokens;
  const longOut = o.longShare > 0 ? (o.longOutputTokens ?? o.outputTokens) : o.outputTokens;
  const limit = spec.model.maxModelLen;
  if (o.inputTokens + o.outputTokens > limit)
    problems.push(`--input-tokens + --output-tokens: ${o.inputTokens + o.outputTokens} tokens exceed the ${limit}-token context of ${spec.model.id}`);
  if (o.longShare > 0 && longIn + longOut > limit)
    problems.push(`--long-input-tokens + --long-output-tokens: ${longIn + longOut} tokens exceed the ${limit}-token context of ${spec.model.id}`);
  if (problems.length) throw new UsageError(problems);

  // The request mix: short requests, and long ones with probability longShare.
  const mix = [
    { share: 1 - o.longShare, input: o.inputTokens, output: o.outputTokens },
    { share: o.longShare, input: longIn, output: longOut },
  ].filter((c) => c.share > 0);
  const mean = (f: (c: (typeof mix)[number]) => number): number => mix.reduce((a, c) => a + c.share * f(c), 0);
  const meanKvTokens = mean((c) => kvEquivalentTokens(spec.model, c.input + c.output));
  // With --disagg the decode instances hold the requests in flight; each has its own KV cache and max-num-seqs.
  const dis = spec.features.disagg;
  const decodeInstances = dis?.decode ?? 1;
  const gpusPerReplica = spec.tp * spec.features.pp * (dis ? dis.prefill + dis.decode : 1);
  const kvCapacityRequests = Math.floor(spec.kvCapacityTokens / meanKvTokens) * decodeInstances;
  const maxConcurrencyPerReplica = Math.max(1, Math.min(kvCapacityRequests, o.maxNumSeqs * decodeInstances));
  const meanOutput = mean((c) => c.output);
  // Decoding requests at a random instant: each class weighted by its decode time (∝ output), at its mid-decode context.
  const meanContext = mean((c) => c.output * (c.input + c.output / 2)) / meanOutput;
  const sd = spec.features.spec;
  const tokensPerStep = sd ? expectedTokensPerStep(sd.acceptance, sd.tokens) : 1;
  /** One decode step of one instance at `batch` requests of the replica: with spec decode, K + 1 verified tokens each. */
  const decodeStep = (batch: number): StepShape => {
    const b = batch / decodeInstances;
    const d = decodeShape(b, meanContext);
    return sd ? { ...d, newTokens: b * (sd.tokens + 1), attentionPairs: b * (sd.tokens + 1) * (meanContext + 1) } : d;
  };
  /** Time per output token: (verify step + K draft steps) / tokens per step; the plain decode step without spec decode. */
  const tpotAt = (batch: number): number => {
    const step = engineStepCost(spec, decodeStep(batch)).totalMs;
    if (!sd) return step;
    return (step + draftMs(sd, engineStepCost(spec, decodeShape(batch / decodeInstances, meanContext)).totalMs)) / tokensPerStep;
  };
  // With --disagg TTFT adds the KV transfer from the prefill to the decode instance: latency + KV bytes per GPU / link.
  const transferMs = (input: number): number => (dis ? dis.latencyMs + ((kvBytesForTokens(spec.model, spec.kvDtype, spec.tp, input) / spec.features.pp) / dis.bytesPerSec) * 1000 : 0);
  const prefill = prefillMs(spec, o.inputTokens) + transferMs(o.inputTokens);
  const prefillLong = o.longShare > 0 ? prefillMs(spec, longIn) + transferMs(longIn) : prefill;
  const prefillOf = (c: (typeof mix)[number]): number => (c.input === o.inputTokens ? prefill : prefillLong);
  const meanPrefill = mean(prefillOf);
  const meanE2eAt = (batch: number): number => meanPrefill + meanOutput * tpotAt(batch);
  const tpot1 = tpotAt(1);

  // With a rate, concurrency = rate · e2e (Little's law); e2e depends on the batch, so iterate to a fixed point.
  let concurrency = o.concurrency ?? 1;
  if (o.rate !== undefined) {
    let c = 1;
    for (let i = 0; i < 20; i++) {
      const perReplica = Math.min(c, maxConcurrencyPerReplica);
      c = Math.max(1, Math.ceil((o.rate * meanE2eAt(perReplica)) / 1000));
    }
    concurrency = o.concurrency !== undefined ? Math.min(o.concurrency, c) : c;
  }
  const target = concurrency * (1 + o.margin);
  const peakFlops = peakTflops(spec.gpu, spec.weightDtype) * 1e12;
  const flopsPerRequest = mean((c) => requestFlops(spec, c.input, c.output));
  // The FLOP budget is the step model's own: each kind of FLOP at the rate simulate runs it (block-scaled FP8 at the
  // BF16 rate on Hopper, experts as grouped GEMMs, the GPU's matmul efficiency), so capacity and simulate agree.
  const computeGpuMsPerRequest = mean((c) => requestComputeGpuMs(spec, c.input, c.output));
  /** The load on each of `n` replicas: requests in flight, Little's-law rate, and the share of its GPUs' compute time it needs. */
  const loadAt = (n: number) => {
    const perReplica = Math.max(1, Math.ceil(concurrency / n));
    const e2e = meanE2eAt(perReplica);
    const rate = o.rate !== undefined ? o.rate / n : (perReplica * 1000) / e2e;
    return { perReplica, e2e, rate, computeUtilization: (rate * computeGpuMsPerRequest) / 1000 / gpusPerReplica };
  };
  // One answer for the replica count (issue 25): enough replicas to hold the requests (KV, max-num-seqs) AND to
  // compute them (FLOPs at --mfu), each with the margin. The compute count is the smallest n whose per-replica load
  // needs at most 1 / (1 + margin) of a replica's FLOPs; n · utilization(n) grows slowly with n (shorter batches,
  // shorter e2e), so step up to its fixed point.
  const replicasForConcurrency = Math.max(1, Math.ceil(target / maxConcurrencyPerReplica));
  let replicasForCompute = 1;
  for (let i = 0; i < 64; i++) {
    const need = Math.ceil(replicasForCompute * loadAt(replicasForCompute).computeUtilization * (1 + o.margin) - 1e-9);
    if (need <= replicasForCompute || replicasForCompute >= Math.max(concurrency, 1)) break;
    replicasForCompute = Math.min(need, Math.max(concurrency, 1));
  }
  const replicas = Math.max(replicasForConcurrency, replicasForCompute);
  const sized = loadAt(replicas);
  const concurrencyPerReplica = sized.perReplica;
  const tpotC = tpotAt(concurrencyPerReplica);
  const cost = engineStepCost(spec, decodeStep(concurrencyPerReplica));
  const meanE2e = sized.e2e;
  const ratePerReplica = sized.rate;
  const stepSec = cost.totalMs / 1000;
  const computeUtilization = sized.computeUtilization;
  const base: Base = {
    model: spec.model.id,
    gpu: spec.gpu.id,
    tp: spec.tp,
    pp: spec.features.pp,
    ep: spec.ep,
    dpAttention: spec.dpAttention,
    prefillInstances: dis?.prefill ?? 1,
    decodeInstances,
    gpusPerReplica,
    draftWeightBytesPerGpu: spec.draftWeightBytesPerGpu,
    tokensPerStep,
    kvOffloadTokens: (spec.features.offload?.blocks ?? 0) * spec.blockSize,
    tpAuto,
    engine: o.engine ?? null,
    engineText: o.engine ? engineText(o.engine, spec, o) : null,
    weightDtype: spec.weightDtype,
    kvDtype: spec.kvDtype,
    inputTokens: o.inputTokens,
    outputTokens: o.outputTokens,
    longShare: o.longShare,
    longInputTokens: longIn,
    longOutputTokens: longOut,
    mfu: o.mfu,
    weightBytes: weightBytes(spec.params, spec.weightDtype),
    weightBytesPerGpu: spec.weightBytesPerGpu,
    kvBytesPerToken: spec.kvBytesPerToken,
    kvBytesPerKTokens: kvBytesForTokens(spec.model, spec.kvDtype, 1, 1024),
    kvBytesPerRequest: mean((c) => kvBytesForTokens(spec.model, spec.kvDtype, 1, c.input + c.output)),
    kvCapacityTokens: spec.kvCapacityTokens,
    kvCapacityRequests,
    prefillMs: prefill,
    prefillLongMs: prefillLong,
    tpotBatch1Ms: tpot1,
    tpotAtConcurrencyMs: tpotC,
    concurrency,
    concurrencyPerReplica,
    e2eMs: prefill + o.outputTokens * tpotC,
    e2eLongMs: prefillLong + longOut * tpotC,
    meanE2eMs: meanE2e,
    outputTokensPerSecondPerReplica: (concurrencyPerReplica * 1000) / tpotC,
    requestsPerSecondPerReplica: ratePerReplica,
    margin: o.margin,
    maxConcurrencyPerReplica,
    replicas,
    gpus: replicas * gpusPerReplica,
    kvUtilization: (concurrencyPerReplica * meanKvTokens) / spec.kvCapacityTokens,
    // engineStepCost sums FLOPs and bytes over the pp stages; utilization is of one GPU.
    decodeComputeUtilization: cost.flops / spec.features.pp / (peakFlops * stepSec),
    decodeBandwidthUtilization: cost.bytes / spec.features.pp / (spec.gpu.hbmTBps * 1e12 * stepSec),
    computeUtilization,
    computeTflopsPerGpu: flopsPerRequest / computeGpuMsPerRequest / 1e9,
    replicasForConcurrency,
    replicasForCompute,
  };
  // The bottleneck is what limits a replica at the load the KV sizing gives it: the reason compute adds replicas.
  const kvPer = loadAt(replicasForConcurrency).perReplica;
  const kvCost = engineStepCost(spec, decodeStep(kvPer));
  const [bottleneck, bottleneckText] = bottleneckOf({ ...base, concurrencyPerReplica: kvPer, tpotAtConcurrencyMs: tpotAt(kvPer) }, meanPrefill, meanOutput, kvCost.computeMs > kvCost.memoryMs);
  const [headroom, headroomLimit, headroomText] = headroomOf(base, o.maxNumSeqs);
  return { ...base, bottleneck, bottleneckText, headroom, headroomLimit, headroomText };
}
