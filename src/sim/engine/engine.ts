// The step-level engine: a vLLM-v1-style scheduler (FIFO waiting queue, running set, chunked prefill,
// recompute preemption) over a KV block pool, timed by the roofline cost model. No I/O, no clock.
import { createBlockPool } from './blocks.js';
import { kvEquivalentTokens, maxTokensForKv, type EngineSpec } from './config.js';
import type { StepCost, StepShape } from './cost.js';
import { createHostTier } from './offload.js';
import { engineStepCost, splitShape, stageSpec } from './pipeline.js';
import { createAcceptance, draftMs } from './spec-decode.js';
import { createDisaggEngine } from './disagg.js';
import { createEncoderCache, type EngineMedia } from './encoder-cache.js';
import type { SharedPrefixStore } from './shared-prefix.js';

export type { EngineMedia } from './encoder-cache.js';

export interface EngineRequest {
  id: string;
  promptTokens: number;
  /** Tokens to generate before the request finishes (the caller decides EOS vs max_tokens). */
  outputTokens: number;
  /** Chained hashes of the prompt's full blocks (see hash.ts); absent = nothing shared. */
  blockHashes?: readonly number[];
  /** Disaggregated decode pool: the prompt's KV arrived from a prefill instance, which also produced the first token. */
  prefilled?: boolean;
  /** Images / clips in the prompt: encoded (unless in the encoder cache) in the step that first schedules the request. */
  media?: readonly EngineMedia[];
  /** --scheduling-policy priority: lower runs first (vLLM's request `priority`); 0 when absent. */
  priority?: number;
}

export interface StepOutput {
  id: string;
  /** 1-based index of the token produced this step. */
  tokenIndex: number;
  finished: boolean;
}

export interface StepResult {
  durationMs: number;
  shape: StepShape;
  cost: StepCost;
  /** One entry per request that produced a token at the end of this step. */
  outputs: StepOutput[];
  /** Requests scheduled for the first time in this step, with their prefix-cache hits in tokens. */
  started: { id: string; cachedTokens: number }[];
  preempted: string[];
}

export interface EngineCounters {
  running: number;
  waiting: number;
  /** Fraction of KV blocks not free (0..1). */
  kvUsage: number;
  prefixQueriesTokens: number;
  prefixHitsTokens: number;
  preemptions: number;
  promptTokens: number;
  generationTokens: number;
  steps: number;
  /** Speculative decoding: decode steps of sequences (drafts), draft tokens proposed, draft tokens accepted. */
  specDrafts: number;
  specDraftTokens: number;
  specAcceptedTokens: number;
  /** KV offload: prompt tokens served from host memory, and bytes moved over PCIe either way. */
  offloadHitsTokens: number;
  offloadTransferBytes: number;
  /** Encoder cache: media items looked up and found (not re-encoded); encoder FLOPs spent and time charged (ms). */
  mmCacheQueries: number;
  mmCacheHits: number;
  encoderFlops: number;
  encoderMs: number;
  /** Shared prefix cache (--shared-prefix-cache): prompt tokens fetched from the store, and bytes per GPU fetched. */
  sharedHitsTokens: number;
  sharedTransferBytes: number;
}

export interface Engine {
  readonly spec: EngineSpec;
  /** Queue a request; returns an error message (vLLM wording) if it can never fit. */
  add(req: EngineRequest): string | undefined;
  /** Drop a request wherever it is and free its blocks; false if unknown or finished. */
  abort(id: string): boolean;
  /** Plan and account one step; null when there is nothing to run. */
  step(): StepResult | null;
  hasWork(): boolean;
  counters(): EngineCounters;
}

