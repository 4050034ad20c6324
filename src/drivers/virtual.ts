// The virtual driver: a virtual clock and the engine model as the backend, stepping only when the run waits on it.
import { priorityRefusal } from '../sim/engine/scheduling.js';
import type { RunConfig } from '../config/schema.js';
import type { Tokenizer } from '../dataset/tokenizer.js';
import type { RequestSpec } from '../dataset/types.js';
import type { ExecuteResult } from '../backends/execute.js';
import type { EngineSpec } from '../sim/engine/config.js';
import { createEngine, type EngineCounters, type StepResult } from '../sim/engine/engine.js';
import { blockHashesFromIds } from '../sim/engine/hash.js';
import { decideOutputTokens } from '../sim/engine/length.js';
import { outsideEngineMs } from '../sim/engine/overheads.js';
import { specDecodeStats } from '../sim/engine/spec-decode.js';
import { createTextSource } from '../sim/http/text.js';
import type { createSimMetrics } from '../sim/http/metrics.js';
import { virtualServerSource } from './virtual-timeline.js';
import { virtualGpuSource } from './virtual-gpu.js';
import { workloadSeed } from '../config/workload.js';
import type { VirtualRecord } from '../sim/virtual.js';
import { engineMedia } from '../sim/media-count.js';
import { createRng } from '../util/rng.js';
import type { Driver, OpenedTarget, RequestInput } from './driver.js';
import { VirtualClock } from './virtual-clock.js';
import { plan, toRawRequest, type ConvertContext, type Planned } from './virtual-records.js';
import { sentPriority } from '../dataset/priority.js';

export interface VirtualDriverOptions {
  engine: EngineSpec;
  /** The model id in records (the profile id, or `<id>-reasoning`). */
  model: string;
  tokensPerChunk: number;
  reasoningShare: number;
  /** Whether a workload reads the answers (multi-turn): only then is output text built. */
  keepText: boolean;
  /** run.json fields describing the engine and the options it ignores. */
  engineMeta: Record<string, unknown>;
  /** Options given that the simulation ignores, for run.json. */
  ignored: string[];
  /**
   * The sim server's /metrics factory, for the server timeline (server_metrics.jsonl) on the virtual clock; passed in
   * by a caller that wants the timeline, so prom-client loads only then (not at CLI start-up, not in calibrate).
   */
  createSimMetrics?: typeof createSimMetrics;
  /**
   * Model the GPUs' telemetry too (gpu_metrics.jsonl, `source: "model"`, every --scrape-interval of virtual time):
   * `sweep --simulate` asks for it so its points hold the files of a real sweep's; plain `simulate` does not.
   */
  gpuModel?: boolean;
}

/** How the simulation went, for run.json `simulation` and the caller. */
export interface VirtualRunStats {
  /** Virtual time at which the last request ended. */
  durationMs: number;
  steps: number;
  /** Most requests inside the engine at once. */
  maxInFlight: number;
  counters: EngineCounters;
}

interface Live {
  rec: VirtualRecord;
  /** Virtual ms it entered the engine's schedule, and of its last token (for the /metrics histograms). */
  startMs?: number;
  lastMs?: number;
  planned: Planned;
  inp: RequestInput;
  resolve(r: ExecuteResult): void;
}

/** The target a simulation shows and stores (run.json `target_url`): the engine it models. */
export const engineTarget = (e: EngineSpec): string => `engine model: ${e.model.id} on ${e.tp}x ${e.gpu.id} (simulated)`;

