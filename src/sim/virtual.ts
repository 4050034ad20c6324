// Engine-level harness: a fixed load through the engine on a virtual clock, synchronously (engine unit tests, fidelity checks). `tokenflood simulate` runs the real scheduler on the virtual driver instead (src/drivers/virtual.ts).
import { createRng } from '../util/rng.js';
import { arrivalSchedule, type ArrivalKind } from '../scheduler/arrivals.js';
import { resolveEngine, type EngineOptions, type EngineSpec } from './engine/config.js';
import { createEngine, type EngineCounters } from './engine/engine.js';
import { blockHashesFromIds, syntheticBlockHashes } from './engine/hash.js';
import { decideOutputTokens } from './engine/length.js';
import { outsideEngineMs } from './engine/overheads.js';

export interface VirtualRequest {
  /** Prompt token ids (prefix caching then hashes the real tokens). */
  promptTokenIds?: readonly number[];
  /** Prompt length when ids are not given. */
  promptTokens?: number;
  /** With promptTokens: the first `tokens` tokens are shared by every request with the same `key`. */
  prefix?: { key: string; tokens: number };
  maxTokens: number;
  minTokens?: number;
  ignoreEos?: boolean;
  /** --scheduling-policy priority: lower runs first (the request body's `priority`). */
  priority?: number;
}

export interface VirtualLoad {
  /** Max requests in flight; alone = closed loop (a new request the instant one finishes). */
  concurrency?: number;
  /** Requests per second (open loop); with concurrency, arrivals wait for a free slot. */
  rate?: number;
  arrival?: ArrivalKind;
  burstiness?: number;
  seed?: number;
  /** Total requests to send. */
  requests: number;
  /** Closed loop: when each of the first `concurrency` requests is sent (ms); default all at 0. */
  startMs?: readonly number[];
  /** Closed loop: client time between the k-th request end (or failure) and the send that refills its slot (ms); default 0. */
  refillGapMs?: (k: number) => number;
  /** Open loop: the arrival times (ms) instead of drawing them from rate, arrival and burstiness. */
  arrivalsMs?: readonly number[];
}

export interface SimulateRunOptions {
  /** Engine options (resolved with defaults) or an already resolved spec. */
  engine?: EngineOptions | EngineSpec;
  /** Requests, cycled if shorter than load.requests, or a factory by index. */
  requests: readonly VirtualRequest[] | ((index: number) => VirtualRequest);
  load: VirtualLoad;
  /** Requests run to completion before time 0 and not recorded: the prefix cache an earlier run left behind. */
  warm?: readonly VirtualRequest[];
}

/** Raw facts of one request, all times in simulated ms from the start of the run. */
export interface VirtualRecord {
  index: number;
  scheduledMs: number;
  sentMs: number;
  firstTokenMs?: number;
  tokenTimesMs: number[];
  endMs: number;
  promptTokens: number;
  cachedTokens: number;
  outputTokens: number;
  finishReason?: 'length' | 'stop';
  error?: string;
}

export interface SimulateRunResult {
  records: VirtualRecord[];
  /** Time the last request ended. */
  durationMs: number;
  steps: number;
  /** Highest number of requests in flight at once. */
  maxInFlight: number;
  counters: EngineCounters;
}

function isSpec(e: EngineOptions | EngineSpec | undefined): e is EngineSpec {
  return !!e && typeof (e as EngineSpec).numBlocks === 'number' && typeof (e as EngineSpec).params === 'object';
}

