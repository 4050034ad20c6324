// Executors: closed loop (fixed concurrency), open loop (rate, optionally capped in flight), stop conditions.
import type { Rng } from '../util/rng.js';
import { arrivalSchedule, type ArrivalKind } from './arrivals.js';

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
    const tick = () => {
      if (signal?.aborted) return resolve();
      const left = atMs - now();
      if (left <= 0) return resolve();
      if (left > 2) setTimeout(tick, left - 1.5);
      else setImmediate(tick);
    };
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

async function openLoop(o: ScheduleOptions, send: SendFn): Promise<void> {
  const rate = o.rate ?? 1;
  // Warmup requests follow the same schedule; the measured phase is the rest of it.
  const count = o.requests !== undefined ? o.warmup + o.requests : undefined;
  let schedule = o.arrivalTimesMs ?? arrivalSchedule(o.arrival, rate, o.burstiness, o.rng, { count });
  if (o.arrivalTimesMs && count !== undefined) schedule = schedule.slice(0, count);
  if (count === undefined && !o.arrivalTimesMs) {
    // Duration-bounded: extend the schedule past the warmup so the measured phase lasts durationMs.
    const warmEnd = o.warmup > 0 ? arrivalSchedule(o.arrival, rate, o.burstiness, o.rng.fork(), { count: o.warmup }) : [];
    const warmSpan = warmEnd.length ? warmEnd[warmEnd.length - 1] + 1000 / rate : 0;
    schedule = arrivalSchedule(o.arrival, rate, o.burstiness, o.rng, { untilMs: warmSpan + (o.durationMs as number) });
  }
  const start = o.now();
  const cap = o.concurrency ?? Number.POSITIVE_INFINITY;
  let inFlight = 0;
  let wake: (() => void) | undefined;
  const pending = new Set<Promise<void>>();
  let exhausted = false;
  for (let index = 0; index < schedule.length && !exhausted; index++) {
    const due = start + schedule[index];
    if (o.durationMs !== undefined && o.arrivalTimesMs && schedule[index] > o.durationMs) break;
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
    const p = send({ index, warmup: index < o.warmup, scheduledAtMs: due, readyAtMs: ready }).then((more) => {
      if (!more) exhausted = true;
    }).finally(() => {
      inFlight--;
      pending.delete(p);
      const w = wake;
      wake = undefined;
      w?.();
    });
    pending.add(p);
  }
  await Promise.all(pending);
}
