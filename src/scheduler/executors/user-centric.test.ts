// user-centric executor: staggered starts, each user's sends one gap apart, turns in order, the stop conditions.
import { describe, it, expect } from 'vitest';
import { userCentricExecutor } from './user-centric.js';
import { createRng } from '../../util/rng.js';
import type { ScheduleOptions, Slot, Waits } from './types.js';

/** A virtual clock: sleepUntil jumps time forward, so the schedule is exact and the test takes no wall time. */
function virtualWaits(): { now: () => number; waits: Waits; advance: (ms: number) => Promise<void> } {
  let t = 0;
  const timers: { at: number; resolve: () => void }[] = [];
  const waits: Waits = {
    sleepUntil: (at) => (at <= t ? Promise.resolve() : new Promise<void>((resolve) => timers.push({ at, resolve }))),
    yield: () => Promise.resolve(),
  };
  const advance = async (ms: number) => {
    const end = t + ms;
    for (;;) {
      await new Promise((r) => setImmediate(r));
      timers.sort((a, b) => a.at - b.at);
      const first = timers[0];
      if (!first || first.at > end) break;
      timers.shift();
      t = first.at;
      first.resolve();
    }
    t = end;
  };
  return { now: () => t, waits, advance };
}

const base = (o: Partial<ScheduleOptions>): ScheduleOptions => ({ arrival: 'constant', burstiness: 1, warmup: 0, rng: createRng(1), now: () => 0, ...o });

describe('user-centric executor', () => {
  it('staggers N users over one gap and spaces each user 1/R apart: 4 users at 2/s for 3 s send 24', async () => {
    const v = virtualWaits();
    const slots: Slot[] = [];
    const run = userCentricExecutor.run(base({ users: 4, userRate: 2, durationMs: 3000, now: v.now, waits: v.waits }), async (s) => (slots.push(s), true));
    await v.advance(4000);
    await run;
    expect(slots).toHaveLength(24);
    // Starts at 0, 125, 250, 375 ms (gap 500 ms / 4 users).
    expect([0, 1, 2, 3].map((u) => slots.find((s) => s.user === u)!.scheduledAtMs)).toEqual([0, 125, 250, 375]);
    for (let u = 0; u < 4; u++) {
      const times = slots.filter((s) => s.user === u).map((s) => s.scheduledAtMs);
      expect(times).toHaveLength(6);
      for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBe(500);
    }
    expect(slots.map((s) => s.index)).toEqual([...Array(24).keys()]);
  });

  it('keeps a user\'s turns in order: a request longer than the gap delays that user\'s next one to its end', async () => {
    const v = virtualWaits();
    const slots: Slot[] = [];
    const run = userCentricExecutor.run(base({ users: 1, userRate: 10, requests: 3, now: v.now, waits: v.waits }), async (s) => {
      slots.push(s);
      await v.waits.sleepUntil(v.now() + 250); // each request takes 250 ms, the gap is 100 ms
      return true;
    });
    await v.advance(2000);
    await run;
    expect(slots.map((s) => s.scheduledAtMs)).toEqual([0, 250, 500]);
  });

  it('stops at --requests after the warmup and when the workload runs out', async () => {
    const v = virtualWaits();
    const slots: Slot[] = [];
    const run = userCentricExecutor.run(base({ users: 3, userRate: 100, warmup: 2, requests: 5, now: v.now, waits: v.waits }), async (s) => (slots.push(s), s.index < 4));
    await v.advance(1000);
    await run;
    // The workload said no more at index 4 (false): nothing after it is sent.
    expect(slots.map((s) => [s.index, s.warmup])).toEqual([[0, true], [1, true], [2, false], [3, false], [4, false]]);
  });
});