/** Run `load.requests` requests through the engine on a virtual clock and return one record per request. */
export function simulateRun(opts: SimulateRunOptions): SimulateRunResult {
  const spec = isSpec(opts.engine) ? opts.engine : resolveEngine(opts.engine ?? {});
  const engine = createEngine(spec);
  const { load } = opts;
  const rng = createRng(load.seed ?? 1);
  const lengthRng = rng.fork();
  const total = load.requests;
  const cap = load.concurrency ?? Infinity;
  if (!(cap >= 1) && load.rate === undefined && load.arrivalsMs === undefined) throw new Error('simulateRun: give load.concurrency and/or load.rate');
  const arrivals = load.arrivalsMs
    ? [...load.arrivalsMs].sort((a, b) => a - b)
    : load.rate !== undefined ? arrivalSchedule(load.arrival ?? 'poisson', load.rate, load.burstiness ?? 1, rng, { count: total }) : undefined;
  const pick = (i: number): VirtualRequest =>
    typeof opts.requests === 'function' ? opts.requests(i) : opts.requests[i % opts.requests.length];
  const hashesOf = (req: VirtualRequest, promptTokens: number, key: number): number[] =>
    req.promptTokenIds ? blockHashesFromIds(req.promptTokenIds, spec.blockSize) : syntheticBlockHashes(promptTokens, spec.blockSize, key, req.prefix);
  (opts.warm ?? []).forEach((req, i) => {
    const promptTokens = req.promptTokenIds ? req.promptTokenIds.length : (req.promptTokens ?? 0);
    engine.add({ id: `warm-${i}`, promptTokens, outputTokens: 1, blockHashes: hashesOf(req, promptTokens, -1 - i) });
    while (engine.hasWork() && engine.step());
  });
  // Closed loop: when each free slot sends next, sorted (the first wave at load.startMs, then end + refill gap).
  const due: number[] = arrivals ? [] : Array.from({ length: Math.min(total, cap) }, (_, k) => Math.max(0, load.startMs?.[k] ?? 0)).sort((a, b) => a - b);
  let refills = 0;
  const refill = (freedMs: number): void => {
    if (arrivals) return;
    const at = freedMs + Math.max(0, load.refillGapMs?.(refills++) ?? 0);
    let i = due.length;
    while (i > 0 && due[i - 1] > at) i--;
    due.splice(i, 0, at);
  };

  const records: VirtualRecord[] = [];
  const live = new Map<string, VirtualRecord>();
  let next = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  let now = 0;
  let steps = 0;
  const pending: { at: number; admit: () => void }[] = [];

  const send = (scheduledMs: number, sentMs: number): void => {
    const index = next++;
    const req = pick(index);
    const promptTokens = req.promptTokenIds ? req.promptTokenIds.length : (req.promptTokens ?? 0);
    const decision = decideOutputTokens(lengthRng, req);
    const rec: VirtualRecord = { index, scheduledMs, sentMs, tokenTimesMs: [], endMs: sentMs, promptTokens, cachedTokens: 0, outputTokens: 0, finishReason: decision.finishReason };
    records.push(rec);
    const blockHashes = hashesOf(req, promptTokens, index);
    const admit = (): boolean => {
      const err = engine.add({ id: String(index), promptTokens, outputTokens: decision.outputTokens, blockHashes, priority: req.priority });
      if (err === undefined) {
        live.set(String(index), rec);
        return true;
      }
      rec.error = err;
      rec.finishReason = undefined;
      return false;
    };
    const occupy = (): void => {
      inFlight++;
      if (inFlight > maxInFlight) maxInFlight = inFlight;
    };
    // API server, tokenization and streaming time outside the engine (engine/overheads.ts) before admission.
    const outside = outsideEngineMs(spec, promptTokens);
    if (outside <= 0) {
      if (admit()) occupy();
      else refill(sentMs);
      return;
    }
    occupy();
    const at = sentMs + outside;
    let i = pending.length;
    while (i > 0 && pending[i - 1].at > at) i--;
    pending.splice(i, 0, { at, admit: () => void (admit() || (inFlight--, refill(at))) });
  };
  const admitDue = (t: number): void => {
    while (pending.length > 0 && pending[0].at <= t) pending.shift()!.admit();
  };
  /** Send everything due by `until` that fits; `atMs` is when the slot is free (never before its arrival). */
  const submit = (until: number, atMs: number): void => {
    if (!arrivals) {
      while (next < total && due.length > 0 && due[0] <= until) {
        const t = due.shift()!;
        send(t, t);
      }
      return;
    }
    while (next < total && inFlight < cap && arrivals[next] <= until) send(arrivals[next], Math.max(arrivals[next], atMs));
  };

  submit(now, now);
  while (next < total || engine.hasWork() || pending.length > 0) {
    admitDue(now);
    // The next step is planned the instant the previous one ends, so requests sent at that boundary
    // (closed-loop refills) reach the engine while it runs and join the step after, as on a real server.
    let res = engine.step();
    submit(now, now);
    admitDue(now);
    if (!res) res = engine.step();
    if (!res) {
      // Idle: jump to the next arrival or admission.
      const nextArrival = next >= total ? Infinity : arrivals ? (inFlight < cap ? arrivals[next] : Infinity) : (due[0] ?? Infinity);
      const nextAdmit = pending.length > 0 ? pending[0].at : Infinity;
      if (nextArrival === Infinity && nextAdmit === Infinity) break;
      now = Math.max(now, Math.min(nextArrival, nextAdmit));
      submit(now, now);
      continue;
    }
    steps++;
    const end = now + res.durationMs;
    // Arrivals (and refills after a client gap) during the step go out on time while slots are free; they join the next step.
    submit(end, 0);
    for (const s of res.started) {
      const rec = live.get(s.id);
      if (rec) rec.cachedTokens = s.cachedTokens;
    }
    for (const o of res.outputs) {
      const rec = live.get(o.id)!;
      rec.tokenTimesMs.push(end);
      if (o.tokenIndex === 1) rec.firstTokenMs = end;
      rec.outputTokens = o.tokenIndex;
      if (o.finished) {
        rec.endMs = end;
        live.delete(o.id);
        inFlight--;
        refill(end);
      }
    }
    now = end;
  }
  records.sort((a, b) => a.index - b.index);
  return { records, durationMs: now, steps, maxInFlight, counters: engine.counters() };
}
