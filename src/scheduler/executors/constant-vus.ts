// constant-vus (k6's name): a closed loop of --concurrency virtual users, each sending its next request when the last ends.
import type { Executor, ScheduleOptions, SendFn } from './types.js';
import { measuredLimitReached } from './limits.js';

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
      if (!(await send({ index, warmup: index < o.warmup, scheduledAtMs: t, readyAtMs: t, phase: 'steady' }))) return;
    }
  };
  await Promise.all(Array.from({ length: n }, worker));
}

export const constantVus: Executor = {
  kind: 'constant-vus',
  openLoop: false,
  run: closedLoop,
  describe: (p) => ({ kind: 'constant-vus', vus: p.concurrency ?? 1 }),
};
