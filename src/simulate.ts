// `simulate`: a whole run on the engine model with a virtual clock: same config, workload and output files as run(), no server.
import { defaultOutDir, prepareOutDir } from './outdir.js';
import { snakeKeys } from './util/snake.js';
import { writeRunReport } from './report/html/run-report.js';
import { join } from 'node:path';
import { cpus, hostname, platform } from 'node:os';
import { z } from 'zod';
import { resolveRunConfig, type ResolvedRun } from './config/load.js';
import type { RunConfig, RunConfigInput } from './config/schema.js';
import { UsageError } from './errors.js';
import { issueProblems } from './config/flags.js';
import { loadTokenizer, type Tokenizer } from './dataset/tokenizer.js';
import { createWorkload } from './dataset/workload.js';
import type { RequestSpec } from './dataset/types.js';
import { createRng } from './util/rng.js';
import { toRecord } from './metrics/derive.js';
import { normalizeRaw, RecordWriter } from './metrics/jsonl.js';
import type { RawRequest, RequestRecord } from './metrics/record.js';
import { NO_CONNECTION } from './metrics/record.js';
import { httpCode } from './backends/error-codes.js';
import { SummaryAggregator } from './metrics/aggregator.js';
import { REQUESTS_JSONL, RUN_JSON, SUMMARY_JSON, writeJsonFile } from './report/results-dir.js';
import { simServerOptionsSchema } from './sim/options.js';
import { resolveEngine, type EngineSpec } from './sim/engine/config.js';
import { contextLengthError } from './sim/engine/engine.js';
import { errorBody } from './sim/http/errors.js';
import { createTextSource, type TextSource } from './sim/http/text.js';
import { simulateRun, type SimulateRunResult, type VirtualRecord, type VirtualRequest } from './sim/virtual.js';
import { redactedConfig, type RunResult } from './run.js';
import { VERSION } from './version.js';
import { backendOf } from './backends/registry.js';
import { chooseExecutor } from './scheduler/scheduler.js';
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
});
export type SimEngineOptions = z.input<typeof simEngineOptionsSchema>;
export type ResolvedSimEngineOptions = z.output<typeof simEngineOptionsSchema>;
export const SIM_ENGINE_KEYS = Object.keys(simEngineOptionsSchema.shape) as (keyof SimEngineOptions)[];

/** Run options that only mean something against a real server; accepted (so a run config file works) and ignored. */
export const NOT_MODELLED_KEYS = ['baseUrl', 'apiKey', 'header', 'timeout', 'idleTimeout', 'maxLineBytes', 'retry', 'maxErrorRate', 'gracePeriod', 'transport', 'workers', ...EMBEDDED_SIM_KEYS] as const;

export type SimulateInput = RunConfigInput & SimEngineOptions;

export interface ResolvedSimulate {
  run: ResolvedRun;
  engine: ResolvedSimEngineOptions;
  /** Options given that the simulation ignores (see NOT_MODELLED_KEYS). */
  ignored: string[];
}

export type SimulateResult = RunResult & { sim: SimulateRunResult; engine: EngineSpec; wallMs: number };

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
    run = resolveRunConfig({ flags: runValues });
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    problems.push(...e.problems);
  }
  const engine = simEngineOptionsSchema.safeParse(engineValues);
  if (!engine.success) problems.push(...issueProblems(engine.error.issues));
  if (run?.config.replay) problems.push('--replay: not modelled by simulate yet (needs explicit send times in the virtual clock)');
  if (run?.config.cacheAb) problems.push('--cache-ab: not modelled by simulate (the warm pass waits on the cold pass finishing)');
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
  });
}

// ---- request specs → engine requests ----

export interface Planned {
  spec: RequestSpec;
  virtual: VirtualRequest;
  /** vLLM's 400 message when prompt + max_tokens exceeds max_model_len (checked on max_tokens, as the server does). */
  tooLong?: string;
}

/** Token ids no tokenizer produces: filler for prompt text that is unique to one request. */
const UNIQUE_FILLER = 0x40000000;

/**
 * Prompt token ids as the sim server computes them (Σ encode(content) for chat, encode(prompt) for completions), so
 * prefix-cache hashes match a real run. Synthetic chat prompts with a cache-bust nonce are unique from the nonce on,
 * so only the shared system prefix is encoded and the rest (spec.inputTokens, an exact count) is per-request filler:
 * same block hashes as far as sharing goes, without tokenizing every prompt twice.
 */
