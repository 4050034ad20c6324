// What the executors share: sleeping until a time on the run clock, and the --requests/--duration stop condition.
import { MAX_TIMER_MS } from '../../util/timer.js';
import type { ScheduleOptions, Waits } from './types.js';

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

/** Waiting on the wall clock `now` reads (ms on the run clock). */
export const realWaits = (now: () => number): Waits => ({
  sleepUntil: (atMs, signal) => sleepUntil(atMs, now, signal),
  yield: () => new Promise((r) => setImmediate(r)),
});

export function measuredLimitReached(o: ScheduleOptions, index: number, measureStart: number | undefined): boolean {
  if (index < o.warmup) return false;
  if (o.requests !== undefined && index >= o.warmup + o.requests) return true;
  if (o.durationMs !== undefined && measureStart !== undefined && o.now() - measureStart >= o.durationMs) return true;
  return false;
}
