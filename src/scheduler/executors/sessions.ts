// sessions: a schedule that grows as requests finish (trace sessions): each item goes out at its due time; --concurrency caps in flight.
import type { Executor, ScheduleOptions, SendFn } from './types.js';
import { realWaits } from './limits.js';

/**
 * Send the dynamic schedule's items in due order until it is done, --requests measured requests were sent, or
 * --duration passed since the first measured one. An item added while the loop sleeps wakes it (it may be due sooner).
 */
async function runSessions(o: ScheduleOptions, send: SendFn): Promise<void> {
  const sched = o.dynamic;
  if (!sched) throw new Error('the sessions executor needs a dynamic schedule (a trace session workload)');
  const waits = o.waits ?? realWaits(o.now);
  const cap = o.concurrency ?? Number.POSITIVE_INFINITY;
  let wakeP: Promise<void> | undefined;
  let wakeR: (() => void) | undefined;
  const wakeup = (): Promise<void> => (wakeP ??= new Promise<void>((r) => (wakeR = r)));
  const notify = (): void => {
    const r = wakeR;
    wakeP = wakeR = undefined;
    r?.();
  };
  const onAbort = (): void => notify();
  o.signal?.addEventListener('abort', onAbort, { once: true });
  sched.begin(o.now, notify);
  const pending = new Set<Promise<void>>();
  let inFlight = 0;
  let index = 0;
  let measured = 0;
  let measureStart: number | undefined;
  let exhausted = false;
  let failure: unknown;
  let heldSince: number | undefined;
  try {
    for (;;) {
      if (o.signal?.aborted || exhausted) break;
      const head = sched.peek();
      if (!head) {
        if (sched.done()) break;
        await wakeup();
        continue;
      }
      if (head.atMs > o.now()) {
        const ac = new AbortController();
        const w = wakeup();
        void w.then(() => ac.abort());
        await waits.sleepUntil(head.atMs, ac.signal);
        ac.abort();
        continue;
      }
      if (inFlight >= cap) {
        heldSince ??= o.now();
        await wakeup();
        continue;
      }
      const warmup = head.warmup || index < o.warmup;
      if (!warmup) {
        if (o.requests !== undefined && measured >= o.requests) break;
        if (o.durationMs !== undefined && measureStart !== undefined && o.now() - measureStart >= o.durationMs) break;
        measureStart ??= o.now();
        measured++;
      }
      const readyAtMs = heldSince !== undefined ? Math.max(head.atMs, o.now()) : head.atMs;
      heldSince = undefined;
      sched.take(index);
      inFlight++;
      const p: Promise<void> = send({ index: index++, warmup, scheduledAtMs: head.atMs, readyAtMs, phase: 'steady', stage: o.control?.current.stage })
        .then(
          (more) => {
            if (!more) exhausted = true;
          },
          (err: unknown) => {
            failure ??= err;
            exhausted = true;
          },
        )
        .finally(() => {
          inFlight--;
          pending.delete(p);
          notify();
        });
      pending.add(p);
      // Many items due at once: let sockets and timers run between sends.
      if (pending.size % 64 === 0) await waits.yield();
    }
    await Promise.all(pending);
  } finally {
    o.signal?.removeEventListener('abort', onAbort);
  }
  if (failure !== undefined) throw failure;
}

export const sessions: Executor = {
  kind: 'sessions',
  openLoop: true,
  run: runSessions,
  describe: (p) => ({ kind: 'sessions', max_vus: p.concurrency ?? null }),
};