function promptIds(spec: RequestSpec, index: number, c: RunConfig, tok: Tokenizer, memo: Map<string, number[]>): number[] {
  const enc = (s: string): number[] => {
    let ids = memo.get(s);
    if (!ids) memo.set(s, (ids = tok.encode(s)));
    return ids;
  };
  if (c.endpoint === 'completions') return enc(spec.prompt);
  const ids: number[] = [];
  if (c.cacheBust && !c.dataset) {
    for (const m of spec.messages) if (m.role === 'system') for (const id of enc(m.content)) ids.push(id);
    for (let i = ids.length; i < spec.inputTokens; i++) ids.push(UNIQUE_FILLER + index);
    return ids;
  }
  for (const m of spec.messages) for (const id of enc(m.content)) ids.push(id);
  return ids;
}

function plan(spec: RequestSpec, index: number, c: RunConfig, engine: EngineSpec, tok: Tokenizer, memo: Map<string, number[]>): Planned {
  const ids = promptIds(spec, index, c, tok, memo);
  const tooLong = contextLengthError(engine.maxModelLen, ids.length, spec.maxTokens);
  // A rejected request is given ignore_eos so the engine sees prompt + max_tokens and rejects it with the same message.
  const ignoreEos = c.ignoreEos || tooLong !== undefined;
  return { spec, tooLong, virtual: { promptTokenIds: ids, maxTokens: spec.maxTokens, minTokens: c.ignoreEos ? spec.maxTokens : 0, ignoreEos } };
}

// ---- virtual records → raw request records ----

export interface StreamShape {
  chat: boolean;
  tokensPerChunk: number;
  /** The first `reasoningTokens` output tokens are reasoning (model `<id>-reasoning`). */
  reasoningTokens: number;
}

/**
 * SSE events as the sim server sends them and a streaming client records them: chat's role-only chunk with the
 * first token chunk, one chunk per `tokensPerChunk` tokens (flushed early where reasoning turns into answer), the
 * last carrying finish_reason, then usage and [DONE] at the last token's time. Times are ms since send.
 */
export function streamEvents(tokenTimesMs: readonly number[], s: StreamShape): { times: number[]; kinds: string } {
  const times: number[] = [];
  let kinds = '';
  const push = (t: number, k: string): void => {
    times.push(t);
    kinds += k;
  };
  const n = tokenTimesMs.length;
  let buffered = 0;
  let field = 'a';
  const flush = (t: number): void => {
    if (s.chat && kinds.length === 0) push(t, 'r');
    push(t, field);
    buffered = 0;
  };
  for (let i = 1; i <= n; i++) {
    const t = tokenTimesMs[i - 1];
    const f = i <= s.reasoningTokens ? 'R' : 'a';
    if (f !== field && buffered > 0) flush(t);
    field = f;
    buffered++;
    if (i === n || buffered >= s.tokensPerChunk) flush(t);
  }
  if (n > 0) {
    push(tokenTimesMs[n - 1], 'u');
    push(tokenTimesMs[n - 1], 'd');
  }
  return { times, kinds };
}

export interface ConvertContext {
  c: RunConfig;
  shape: Omit<StreamShape, 'reasoningTokens'>;
  reasoningShare: number;
  reasoning: boolean;
  text: TextSource;
}