export function createVirtualDriver(c: RunConfig, tok: Tokenizer, o: VirtualDriverOptions): Driver & { stats(): VirtualRunStats } {
  const wall0 = performance.now();
  const clock = new VirtualClock();
  const engine = createEngine(o.engine);
  // The engine's /metrics as the sim server exports it (vLLM's names), fed the same observations on the virtual clock.
  const metrics = c.serverMetrics ? o.createSimMetrics?.('vllm', { modelName: o.model, counters: engine.counters, kvCapacityTokens: o.engine.kvCapacityTokens, nowSimMs: clock.now, specDecode: o.engine.features.spec !== undefined }) : undefined;
  // Output lengths draw from the engine's own stream, in send order, as the sim server's engine does.
  const gpu = o.gpuModel ? virtualGpuSource(clock, o.engine, engine.counters, c.scrapeInterval * 1000) : undefined;
  const lengthRng = createRng(workloadSeed(c)).fork();
  const memo = new Map<string, number[]>();
  const x: ConvertContext = {
    c,
    shape: { chat: c.endpoint === 'chat', tokensPerChunk: o.tokensPerChunk },
    reasoningShare: o.reasoningShare,
    reasoning: o.model === `${o.engine.model.id}-reasoning`,
    text: createTextSource(tok),
    keepText: o.keepText,
  };
  const live = new Map<string, Live>();
  /** Sent, not yet in the engine (time outside the engine). */
  const delayed = new Map<string, Live>();
  let seq = 0;
  let stepping = false;
  let kickQueued = false;
  let steps = 0;
  let maxInFlight = 0;
  let lastEndMs = 0;

  const result = (l: Pick<Live, 'rec' | 'planned' | 'inp'>): ExecuteResult => {
    const r = toRawRequest(l.rec, l.planned, x, { attempt: l.inp.attempt ?? 1, warmup: l.inp.warmup });
    r.raw.class = l.inp.cls;
    r.raw.request_id = l.inp.requestId ?? null;
    if (l.rec.error === undefined) lastEndMs = Math.max(lastEndMs, l.rec.endMs);
    return { raw: r.raw, retryAfterMs: null, answerText: r.answerText, reasoningText: r.reasoningText, usage: null };
  };

  // A step is planned the instant the previous one ends, so requests sent at that boundary (closed-loop refills)
  // reach the engine while it runs and join the step after, as on a real server.
  const begin = (): void => {
    const res = engine.step();
    stepping = res !== null;
    if (!res) return;
    steps++;
    const end = clock.now() + res.durationMs;
    gpu?.step(res, clock.now(), end);
    metrics?.step(res.durationMs / 1000, res.started.length > 0 || res.shape.newTokens > res.shape.requests ? 'prefill' : 'decode');
    clock.at(end, () => stepEnded(res, end));
  };
  const stepEnded = (res: StepResult, end: number): boolean => {
    for (const s of res.started) {
      const l = live.get(s.id);
      if (!l) continue;
      l.rec.cachedTokens = s.cachedTokens;
      l.startMs = Math.max(end - res.durationMs, l.rec.sentMs);
      metrics?.queued((l.startMs - l.rec.sentMs) / 1000);
    }
    const done: Live[] = [];
    for (const out of res.outputs) {
      const l = live.get(out.id);
      if (!l) continue;
      l.rec.tokenTimesMs.push(end);
      const startMs = l.startMs ?? l.rec.sentMs;
      if (out.tokenIndex === 1) {
        l.rec.firstTokenMs = end;
        metrics?.firstToken((end - l.rec.sentMs) / 1000, (end - startMs) / 1000);
      } else metrics?.interToken((end - (l.lastMs ?? end)) / 1000);
      l.lastMs = end;
      l.rec.outputTokens = out.tokenIndex;
      if (out.finished) {
        l.rec.endMs = end;
        const first = l.rec.firstTokenMs ?? end;
        metrics?.finished({
          reason: l.rec.finishReason === 'length' ? 'length' : 'stop', e2eS: (end - l.rec.sentMs) / 1000, queueS: (startMs - l.rec.sentMs) / 1000, prefillS: (first - startMs) / 1000,
          decodeS: (end - first) / 1000, inferenceS: (end - startMs) / 1000, promptTokens: l.rec.promptTokens, outputTokens: out.tokenIndex,
        });
        live.delete(out.id);
        done.push(l);
      }
    }
    begin();
    for (const l of done) l.resolve(result(l));
    return done.length > 0;
  };
  /** An idle engine starts its next step once everything sent at this instant has reached it. */
  const kick = (): void => {
    if (stepping || kickQueued) return;
    kickQueued = true;
    clock.at(clock.now(), () => {
      kickQueued = false;
      if (!stepping) begin();
      return false;
    });
  };

  const execute = (inp: RequestInput, spec: RequestSpec): Promise<ExecuteResult> => {
    const planned = plan(spec, inp.id, c, o.engine, tok, memo);
    const req = planned.virtual;
    const ids = req.promptTokenIds ?? [];
    const decision = decideOutputTokens(lengthRng, req);
    const now = clock.now();
    metrics?.arrived(ids.length);
    const rec: VirtualRecord = {
      index: inp.id, scheduledMs: inp.scheduledAtMs, sentMs: now, tokenTimesMs: [], endMs: now,
      promptTokens: ids.length, cachedTokens: 0, outputTokens: 0, finishReason: decision.finishReason,
    };
    const key = String(seq++);
    const media = planned.media.map(engineMedia);
    // The body's priority, refused without --scheduling-policy priority exactly as the sim server (and vLLM) refuse it.
    const priority = sentPriority(spec, c) ?? 0;
    const refused = priorityRefusal(priority, o.engine.schedulingPolicy);
    if (refused) {
      rec.error = refused;
      rec.finishReason = undefined;
      return Promise.resolve(result({ rec, planned, inp }));
    }
    const add = () => engine.add({ id: key, promptTokens: ids.length, outputTokens: decision.outputTokens, blockHashes: blockHashesFromIds(ids, o.engine.blockSize), media, priority });
    const outside = outsideEngineMs(o.engine, ids.length, o.tokensPerChunk);
    if (outside <= 0) {
      const err = add();
      if (err !== undefined) {
        rec.error = err;
        rec.finishReason = undefined;
        return Promise.resolve(result({ rec, planned, inp }));
      }
    }
    return new Promise((resolve) => {
      const l: Live = { rec, planned, inp, resolve };
      if (outside <= 0) {
        live.set(key, l);
        maxInFlight = Math.max(maxInFlight, live.size);
        return kick();
      }
      // API server, tokenization and streaming time outside the engine (sim/engine/overheads.ts) before admission.
      delayed.set(key, l);
      clock.at(now + outside, () => {
        if (!delayed.delete(key)) return false;
        const err = add();
        if (err !== undefined) {
          rec.error = err;
          rec.finishReason = undefined;
          resolve(result(l));
          return true;
        }
        live.set(key, l);
        maxInFlight = Math.max(maxInFlight, live.size);
        kick();
        return false;
      });
    });
  };

  const cancelAll = (): void => {
    for (const [key, l] of [...live, ...delayed]) {
      engine.abort(key);
      live.delete(key);
      delayed.delete(key);
      const r = result(l);
      Object.assign(r.raw, { status: 'cancelled', http_status: null, code: 'E_CANCELLED', error: 'run stopped before the request finished' });
      l.resolve(r);
    }
  };

  const stats = (): VirtualRunStats => ({ durationMs: lastEndMs, steps, maxInFlight, counters: engine.counters() });
  const e = o.engine;
  return {
    kind: 'virtual',
    clock,
    needsBody: false,
    async open(): Promise<OpenedTarget> {
      const target = engineTarget(e);
      return {
        model: o.model,
        shownModel: o.model,
        shownBaseUrl: target,
        embedded: false,
        metaHead: { simulated: true, target_url: target, embedded_server: false },
        metaTail: { sim_time_scale: null, engine: o.engineMeta },
      };
    },
    start: async () => ({}),
    // --no-server-metrics turns the simulated timeline off too; --scrape-interval is its interval of virtual time.
    timelineSources: () => [...(metrics ? [virtualServerSource(clock, metrics, c.scrapeInterval * 1000, o.engine.maxModelLen)] : []), ...(gpu ? [gpu] : [])],
    execute,
    cancelAll,
    drive: (main) => clock.drive(main),
    finish: () => {
      const s = stats();
      return {
        simulation: {
          note: 'predicted by the tokenflood engine model on a virtual clock: not a measurement',
          virtual_duration_s: s.durationMs / 1000,
          steps: s.steps,
          max_in_flight: s.maxInFlight,
          preemptions: s.counters.preemptions,
          prefix_cache_hit_rate: s.counters.prefixQueriesTokens > 0 ? s.counters.prefixHitsTokens / s.counters.prefixQueriesTokens : 0,
          wall_ms: Math.round(performance.now() - wall0),
          ignored_options: o.ignored,
          ...(o.engine.features.spec ? { spec_decode: specDecodeStats(s.counters) } : {}),
          ...(o.engine.features.offload ? { kv_offload: { hits_tokens: s.counters.offloadHitsTokens, transfer_bytes: s.counters.offloadTransferBytes } } : {}),
        },
      };
    },
    stats,
    close: async () => {},
  };
}
