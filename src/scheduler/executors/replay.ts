// replay: an open loop at the recorded send times of a trace (--replay), cut to --requests and --duration; --concurrency caps in flight.
import type { Executor, ScheduleOptions, SendFn } from './types.js';
import { openLoop } from './open-loop.js';

/** Explicit send times (trace replay) cut to --requests and --duration, lazily like the arrival process. */
function* explicitTimes(times: ArrayLike<number>, o: ScheduleOptions): Generator<number, void, undefined> {
  const count = o.requests !== undefined ? Math.min(times.length, o.warmup + o.requests) : times.length;
  const first = times[Math.min(o.warmup, count - 1)] ?? 0;
  for (let i = 0; i < count; i++) if (o.durationMs === undefined || i < o.warmup || times[i] - first < o.durationMs) yield times[i];
}

export const replay: Executor = {
  kind: 'replay',
  openLoop: true,
  run: (o, send) => openLoop(explicitTimes(o.arrivalTimesMs ?? [], o), o, send),
  describe: (p) => ({ kind: 'replay', max_vus: p.concurrency ?? null }),
};
