// Executors: closed loop (fixed concurrency), open loop (rate, optionally capped in flight), stop conditions.
import type { Rng } from '../util/rng.js';
import { openLoopArrivals, type ArrivalKind } from './arrivals.js';
import { MAX_TIMER_MS } from '../util/timer.js';

export interface Slot {
  /** 0-based request index; indexes below `warmup` are warmup requests. */
  index: number;
  warmup: boolean;
  /** When the schedule wanted it sent (ms on the run clock). */
  scheduledAtMs: number;
  /**
   * When it could first have been sent: the scheduled time, or later when the in-flight cap (--rate with
   * --concurrency) held it back. Lateness beyond this is the client's own.
   */
  readyAtMs: number;
}

export interface ScheduleOptions {
  concurrency?: number;
  rate?: number;
  arrival: ArrivalKind;
  burstiness: number;
  warmup: number;
  /** Measured requests to send (warmup excluded). */
  requests?: number;
  /** Stop sending this long after the first measured request was due. */
  durationMs?: number;
  rng: Rng;
  now: () => number;
  /** Stops issuing new requests when aborted (graceful stop). */
  signal?: AbortSignal;
  /** Explicit send times (ms from start), e.g. trace replay; replaces the rate's arrival process. */
  arrivalTimesMs?: number[];
}

/** `send` returns false when the workload has nothing more for this slot: that ends the loop. */
export type SendFn = (slot: Slot) => Promise<boolean>;

/** Resolves at `atMs` on the run clock: a timer for the bulk, then a short setImmediate spin for the last ms. */
export function sleepUntil(atMs: number, now: () => number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    // A stop ends the wait at once: the next arrival of a slow open loop may be minutes (or days) away.
    const onAbort = () => {
      if (timer) clearTimeout(timer);
      resolve();
    };
    const done = () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    };
    const tick = () => {
      timer = undefined;
      if (signal?.aborted) return done();
      const left = atMs - now();
      if (left <= 0) return done();
      // A longer delay would fire after 1 ms: wait the longest a timer allows and look again.
      if (left > 2) timer = setTimeout(tick, Math.min(left - 1.5, MAX_TIMER_MS));
      else setImmediate(tick);
    };
    if (signal?.aborted) return resolve();
    signal?.addEventListener('abort', onAbort, { once: true });
    tick();
  });
}

/** Run the schedule, calling `send` for every slot; resolves when every sent request has finished. */
export async function runSchedule(o: ScheduleOptions, send: SendFn): Promise<void> {
  if (o.rate !== undefined || o.arrivalTimesMs) return openLoop(o, send);
  return closedLoop(o, send);
}

function measuredLimitReached(o: ScheduleOptions, index: number, measureStart: number | undefined): boolean {
  if (index < o.warmup) return false;
  if (o.requests !== undefined && index >= o.warmup + o.requests) return true;
  if (o.durationMs !== undefined && measureStart !== undefined && o.now() - measureStart >= o.durationMs) return true;
  return false;
}

async function closedLoop(o: ScheduleOptions, send: SendFn): Promise<void> {
  const n = o.concurrency ?? 1;
  let next = 0;
  let measureStart: number | undefined;
  const worker = async () => {
    for (;;) {
      if (o.signal?.aborted) return;
      const index = next;
      if (measuredLimitReached(o, index, measureStart)) return;
      next++;
      const t = o.now();
      if (index === o.warmup) measureStart = t;
      if (!(await send({ index, warmup: index < o.warmup, scheduledAtMs: t, readyAtMs: t }))) return;
    }
  };
  await Promise.all(Array.from({ length: n }, worker));
}

/** Explicit send times (trace replay) cut to --requests and --duration, lazily like the arrival process. */
function* explicitTimes(times: readonly number[], o: ScheduleOptions): Generator<number, void, undefined> {
  const count = o.requests !== undefined ? Math.min(times.length, o.warmup + o.requests) : times.length;
  const first = times[Math.min(o.warmup, count - 1)] ?? 0;
  for (let i = 0; i < count; i++) if (o.durationMs === undefined || i < o.warmup || times[i] - first < o.durationMs) yield times[i];
}

/** Without a yield the send loop runs as one chain of microtasks when behind schedule, starving sockets and signals. */
const MAX_BUSY_MS = 5;
const yieldToLoop = (): Promise<void> => new Promise((r) => setImmediate(r));

async function openLoop(o: ScheduleOptions, send: SendFn): Promise<void> {
  // Warmup requests follow the same schedule; the measured phase is the rest of it, ended by --requests or
  // --duration (measured from the first measured send), whichever comes first. Send times are generated one
  // at a time, so memory does not grow with the length of the schedule.
  const schedule = o.arrivalTimesMs ? explicitTimes(o.arrivalTimesMs, o) : openLoopArrivals(o.arrival, o.rate ?? 1, o.burstiness, o.rng, o);
  const start = o.now();
  const cap = o.concurrency ?? Number.POSITIVE_INFINITY;
  let inFlight = 0;
  let wake: (() => void) | undefined;
  const pending = new Set<Promise<void>>();
  let exhausted = false;
  let failure: unknown;
  let index = -1;
  let busySince = o.now();
  for (const at of schedule) {
    index++;
    if (exhausted) break;
    const due = start + at;
    if (due <= o.now() && o.now() - busySince > MAX_BUSY_MS) {
      await yieldToLoop();
      busySince = o.now();
    }
    if (due > o.now()) busySince = due;
    await sleepUntil(due, o.now, o.signal);
    if (o.signal?.aborted) break;
    let ready = due;
    while (inFlight >= cap) {
      await new Promise<void>((r) => (wake = r));
      ready = o.now();
      if (o.signal?.aborted) break;
    }
    if (o.signal?.aborted) break;
    inFlight++;
    const p = send({ index, warmup: index < o.warmup, scheduledAtMs: due, readyAtMs: ready })
      .then(
        (more) => {
          if (!more) exhausted = true;
        },
        (err: unknown) => {
          // A send that throws (disk full, a workload bug) stops the schedule and fails the run, not the process.
          failure ??= err;
          exhausted = true;
        },
      )
      .finally(() => {
      inFlight--;
      pending.delete(p);
      const w = wake;
      wake = undefined;
      w?.();
    });
    pending.add(p);
  }
  await Promise.all(pending);
  if (failure !== undefined) throw failure;
}