interface Req {
  id: string;
  prompt: number;
  target: number;
  hashes: readonly number[];
  blocks: number[];
  computed: number;
  output: number;
  registered: number;
  started: boolean;
  cachedTokens: number;
  state: 'waiting' | 'running' | 'done';
  /** Speculative decoding: fraction of a token carried to the next step. */
  carry: number;
  /** KV offload: tokens of a preempted request held in host memory, and prompt tokens found there on admission. */
  swapped: number;
  hostHits: number;
  /** Prompt tokens found in the shared prefix store on admission (after the local and host hits). */
  sharedHits: number;
  /** Disaggregated decode: the KV in `swapped` arrives from a prefill instance, not from host memory. */
  remote: boolean;
  media: readonly EngineMedia[];
  priority: number;
  /** Arrival order: the tie-break among equal priorities. */
  seq: number;
}

/** vLLM's 400 message when prompt + max_tokens exceeds max_model_len; undefined when it fits. */
export function contextLengthError(maxModelLen: number, promptTokens: number, maxTokens: number | undefined): string | undefined {
  if (maxTokens === undefined) {
    if (promptTokens < maxModelLen) return undefined;
    return `This model's maximum context length is ${maxModelLen} tokens. However, you requested ${promptTokens} tokens in the messages, Please reduce the length of the messages.`;
  }
  if (promptTokens + maxTokens <= maxModelLen) return undefined;
  return `This model's maximum context length is ${maxModelLen} tokens. However, you requested ${promptTokens + maxTokens} tokens (${promptTokens} in the messages, ${maxTokens} in the completion). Please reduce the length of the messages or completion.`;
}

/** The engine for a spec: one colocated instance, or prefill and decode pools with --disagg (disagg.ts). */
export function createEngine(spec: EngineSpec, ext: EngineLinks = {}): Engine {
  return spec.features.disagg ? createDisaggEngine(spec, createColocatedEngine, contextLengthError) : createColocatedEngine(spec, ext);
}

/** What an engine shares with others in the same process: the prefix store of `--shared-prefix-cache`. */
export interface EngineLinks {
  sharedPrefix?: SharedPrefixStore;
}

