// `simulate`: run() on the virtual driver (the engine model on a virtual clock): same config, workload, scheduler and files, no server.
import { BATCH_BACKENDS } from './backends/backend-config.js';
import { UI_KEYS } from './config/ui.js';
import { snakeKeys } from './util/snake.js';
import { z } from 'zod';
import { resolveRunConfig, type ResolvedRun } from './config/load.js';
import type { RunConfig, RunConfigInput } from './config/schema.js';
import { UsageError } from './errors.js';
import { issueProblems } from './util/flags.js';
import { simServerOptionsSchema } from './sim/options.js';
import { resolveEngine, type EngineSpec } from './sim/engine/config.js';
import { featureMeta } from './sim/engine/features.js';
import { TUNING_KEYS, tuningOptions, withEngineProfile } from './sim/engine/tuning.js';
import { redactedConfig, runTokenizer, type RunResult } from './run.js';
import { runLifecycle, type LifecycleOptions } from './lifecycle/lifecycle.js';
import { createVirtualDriver, type VirtualRunStats } from './drivers/virtual.js';

export { plan, streamEvents, toRawRequest, type Planned, type StreamShape } from './drivers/virtual-records.js';
export { engineTarget } from './drivers/virtual.js';
import { EMBEDDED_SIM_KEYS } from './config/embedded-sim.js';

/** Engine options of the sim server that a simulation takes (tokenizer and max-model-len are shared with the run config). */
export const simEngineOptionsSchema = simServerOptionsSchema.pick({
  gpu: true,
  modelProfile: true,
  tp: true,
  weightDtype: true,
  kvDtype: true,
  maxNumSeqs: true,
  maxNumBatchedTokens: true,
  gpuMemoryUtilization: true,
  blockSize: true,
  numGpuBlocksOverride: true,
  prefixCaching: true,
  tokensPerChunk: true,
  reasoningShare: true,
  engineProfile: true,
  ...Object.fromEntries(TUNING_KEYS.map((k) => [k, true as const])),
});
export type SimEngineOptions = z.input<typeof simEngineOptionsSchema>;
export type ResolvedSimEngineOptions = z.output<typeof simEngineOptionsSchema>;
export const SIM_ENGINE_KEYS = Object.keys(simEngineOptionsSchema.shape) as (keyof SimEngineOptions)[];

/** Run options that only mean something against a real server; accepted (so a run config file works) and ignored. */
export const NOT_MODELLED_KEYS = ['baseUrl', 'backendConfig', 'apiKey', 'header', 'prewarm', 'timeout', 'idleTimeout', 'maxLineBytes', 'retry', 'maxErrorRate', 'gracePeriod', 'transport', 'workers', 'serverMetrics', 'serverMetricsUrl', 'scrapeInterval', 'serverMetricsAuth', 'scrapeMaxBytes', ...EMBEDDED_SIM_KEYS, 'targets', 'route', 'sessionHeader',
  // GPU and host telemetry sample real hardware next to a real run.
  'gpuMetrics', 'serverPid',
  // Graded probes need a server's answers; the virtual engine produces no text worth grading.
  'evalUnderLoad', 'evalLimit',
  // The validation ladder checks a real server's answers; a short-only baseline (--short-baseline, or automatic) is a second run.
  'validate', 'shortBaseline', 'autoShortBaseline',
  // Live metrics watch a run as it goes; a simulation is over in a moment of wall time.
  'metricsPort', 'metricsHost', 'metricsLinger', 'outInterval', 'push',
  // The live dashboard watches a run in wall-clock time; a simulation finishes in moments.
  ...UI_KEYS] as const;

export type SimulateInput = RunConfigInput & SimEngineOptions;

export interface ResolvedSimulate {
  run: ResolvedRun;
  engine: ResolvedSimEngineOptions;
  /** Options given that the simulation ignores (see NOT_MODELLED_KEYS). */
  ignored: string[];
}

export type SimulateResult = RunResult & { sim: VirtualRunStats; engine: EngineSpec; wallMs: number };

/** Split flat options into run config and engine options; validate both and report every problem at once. */
export function resolveSimulate(values: Record<string, unknown>): ResolvedSimulate {
  const runValues: Record<string, unknown> = {};
  const engineValues: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(values)) {
    if (v === undefined) continue;
    if ((SIM_ENGINE_KEYS as string[]).includes(k)) engineValues[k] = v;
    else runValues[k] = v;
  }
  const problems: string[] = [];
  let run: ResolvedRun | undefined;
  try {
    run = resolveRunConfig({ flags: runValues, unsharded: 'simulate' });
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    problems.push(...e.problems);
  }
  // The engine model generates tokens: an encoder's load (embeddings, rerank) is not modelled.
  if (run && BATCH_BACKENDS.includes(run.config.backend ?? '')) problems.push(`--backend: simulate models text generation, not ${run.config.backend}: run it against a server (tokenflood run)`);
  // The engine model has no client disconnect: a cancelled request would run to its end there.
  const cancelFlag = runValues.cancelAfter !== undefined ? '--cancel-after' : runValues.cancelRate !== undefined ? '--cancel-rate' : undefined;
  if (cancelFlag) problems.push(`${cancelFlag}: simulate does not model cancelled requests; run it against the embedded sim server (tokenflood run without --base-url)`);
  let withProfile = engineValues;
  try {
    withProfile = withEngineProfile(engineValues);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    problems.push(...e.problems);
  }
  const engine = simEngineOptionsSchema.safeParse(withProfile);
  if (!engine.success) problems.push(...issueProblems(engine.error.issues));
  if (problems.length || !run || !engine.success) throw new UsageError(problems);
  const ignored = NOT_MODELLED_KEYS.filter((k) => runValues[k] !== undefined && !(k === 'header' && (runValues[k] as unknown[]).length === 0));
  return { run, engine: engine.data, ignored };
}