/** One VirtualRecord as the RawRequest a real run against the sim server would have recorded. */
export function toRawRequest(v: VirtualRecord, p: Planned, x: ConvertContext): RawRequest {
  const { c } = x;
  const raw: RawRequest = {
    ...NO_CONNECTION,
    id: v.index, attempt: 1, reconnected: false, warmup: v.index < c.warmup, class: p.spec.class, status: 'ok', http_status: 200, error: null, code: null,
    scheduled_at_ms: v.scheduledMs, sent_at_ms: v.sentMs, headers_ms: 0, end_ms: v.endMs - v.sentMs, streamed: c.stream,
    event_times_ms: [], event_kinds: '', reasoning_chars: 0, answer_chars: 0,
    input_tokens: null, output_tokens: null, reasoning_tokens: null, cached_tokens: null, token_source: null,
    expected_input_tokens: p.spec.inputTokens, max_tokens: p.spec.maxTokens, finish_reason: null,
    usage_rejected: null, events_after_done: 0,
  };
  if (v.error !== undefined) {
    raw.status = 'http_error';
    raw.http_status = 400;
    raw.code = httpCode(400);
    raw.error = `HTTP 400: ${errorBody(400, v.error).slice(0, 500)}`;
    return raw;
  }
  const n = v.outputTokens;
  const reasoningTokens = x.reasoning && c.endpoint === 'chat' ? Math.floor(n * x.reasoningShare) : 0;
  // Output text as the server would write it, only to count characters.
  const rng = createRng((c.datasetSeed * 1_000_003 + v.index + 1) >>> 0);
  for (let i = 0; i < n; i++) {
    const len = x.text.next(rng, i).length;
    if (i < reasoningTokens) raw.reasoning_chars += len;
    else raw.answer_chars += len;
  }
  const rel = v.tokenTimesMs.map((t) => t - v.sentMs);
  if (c.stream) {
    const ev = streamEvents(rel, { ...x.shape, reasoningTokens });
    raw.event_times_ms = ev.times;
    raw.event_kinds = ev.kinds;
  } else {
    // The whole response arrives with the last token: one event, TTFT = E2E.
    raw.headers_ms = raw.end_ms;
    raw.event_times_ms = [raw.end_ms as number];
    raw.event_kinds = raw.answer_chars > 0 ? 'a' : 'R';
  }
  raw.input_tokens = v.promptTokens;
  raw.output_tokens = n;
  raw.reasoning_tokens = reasoningTokens;
  raw.cached_tokens = v.cachedTokens;
  raw.token_source = 'usage';
  raw.finish_reason = v.finishReason ?? null;
  return raw;
}


// ---- the run ----

/** How many requests the schedule sends: warmup + --requests, and with --duration only those sent in time. */
function sentInTime(records: readonly VirtualRecord[], c: RunConfig): number {
  if (c.duration === undefined || records.length <= c.warmup) return records.length;
  const at = (r: VirtualRecord): number => (c.rate !== undefined ? r.scheduledMs : r.sentMs);
  const start = at(records[c.warmup]);
  let n = c.warmup;
  while (n < records.length && at(records[n]) - start < c.duration * 1000) n++;
  return n;
}

/**
 * Predict a run: build the same requests as run() would, push them through the engine model on a virtual clock,
 * and write run.json (with `simulated: true`), requests.jsonl and summary.json. Times in records are virtual ms.
 * Throws UsageError for bad options, an engine that does not fit, or a workload that needs a server's answers.
 */
