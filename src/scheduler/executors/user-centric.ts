// user-centric (AIPerf's user-centric rate): --users N users, each sending at --user-rate R requests/s, its turns in order.
import type { Executor, ScheduleOptions, SendFn } from './types.js';
import { measuredLimitReached, realWaits } from './limits.js';

/**
 * User u (0-based) is first due at u · gap / N (the starts staggered evenly over one gap, gap = 1/R), then each
 * next request one gap after the previous one was due: the rate is send-to-send (AIPerf's turn gap), so a user's
 * think time is gap − the request's E2E. Turns stay in order: a user never has two requests in flight, so when its
 * request outlives the gap the next goes out when it ends (due = max(previous due + gap, previous end)); that
 * lateness is the server's doing and shows in the record's schedule_lag_ms and ttft_from_scheduled_ms.
 * Aggregate intended rate: N · R.
 */
async function userCentric(o: ScheduleOptions, send: SendFn): Promise<void> {
  const waits = o.waits ?? realWaits(o.now);
  const users = o.users ?? 1;
  const gapMs = 1000 / (o.userRate ?? 1);
  const start = o.now();
  let next = 0;
  let measureStart: number | undefined;
  let over = false;
  let failure: unknown;
  const user = async (u: number): Promise<void> => {
    let due = start + (u * gapMs) / users;
    for (;;) {
      await waits.sleepUntil(due, o.signal);
      if (over || o.signal?.aborted) return;
      const index = next;
      if (measuredLimitReached(o, index, measureStart)) return void (over = true);
      next++;
      if (measureStart === undefined && index >= o.warmup) measureStart = due;
      if (!(await send({ index, warmup: index < o.warmup, scheduledAtMs: due, readyAtMs: due, phase: 'steady', user: u }))) return void (over = true);
      due = Math.max(due + gapMs, o.now());
    }
  };
  // A send that throws (disk full, a workload bug) stops every user and fails the run, as in the open loop.
  const guarded = (u: number) =>
    user(u).catch((err: unknown) => {
      failure ??= err;
      over = true;
    });
  await Promise.all(Array.from({ length: users }, (_, u) => guarded(u)));
  if (failure !== undefined) throw failure;
}

export const userCentricExecutor: Executor = {
  kind: 'user-centric',
  openLoop: true,
  run: userCentric,
  describe: (p) => ({ kind: 'user-centric', users: p.users ?? 1, user_rate: p.userRate ?? null, rate: p.users !== undefined && p.userRate !== undefined ? p.users * p.userRate : null }),
};
