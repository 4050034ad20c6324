// The open loop shared by constant-arrival-rate and replay: each request goes out when due, up to an in-flight cap (k6's maxVUs).
import type { ScheduleOptions, SendFn } from './types.js';
import type { RequestPhase } from '../../metrics/record.js';
import { realWaits } from './limits.js';

/** Without a yield the send loop runs as one chain of microtasks when behind schedule, starving sockets and signals. */
const MAX_BUSY_MS = 5;

/**
 * Send at each time of `schedule` (ms from start); with --concurrency, at most that many in flight (a request held
 * back is ready when a slot frees). Warmup requests follow the same schedule. `phaseOf` gives the phase of a send
 * time (ms from start); without it every request is steady.
 */
export async function openLoop(schedule: Iterable<number>, o: ScheduleOptions, send: SendFn, phaseOf?: (atMs: number) => RequestPhase): Promise<void> {
  const waits = o.waits ?? realWaits(o.now);
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
    // Another shard's arrival: every shard draws the same sequence and sends only its own part of it.
    if (o.shard && index % o.shard.count !== o.shard.index) continue;
    const due = start + at;
    if (due <= o.now() && o.now() - busySince > MAX_BUSY_MS) {
      await waits.yield();
      busySince = o.now();
    }
    if (due > o.now()) busySince = due;
    await waits.sleepUntil(due, o.signal);
    if (o.signal?.aborted) break;
    let ready = due;
    while (inFlight >= cap) {
      await new Promise<void>((r) => (wake = r));
      ready = o.now();
      if (o.signal?.aborted) break;
    }
    if (o.signal?.aborted) break;
    inFlight++;
    const p = send({ index, warmup: index < o.warmup, scheduledAtMs: due, readyAtMs: ready, phase: phaseOf?.(at) ?? 'steady', stage: o.control?.current.stage })
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