/** The engine spec for the options; the run's --max-model-len is also the engine's max_model_len. */
export function simulatedEngine(o: ResolvedSimEngineOptions, c: RunConfig): EngineSpec {
  return resolveEngine({
    gpu: o.gpu, model: o.modelProfile, tp: o.tp, weightDtype: o.weightDtype, kvDtype: o.kvDtype, maxNumSeqs: o.maxNumSeqs,
    maxNumBatchedTokens: o.maxNumBatchedTokens, gpuMemoryUtilization: o.gpuMemoryUtilization, maxModelLen: c.maxModelLen,
    blockSize: o.blockSize, prefixCaching: o.prefixCaching, numGpuBlocksOverride: o.numGpuBlocksOverride,
    ...tuningOptions(o),
  });
}

/** run.json `engine`: the resolved engine the prediction is for. */
function engineMeta(engine: EngineSpec, eo: ResolvedSimEngineOptions): Record<string, unknown> {
  return {
    gpu: engine.gpu.id, gpu_name: engine.gpu.name, model_profile: engine.model.id, tp: engine.tp,
    ep: engine.ep, ep_imbalance: engine.epImbalance, dp_attention: engine.dpAttention,
    weight_dtype: engine.weightDtype, fp8_scaling: engine.weightDtype === 'fp8' ? engine.fp8Scaling : null, kernel_path: engine.kernelPath, kv_dtype: engine.kvDtype, max_num_seqs: engine.maxNumSeqs,
    max_num_batched_tokens: engine.maxNumBatchedTokens, gpu_memory_utilization: eo.gpuMemoryUtilization,
    max_model_len: engine.maxModelLen, block_size: engine.blockSize, num_gpu_blocks: engine.numBlocks,
    kv_capacity_tokens: engine.kvCapacityTokens, prefix_caching: engine.prefixCaching, tokens_per_chunk: eo.tokensPerChunk,
    reasoning_share: eo.reasoningShare,
    engine: (eo as { engine?: string }).engine ?? null, schedule_policy: engine.schedulePolicy, new_token_ratio: engine.newTokenRatio,
    cuda_graph_max_batch: engine.cudaGraphMaxBatch, kv_free_memory_fraction: (eo as { kvFreeMemoryFraction?: number }).kvFreeMemoryFraction ?? null,
    batching: engine.batching, scheduling_policy: engine.schedulingPolicy,
    ...featureMeta(engine.features),
  };
}

/** What the virtual driver models beyond the engine's answers. */
export interface SimulateModelOptions {
  /** The GPUs' telemetry (gpu_metrics.jsonl, `source: "model"`): sweep --simulate's points, so they hold a real sweep's files. */
  gpuModel?: boolean;
}

/**
 * Predict a run: the same lifecycle, workload and scheduler as run(), on the virtual driver (a virtual clock and the
 * engine model), writing the same files; run.json says `simulated: true` and times in records are virtual ms.
 * Throws UsageError for bad options or an engine that does not fit.
 */
export async function simulate(input: SimulateInput | ResolvedSimulate, opts: LifecycleOptions = {}, model: SimulateModelOptions = {}): Promise<SimulateResult> {
  const wall0 = performance.now();
  const { run: r, engine: eo, ignored } = 'engine' in input && 'run' in input ? input : resolveSimulate(input as Record<string, unknown>);
  const c = r.config;
  const tokenizer = runTokenizer(c);
  const engine = simulatedEngine(eo, c);
  const driver = createVirtualDriver(c, tokenizer, {
    engine,
    model: c.model ?? engine.model.id,
    tokensPerChunk: eo.tokensPerChunk,
    reasoningShare: eo.reasoningShare,
    // Only multi-turn data reads the answers back; building their text otherwise would cost time for nothing.
    keepText: c.dataset !== undefined,
    engineMeta: engineMeta(engine, eo),
    ignored,
    // The server timeline's /metrics (prom-client) loads only for a run that writes it.
    createSimMetrics: c.serverMetrics ? (await import('./sim/http/metrics.js')).createSimMetrics : undefined,
    gpuModel: model.gpuModel,
  });
  const configMeta = snakeKeys({ ...redactedConfig(c, r.headers), ...eo }) as Record<string, unknown>;
  const result = await runLifecycle({ config: c, tokenizer, driver, configMeta, redact: (s) => s, outDirSuffix: '-simulated' }, opts);
  return Object.assign(result, { sim: driver.stats(), engine, wallMs: performance.now() - wall0 });
}