export async function simulate(input: SimulateInput | ResolvedSimulate): Promise<SimulateResult> {
  const wall0 = performance.now();
  const { run: r, engine: eo, ignored } = 'engine' in input && 'run' in input ? input : resolveSimulate(input as Record<string, unknown>);
  const c = r.config;
  let tok: Tokenizer;
  try {
    tok = loadTokenizer(c.tokenizer);
  } catch (e) {
    throw new UsageError([`--tokenizer: ${(e as Error).message}`]);
  }
  const engine = simulatedEngine(eo, c);
  const model = c.model ?? engine.model.id;
  const outDir = c.out ?? defaultOutDir(model, '-simulated');
  prepareOutDir(outDir, c.overwrite);

  // Same seeds and order of forks as run(): the same prompts and lengths for the same --dataset-seed.
  const rng = createRng(c.datasetSeed);
  const defaultRequests = c.duration === undefined ? 100 : undefined;
  const total = (c.requests ?? defaultRequests) !== undefined ? (c.requests ?? (defaultRequests as number)) + c.warmup : undefined;
  const workload = createWorkload(c, tok, rng.fork(), total);
  const requests = c.requests ?? (workload.size !== undefined && c.duration === undefined ? Math.max(0, workload.size - c.warmup) : defaultRequests);

  const planned: Planned[] = [];
  const memo = new Map<string, number[]>();
  let exhausted = false;
  /** Plan requests up to `count`; fewer when the workload runs out. */
  const planUpTo = (count: number): number => {
    while (!exhausted && planned.length < count) {
      const spec = workload.next(planned.length);
      if (spec instanceof Promise) throw new UsageError(['--dataset: multi-turn conversations need the server\'s answers and are not modelled by simulate']);
      if (!spec) exhausted = true;
      else planned.push(plan(spec, planned.length, c, engine, tok, memo));
    }
    return Math.min(count, planned.length);
  };
  const runFor = (count: number): SimulateRunResult =>
    simulateRun({
      engine,
      requests: (i) => planned[i].virtual,
      load: { concurrency: c.concurrency, rate: c.rate, arrival: c.arrival, burstiness: c.burstiness, seed: c.datasetSeed, requests: count },
    });

  // With --duration the count is found by growing the run until sending stops in time, then re-running exactly that
  // many (the virtual run is deterministic and its first N sends do not depend on how many follow).
  const limit = requests !== undefined ? c.warmup + requests : Infinity;
  let count = planUpTo(Number.isFinite(limit) ? limit : c.warmup + (c.rate !== undefined ? Math.ceil(c.rate * (c.duration ?? 0) * 1.2) + 16 : 1024));
  let sim = runFor(count);
  for (;;) {
    const n = sentInTime(sim.records, c);
    if (n < count || count >= limit || exhausted) {
      if (n < count) sim = runFor((count = n));
      break;
    }
    count = planUpTo(Math.min(limit, count * 2));
    sim = runFor(count);
  }

  const reasoning = model === `${engine.model.id}-reasoning`;
  const text = createTextSource(tok);
  const x: ConvertContext = { c, shape: { chat: c.endpoint === 'chat', tokensPerChunk: eo.tokensPerChunk }, reasoningShare: eo.reasoningShare, reasoning, text };
  const records: RequestRecord[] = sim.records.map((v) => toRecord(normalizeRaw(toRawRequest(v, planned[v.index], x))));
  const writer = new RecordWriter(join(outDir, REQUESTS_JSONL));
  const summaryAgg = new SummaryAggregator();
  try {
    for (const rec of records) {
      if (!writer.write(rec)) throw writer.failure!;
      summaryAgg.add(rec);
    }
  } finally {
    writer.close();
  }

  const wallMs = performance.now() - wall0;
  const counters = sim.counters;
  const runMeta: Record<string, unknown> = {
    tool: 'tokenflood',
    version: VERSION,
    started_at: new Date().toISOString(),
    simulated: true,
    target_url: `engine model: ${engine.model.id} on ${engine.tp}x ${engine.gpu.id} (simulated)`,
    embedded_server: false,
    model,
    endpoint: c.endpoint,
    backend: backendOf(c),
    // simulate rejects --replay, so its loop is closed (constant-vus) or open at --rate (constant-arrival-rate).
    executor: chooseExecutor({ rate: c.rate }).describe(c),
    stream: c.stream,
    tokenizer: tok.name,
    workload: workload.describe(),
    sim_time_scale: null,
    engine: {
      gpu: engine.gpu.id, gpu_name: engine.gpu.name, model_profile: engine.model.id, tp: engine.tp,
      weight_dtype: engine.weightDtype, kv_dtype: engine.kvDtype, max_num_seqs: engine.maxNumSeqs,
      max_num_batched_tokens: engine.maxNumBatchedTokens, gpu_memory_utilization: eo.gpuMemoryUtilization,
      max_model_len: engine.maxModelLen, block_size: engine.blockSize, num_gpu_blocks: engine.numBlocks,
      kv_capacity_tokens: engine.kvCapacityTokens, prefix_caching: engine.prefixCaching, tokens_per_chunk: eo.tokensPerChunk,
      reasoning_share: eo.reasoningShare,
    },
    simulation: {
      note: 'predicted by the tokenflood engine model on a virtual clock: not a measurement',
      virtual_duration_s: sim.durationMs / 1000,
      steps: sim.steps,
      max_in_flight: sim.maxInFlight,
      preemptions: counters.preemptions,
      prefix_cache_hit_rate: counters.prefixQueriesTokens > 0 ? counters.prefixHitsTokens / counters.prefixQueriesTokens : 0,
      wall_ms: Math.round(wallMs),
      ignored_options: ignored,
    },
    client: { node: process.version, platform: platform(), cpus: cpus().length, cpu_model: cpus()[0]?.model ?? null, hostname: hostname() },
    config: snakeKeys({ ...redactedConfig(c, r.headers), ...eo }),
    stopped_reason: 'completed',
  };
  writeJsonFile(outDir, RUN_JSON, runMeta);
  const summary = summaryAgg.summary(runMeta, c.concurrency);
  writeJsonFile(outDir, SUMMARY_JSON, summary);
  writeRunReport(outDir);
  return { summary, records, outDir, written: ['requests.jsonl', 'run.json', 'summary.json', 'report.html'], sim, engine, wallMs };
}
