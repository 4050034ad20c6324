// Disaggregated prefill and decode (--disagg P:D): P prefill instances, a KV transfer, then a decode pool of D instances.
import type { EngineSpec } from './config.js';
import type { StepCost, StepShape } from './cost.js';
import { prefillOnlyMs } from './pipeline.js';

// The engine's shapes as far as this file uses them (engine.ts imports this file, so it cannot import engine.ts).
interface PoolRequest {
  id: string;
  promptTokens: number;
  outputTokens: number;
  prefilled?: boolean;
  media?: readonly { flops: number }[];
}
interface PoolStep {
  durationMs: number;
  shape: StepShape;
  cost: StepCost;
  outputs: { id: string; tokenIndex: number; finished: boolean }[];
  started: { id: string; cachedTokens: number }[];
  preempted: string[];
}
interface PoolCounters {
  waiting: number;
  promptTokens: number;
  generationTokens: number;
}
export interface Pool<R extends PoolRequest = PoolRequest, C extends PoolCounters = PoolCounters> {
  readonly spec: EngineSpec;
  add(req: R): string | undefined;
  abort(id: string): boolean;
  step(): PoolStep | null;
  hasWork(): boolean;
  counters(): C;
}
export { prefillOnlyMs };

/** KV transfer of a prompt from a prefill to a decode instance: latency + tokens · kv_bytes_per_token_per_gpu / link. */
export function kvTransferMs(spec: EngineSpec, tokens: number): number {
  const d = spec.features.disagg!;
  return d.latencyMs + ((tokens * spec.kvBytesPerTokenPerGpu) / d.bytesPerSec) * 1000;
}

interface Pending {
  req: PoolRequest;
  startMs: number;
  readyMs: number;
  announced: boolean;
}

/** Longest step the engine takes while only prefills run, so requests added meanwhile start their prefill on time. */
const IDLE_STEP_MS = 1;

/**
 * Each request is prefilled on the prefill instance that frees up first (FIFO, one request at a time per instance,
 * no prefix cache there), its KV sent to the decode pool, and its first token counted at the end of the engine step
 * in which prefill + transfer completes. The decode pool (`colocated`, with D times the blocks and the batch spread
 * over D instances) then only decodes. Time is the engine's own: the sum of its step durations.
 */
export function createDisaggEngine<R extends PoolRequest, C extends PoolCounters>(
  spec: EngineSpec,
  colocated: (s: EngineSpec) => Pool<R, C>,
  contextLengthError: (maxModelLen: number, prompt: number, maxTokens: number) => string | undefined,
): Pool<R, C> {
  const d = spec.features.disagg!;
  const decode = colocated(spec);
  const freeAt = new Array<number>(d.prefill).fill(0);
  let pending: Pending[] = [];
  let now = 0;
  let promptTokens = 0;
  let firstTokens = 0;

  return {
    spec,
    add(req) {
      const err = contextLengthError(spec.maxModelLen, req.promptTokens, req.outputTokens);
      if (err) return err;
      let k = 0;
      for (let i = 1; i < freeAt.length; i++) if (freeAt[i] < freeAt[k]) k = i;
      const startMs = Math.max(now, freeAt[k]);
      // The prefill instance also runs the request's vision/audio encoder (no encoder cache there), before its prefill.
      const encoderFlops = (req.media ?? []).reduce((a, m) => a + m.flops, 0);
      freeAt[k] = startMs + prefillOnlyMs(spec, req.promptTokens) + (encoderFlops / spec.tp / spec.flopsPerSec) * 1000;
      pending.push({ req, startMs, readyMs: freeAt[k] + kvTransferMs(spec, req.promptTokens), announced: false });
      return undefined;
    },
    abort(id) {
      const before = pending.length;
      pending = pending.filter((p) => p.req.id !== id);
      return pending.length < before || decode.abort(id);
    },
    hasWork: () => pending.length > 0 || decode.hasWork(),
    step() {
      if (!this.hasWork()) return null;
      const res: PoolStep | null = decode.hasWork() ? decode.step() : null;
      const nextReady = Math.min(...pending.map((p) => p.readyMs));
      const durationMs = res ? res.durationMs : Math.max(0, Math.min(IDLE_STEP_MS, nextReady - now));
      const end = now + durationMs;
      const out: PoolStep = res ?? { durationMs, shape: { requests: 0, newTokens: 0, contextTokens: 0, attentionPairs: 0 }, cost: { flops: 0, bytes: 0, computeMs: 0, memoryMs: 0, linearMs: 0, attentionMs: 0, commMs: 0, moeMs: 0, overheadMs: 0, totalMs: 0 }, outputs: [], started: [], preempted: [] };
      out.durationMs = durationMs;
      const started = [...out.started];
      const outputs = [...out.outputs];
      const still: Pending[] = [];
      for (const p of pending) {
        if (!p.announced && p.startMs <= end) {
          p.announced = true;
          started.push({ id: p.req.id, cachedTokens: 0 });
        }
        if (p.readyMs > end) {
          still.push(p);
          continue;
        }
        promptTokens += p.req.promptTokens;
        firstTokens++;
        const finished = p.req.outputTokens <= 1;
        outputs.push({ id: p.req.id, tokenIndex: 1, finished });
        if (!finished) decode.add({ ...p.req, prefilled: true } as R);
      }
      pending = still;
      now = end;
      return { ...out, started, outputs };
    },
    counters(): C {
      const c = decode.counters();
      return { ...c, waiting: c.waiting + pending.length, promptTokens: c.promptTokens + promptTokens, generationTokens: c.generationTokens + firstTokens };
    },
  };
}
