// constant-vus (k6's name): a closed loop of --concurrency virtual users, each sending its next request when the last ends.
import type { Executor, ScheduleOptions, SendFn } from './types.js';
import { measuredLimitReached } from './limits.js';
import { globalIndex } from '../shard.js';

/**
 * VUs started in one turn of the event loop; a bigger rise (a live change to thousands) starts the rest in later
 * turns (setImmediate), so the process keeps answering (the dashboard's POST, timers, responses) while it ramps.
 */
export const VU_START_BATCH = 200;

async function closedLoop(o: ScheduleOptions, send: SendFn): Promise<void> {
  const ctl = o.control;
  const target = () => ctl?.current.concurrency ?? o.concurrency ?? 1;
  let next = 0;
  let measureStart: number | undefined;
  // VU k runs while k < the current target: a lower target ends VUs after their request, a higher one starts new ones.
  const alive = new Set<number>();
  const running = new Set<Promise<void>>();
  let over = false;
  const worker = async (k: number) => {
    for (;;) {
      if (o.signal?.aborted || over || k >= target()) return;
      // A shard takes the plan's indexes i, i+N, … (src/scheduler/shard.ts), so the shards together send each once.
      const index = o.shard ? globalIndex(next, o.shard) : next;
      if (measuredLimitReached(o, index, measureStart)) return void (over = true);
      next++;
      const t = o.now();
      if (measureStart === undefined && index >= o.warmup) measureStart = t;
      if (!(await send({ index, warmup: index < o.warmup, scheduledAtMs: t, readyAtMs: t, phase: 'steady', stage: ctl?.current.stage }))) return;
    }
  };
  let pendingFill: Promise<void> | undefined;
  const fill = () => {
    let started = 0;
    for (let k = 0; k < target(); k++) {
      if (alive.has(k)) continue;
      if (started++ >= VU_START_BATCH) {
        pendingFill ??= new Promise<void>((resolve) =>
          setImmediate(() => {
            pendingFill = undefined;
            if (!over && !o.signal?.aborted) fill();
            resolve();
          }),
        );
        return;
      }
      alive.add(k);
      const p: Promise<void> = worker(k).finally(() => (alive.delete(k), running.delete(p)));
      running.add(p);
    }
  };
  const unsubscribe = ctl?.onChange(() => over || o.signal?.aborted || fill());
  fill();
  try {
    while (running.size || pendingFill) await Promise.all([...running, pendingFill]);
  } finally {
    unsubscribe?.();
  }
}

export const constantVus: Executor = {
  kind: 'constant-vus',
  openLoop: false,
  liveKnob: 'concurrency',
  run: closedLoop,
  describe: (p) => ({ kind: 'constant-vus', vus: p.concurrency ?? 1 }),
};