function createColocatedEngine(spec: EngineSpec, ext: EngineLinks = {}): Engine {
  const bs = spec.blockSize;
  // A disaggregated decode pool is D instances: D times the blocks, requests spread evenly over them.
  const instances = spec.features.disagg?.decode ?? 1;
  const host = spec.features.offload ? createHostTier(spec.features.offload) : undefined;
  const pool = createBlockPool(spec.numBlocks * instances, host ? (h) => host.put(h) : undefined);
  const sd = spec.features.spec;
  const accept = sd ? createAcceptance(sd) : undefined;
  const stage = spec.features.pp > 1 ? stageSpec(spec) : undefined;
  let transferBytes = 0;
  // Sliding-window models map pool blocks to prompt blocks unevenly: the shared store (like host memory) is for full attention.
  const shared = spec.model.slidingWindow ? undefined : ext.sharedPrefix;
  let sharedBytes = 0;
  let sharedFetches = 0;
  const byId = new Map<string, Req>();
  let waiting: Req[] = [];
  let running: Req[] = [];
  // Async scheduling: step N+1 is planned while step N runs, so a request added during step N waits in `inbox`
  // through step N+1 (`staged`) and is first schedulable in step N+2.
  let inbox: Req[] = [];
  let staged: Req[] = [];
  let arrivals = 0;
  const byPriority = spec.schedulingPolicy === 'priority';
  /** Priority order (vLLM): lower priority value first, then earlier arrival. */
  const before = (a: Req, b: Req): boolean => a.priority < b.priority || (a.priority === b.priority && a.seq < b.seq);
  /** Into the waiting queue: FCFS appends (or puts a preempted request first); priority keeps the queue sorted. */
  const enqueue = (r: Req, front: boolean): void => {
    if (!byPriority) return void (front ? waiting.unshift(r) : waiting.push(r));
    let i = waiting.findIndex((w) => before(r, w));
    if (i < 0) i = waiting.length;
    waiting.splice(i, 0, r);
  };
  /** Index in running of the request to preempt among running[from..]: the newest (FCFS) or the lowest priority. */
  const victimIndex = (from = 0): number => {
    let v = running.length - 1;
    if (byPriority) for (let j = from; j < running.length; j++) if (before(running[v], running[j])) v = j;
    return v;
  };
  // Static batching: when nothing runs, the requests waiting then (up to max-num-seqs) are the next batch; they are
  // admitted (over several steps if the token budget or the KV cache says so) and nobody else until the batch is done.
  let batchQuota = 0;
  const batchOpen = (): boolean => spec.batching === 'continuous' || batchQuota > 0;
  const c = { prefixQueriesTokens: 0, prefixHitsTokens: 0, preemptions: 0, promptTokens: 0, generationTokens: 0, steps: 0, specDrafts: 0, specDraftTokens: 0, specAcceptedTokens: 0, offloadHitsTokens: 0, offloadTransferBytes: 0, mmCacheQueries: 0, mmCacheHits: 0, encoderFlops: 0, encoderMs: 0, sharedHitsTokens: 0, sharedTransferBytes: 0 };
  // Bounded like vLLM's encoder cache budget, with room for cross-request reuse (docs/sim.md#multimodal).
  const encoderCache = createEncoderCache(Math.max(spec.maxNumBatchedTokens, 16384));
  let encodeFlops = 0;

  const total = (r: Req): number => r.prompt + r.output;
  const free = (r: Req): void => {
    pool.release(r.blocks);
    r.blocks = [];
    r.registered = 0;
  };
  // Blocks count full-attention-equivalent tokens, so sliding-window layers stop growing a request past their window.
  const grow = (r: Req, tokens: number): boolean => {
    const need = Math.ceil(kvEquivalentTokens(spec.model, tokens) / bs) - r.blocks.length;
    if (need > pool.freeCount()) return false;
    for (let i = 0; i < need; i++) r.blocks.push(pool.allocate());
    return true;
  };
  const preempt = (r: Req, preempted: string[]): void => {
    // With host memory, the request's KV is copied out instead of being dropped (recomputed otherwise).
    if (host && r.computed > 0 && host.swapOut(Math.ceil(r.computed / bs))) {
      r.swapped = r.computed;
      transferBytes += r.computed * spec.kvBytesPerTokenPerGpu;
    }
    free(r);
    r.computed = 0;
    r.state = 'waiting';
    enqueue(r, true);
    c.preemptions++;
    preempted.push(r.id);
  };
  /**
   * Prompt blocks (of bs tokens) whose KV the first n pool blocks hold: n without sliding layers, more with them
   * (a sliding layer keeps only its window). Pool block n−1 is cached under the chained hash of that many prompt blocks.
   */
  const promptBlocksIn = spec.model.slidingWindow
    ? (n: number): number => Math.floor(maxTokensForKv(spec.model, n * bs) / bs)
    : (n: number): number => n;
  /** Reuse cached leading blocks; never the whole sequence (the last token must be computed to sample). */
  const matchPrefix = (r: Req): void => {
    if (r.swapped > 0) {
      r.computed = r.swapped;
      return;
    }
    if (!spec.prefixCaching) return;
    const limit = Math.min(r.hashes.length, Math.floor((total(r) - 1) / bs));
    let covered = 0;
    for (let n = 1; ; n++) {
      const k = promptBlocksIn(n);
      if (k > limit) break;
      const b = pool.lookup(r.hashes[k - 1]);
      if (b < 0) break;
      pool.touch(b);
      r.blocks.push(b);
      covered = k;
    }
    r.registered = r.blocks.length;
    // Blocks evicted to host memory continue the match, copied back into fresh GPU blocks (full-attention models:
    // one pool block per prompt block).
    let hits = covered;
    if (host && !spec.model.slidingWindow && covered === r.blocks.length) while (hits < limit && host.has(r.hashes[hits])) hits++;
    r.hostHits = (hits - covered) * bs;
    // Then the blocks another replica computed, fetched from the shared store.
    const local = hits;
    if (shared && covered === r.blocks.length) while (hits < limit && shared.has(r.hashes[hits])) hits++;
    r.sharedHits = (hits - local) * bs;
    r.computed = hits * bs;
  };

  /**
   * SGLang's admission check: blocks free after keeping newTokenRatio · (remaining output) for every running request
   * must hold the new request's chunk plus the same reservation for its own output. Always true at ratio 0 (vLLM).
   */
  const fitsReservation = (r: Req, n: number): boolean => {
    const ratio = spec.newTokenRatio;
    if (ratio === 0) return true;
    let reserved = ratio * (r.target - r.output);
    for (const x of running) reserved += ratio * (x.target - x.output);
    const need = Math.ceil(kvEquivalentTokens(spec.model, r.computed + n) / bs) - r.blocks.length;
    return need + Math.ceil(reserved / bs) <= pool.freeCount();
  };
  /** Whether the head of the waiting queue could be admitted now (slots, reservation and blocks). */
  const canAdmit = (): boolean => {
    if (waiting.length === 0 || running.length >= spec.maxNumSeqs || !batchOpen()) return false;
    const r = waiting[0];
    const n = Math.min(total(r) - r.computed, spec.maxNumBatchedTokens);
    const need = Math.ceil(kvEquivalentTokens(spec.model, r.computed + n) / bs) - r.blocks.length;
    return need <= pool.freeCount() && fitsReservation(r, n);
  };

  return {
    spec,
    add(req) {
      const err = contextLengthError(spec.maxModelLen, req.promptTokens, req.outputTokens);
      if (err) return err;
      const r: Req = {
        id: req.id,
        prompt: req.promptTokens,
        target: Math.max(1, req.outputTokens),
        hashes: req.blockHashes ?? [],
        blocks: [],
        computed: 0,
        output: 0,
        registered: 0,
        started: false,
        cachedTokens: 0,
        state: 'waiting',
        carry: 0,
        swapped: 0,
        hostHits: 0,
        sharedHits: 0,
        remote: req.prefilled === true,
        media: req.media ?? [],
        priority: req.priority ?? 0,
        seq: arrivals++,
      };
      if (r.remote) {
        r.output = 1;
        r.swapped = r.prompt;
        r.started = true;
      }
      byId.set(r.id, r);
      if (spec.asyncScheduling) inbox.push(r);
      else enqueue(r, false);
      return undefined;
    },

    abort(id) {
      const r = byId.get(id);
      if (!r || r.state === 'done') return false;
      free(r);
      if (r.swapped > 0 && !r.remote) host?.swapIn(Math.ceil(r.swapped / bs));
      if (r.state === 'waiting') {
        waiting = waiting.filter((w) => w !== r);
        inbox = inbox.filter((w) => w !== r);
        staged = staged.filter((w) => w !== r);
      }
      else running = running.filter((w) => w !== r);
      r.state = 'done';
      byId.delete(id);
      return true;
    },

    hasWork: () => running.length > 0 || waiting.length > 0 || inbox.length > 0 || staged.length > 0,

    step() {
      if (spec.asyncScheduling) {
        // An idle engine has no step in flight to be ahead of: everything sent so far is schedulable now.
        const idle = running.length === 0 && waiting.length === 0;
        for (const r of staged) enqueue(r, false);
        staged = inbox;
        inbox = [];
        if (idle) {
          for (const r of staged) enqueue(r, false);
          staged = [];
        }
      }
      if (running.length === 0 && waiting.length === 0) return null;
      if (spec.batching === 'static') batchQuota = running.length === 0 && batchQuota === 0 ? Math.min(waiting.length, spec.maxNumSeqs) : Math.min(batchQuota, waiting.length);
      let budget = spec.maxNumBatchedTokens;
      const sched: Req[] = [];
      const chunk: number[] = [];
      // Tokens each scheduled request computes (K + 1 for a speculative verify, else its chunk).
      const computedNow: number[] = [];
      const draft: StepShape = { requests: 0, newTokens: 0, contextTokens: 0, attentionPairs: 0 };
      const preempted: string[] = [];
      const started: StepResult['started'] = [];

      // Priority preemption (vLLM's priority policy): while the first waiting request outranks the lowest-priority
      // running one and cannot be admitted (blocks or sequence slots), that running request is preempted.
      if (byPriority)
        while (waiting.length > 0 && running.length > 0 && batchOpen()) {
          const v = victimIndex();
          if (!before(waiting[0], running[v]) || canAdmit()) break;
          preempt(running.splice(v, 1)[0], preempted);
        }
      const priorityPreempted = preempted.length;

      // Prefill-first (SGLang): when a waiting request can be admitted, the step is a prefill batch (new prompts and
      // chunks of prompts in progress) and running decodes wait for the next step.
      const prefillStep = spec.schedulePolicy === 'prefill-first' && (canAdmit() || running.some((r) => r.computed < r.prompt));

      // 1. Running requests first, oldest first; make room by preempting the newest.
      const scheduleRunning = (skipDecodes: boolean): void => {
        for (let i = 0; i < running.length && budget > 0; i++) {
          const r = running[i];
          if (skipDecodes && r.computed >= r.prompt) continue;
          const decoding = accept !== undefined && r.output >= 1 && total(r) - r.computed === 1;
          const verify = decoding ? sd!.tokens + 1 : 0;
          if (decoding && verify > budget) continue;
          const a = decoding ? accept!(r.carry) : undefined;
          const n = a ? Math.min(a.tokens, r.target - r.output) : Math.min(total(r) - r.computed, budget);
          if (n <= 0) continue;
          let ok = grow(r, r.computed + n);
          while (!ok) {
            const victim = running.splice(victimIndex(i), 1)[0];
            preempt(victim, preempted);
            if (victim === r) break;
            ok = grow(r, r.computed + n);
          }
          if (!ok) break;
          sched.push(r);
          chunk.push(n);
          computedNow.push(decoding ? verify : n);
          budget -= decoding ? verify : n;
          if (a) {
            r.carry = a.carry;
            c.specDrafts++;
            c.specDraftTokens += sd!.tokens;
            c.specAcceptedTokens += a.tokens - 1;
            draft.requests++;
            draft.newTokens++;
            draft.contextTokens += r.computed;
            draft.attentionPairs += r.computed + 1;
          }
        }
      };
      scheduleRunning(prefillStep);

      // 2. Admit waiting requests FIFO while budget, sequence slots and blocks allow (none after a preemption).
      while (preempted.length === priorityPreempted && waiting.length > 0 && budget > 0 && running.length < spec.maxNumSeqs && batchOpen()) {
        const r = waiting[0];
        if (r.blocks.length === 0) matchPrefix(r);
        const n = Math.min(total(r) - r.computed, budget);
        if (!fitsReservation(r, n) || !grow(r, r.computed + n)) {
          free(r);
          r.computed = 0;
          break;
        }
        waiting.shift();
        if (r.remote) {
          r.remote = false;
          r.swapped = 0;
        } else if (r.swapped > 0) {
          host!.swapIn(Math.ceil(r.swapped / bs));
          transferBytes += r.swapped * spec.kvBytesPerTokenPerGpu;
          r.swapped = 0;
        } else if (r.hostHits > 0) {
          transferBytes += r.hostHits * spec.kvBytesPerTokenPerGpu;
          c.offloadHitsTokens += r.hostHits;
          r.hostHits = 0;
        }
        if (r.sharedHits > 0) {
          sharedBytes += r.sharedHits * spec.kvBytesPerTokenPerGpu;
          sharedFetches++;
          c.sharedHitsTokens += r.sharedHits;
          r.sharedHits = 0;
        }
        if (!r.started) {
          r.started = true;
          r.cachedTokens = r.computed;
          c.prefixQueriesTokens += r.prompt;
          c.prefixHitsTokens += r.computed;
          started.push({ id: r.id, cachedTokens: r.computed });
          if (r.media.length > 0) {
            const e = encoderCache.charge(r.media, r.computed);
            c.mmCacheQueries += r.media.length;
            c.mmCacheHits += e.hits;
            encodeFlops += e.flops;
          }
        }
        r.state = 'running';
        running.push(r);
        if (spec.batching === 'static') batchQuota--;
        sched.push(r);
        chunk.push(n);
        computedNow.push(n);
        budget -= n;
      }

      // A prefill step that admitted nothing after all (a preemption, or the budget) runs the decodes instead.
      if (prefillStep && sched.length === 0) scheduleRunning(false);

      const shape: StepShape = { requests: sched.length, newTokens: 0, contextTokens: 0, attentionPairs: 0, decodePairs: 0 };
      for (let i = 0; i < sched.length; i++) {
        const n = computedNow[i];
        const done = sched[i].computed;
        shape.newTokens += n;
        shape.contextTokens += done;
        shape.attentionPairs += n * done + (n * (n + 1)) / 2;
        if (n === 1) shape.decodePairs! += done + 1;
      }
      const cost = engineStepCost(spec, instances > 1 ? splitShape(shape, instances) : shape, stage);
      let durationMs = cost.totalMs;
      // The vision/audio encoder runs before the LM forward of the step that admits its request, on the same roofline
      // (compute-bound: FLOPs / (peak · mfu), the tower split over TP like the LM).
      if (encodeFlops > 0) {
        const ms = (encodeFlops / spec.tp / spec.flopsPerSec) * 1000;
        durationMs += ms;
        c.encoderFlops += encodeFlops;
        c.encoderMs += ms;
        encodeFlops = 0;
      }
      if (sd && draft.requests > 0) durationMs += draftMs(sd, engineStepCost(spec, draft, stage).totalMs);
      // Offload copies are serialized with the step (no overlap with compute): bytes / PCIe bandwidth.
      if (host && transferBytes > 0) {
        durationMs += host.transferMs(transferBytes);
        c.offloadTransferBytes += transferBytes;
        transferBytes = 0;
      }
      if (shared && sharedBytes > 0) {
        durationMs += shared.transferMs(sharedBytes, sharedFetches);
        c.sharedTransferBytes += sharedBytes;
        sharedBytes = 0;
        sharedFetches = 0;
      }

      // 3. Apply the step: advance computed tokens, cache full prompt blocks, sample where caught up.
      const outputs: StepOutput[] = [];
      let finishedAny = false;
      for (let i = 0; i < sched.length; i++) {
        const r = sched[i];
        r.computed += chunk[i];
        if (spec.prefixCaching) {
          const full = Math.min(Math.floor(Math.min(r.computed, r.prompt) / bs), r.hashes.length);
          for (; r.registered < r.blocks.length; r.registered++) {
            const k = promptBlocksIn(r.registered + 1);
            if (k > full) break;
            pool.register(r.blocks[r.registered], r.hashes[k - 1]);
            shared?.put(r.hashes[k - 1]);
          }
        }
        // One token per step, or every accepted speculative token.
        while (r.state === 'running' && r.computed >= total(r)) {
          r.output++;
          if (r.output === 1) c.promptTokens += r.prompt;
          c.generationTokens++;
          const finished = r.output >= r.target;
          outputs.push({ id: r.id, tokenIndex: r.output, finished });
          if (finished) {
            free(r);
            r.state = 'done';
            byId.delete(r.id);
            finishedAny = true;
          }
        }
      }
      if (finishedAny) running = running.filter((r) => r.state === 'running');
      c.steps++;
      return { durationMs, shape, cost, outputs, started, preempted };
    },

    counters: () => ({
      running: running.length,
      waiting: waiting.length + inbox.length + staged.length,
      kvUsage: 1 - pool.freeCount() / pool.numBlocks,
      ...c,
    }),
  };
}
