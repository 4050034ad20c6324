// ramping-vus (k6's name): a closed loop whose number of virtual users follows --stages (or --ramp-up/--ramp-down).
import { setMaxListeners } from 'node:events';
import type { Executor, ScheduleOptions, SendFn } from './types.js';
import { realWaits } from './limits.js';
import { describeStages, phaseAt, type Stage } from '../stages.js';

/**
 * When VU `k` (0-based) is active, as [startMs, stopMs) from the start of the stages (the last may be open: Infinity).
 * A stage rising from a to b starts VU k (a ≤ k < b) at t0 + (k − a)/(b − a) × d, so the VUs start evenly and the first
 * at once; one falling from a to b stops VU k (b ≤ k < a) at t0 + (a − k)/(a − b) × d, so the last one stops at the
 * stage's end. After the stages the last target holds.
 */
export function vuIntervals(stages: readonly Stage[], k: number): [number, number][] {
  const out: [number, number][] = [];
  let t0 = 0;
  let prev = 0;
  for (const { durationMs: d, target: b } of stages) {
    if (b > prev && k >= prev && k < b) out.push([t0 + ((k - prev) / (b - prev)) * d, Infinity]);
    else if (b < prev && k >= b && k < prev) out[out.length - 1][1] = t0 + ((prev - k) / (prev - b)) * d;
    t0 += d;
    prev = b;
  }
  return out;
}

async function rampingVus(o: ScheduleOptions, send: SendFn): Promise<void> {
  const stages = o.ramp?.stages ?? [];
  const waits = o.waits ?? realWaits(o.now);
  const start = o.now();
  // With ramps --duration counts from the start of the stages (the phases are laid out on that clock).
  const end = start + (o.durationMs ?? Infinity);
  const vus = Math.max(0, ...stages.map((s) => s.target));
  let next = 0;
  // Ends the waits of VUs not started yet once nothing more will be sent (--requests reached, workload exhausted, a
  // stop): without it the run would last until the last of them was due, e.g. to the end of a 10 min ramp-up.
  const over = new AbortController();
  // Every VU waiting for its start listens on it: thousands of listeners are expected, not a leak.
  setMaxListeners(0, over.signal);
  const onStop = () => over.abort();
  o.signal?.addEventListener('abort', onStop, { once: true });
  if (o.signal?.aborted) over.abort();
  const vu = async (k: number) => {
    for (const [from, to] of vuIntervals(stages, k)) {
      const startAt = start + from;
      if (startAt >= end) return;
      await waits.sleepUntil(startAt, over.signal);
      // The first request of a VU was due when the VU started: a late wake-up shows as schedule lag.
      let due: number | undefined = startAt;
      for (;;) {
        if (over.signal.aborted) return;
        const t = o.now();
        if (t >= end) return;
        if (t >= start + to) break;
        const index = next;
        if (o.requests !== undefined && index >= o.warmup + o.requests) return over.abort();
        next++;
        const at = due ?? t;
        due = undefined;
        const slot = { index, warmup: index < o.warmup, scheduledAtMs: at, readyAtMs: at, phase: phaseAt(stages, at - start) };
        if (!(await send(slot))) return over.abort();
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: vus }, (_, k) => vu(k)));
  } finally {
    o.signal?.removeEventListener('abort', onStop);
  }
}

export const rampingVusExecutor: Executor = {
  kind: 'ramping-vus',
  openLoop: false,
  run: rampingVus,
  describe: (p) => ({ kind: 'ramping-vus', start_vus: 0, stages: describeStages(p.ramp?.stages ?? []) }),
};
