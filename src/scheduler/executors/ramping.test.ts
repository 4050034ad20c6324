// ramping-vus and ramping-arrival-rate on a virtual clock: who sends when, in which phase, and where the load stops.
import { describe, it, expect } from 'vitest';
import { getExecutor } from './registry.js';
import { vuIntervals } from './ramping-vus.js';
import { rampingArrivals } from '../ramp-arrivals.js';
import { parseStages, phaseAt, stagesMs } from '../stages.js';
import { createRng } from '../../util/rng.js';
import type { ScheduleOptions, Slot, Waits } from './types.js';

/** A virtual clock: time jumps to the earliest sleeper once everything waiting on the present has run. */
function virtualClock() {
  let t = 0;
  const sleepers: { at: number; wake: () => void }[] = [];
  let pumping = false;
  const pump = async () => {
    if (pumping) return;
    pumping = true;
    for (;;) {
      await new Promise((r) => setImmediate(r));
      if (!sleepers.length) break;
      sleepers.sort((a, b) => a.at - b.at);
      const s = sleepers.shift()!;
      t = Math.max(t, s.at);
      s.wake();
    }
    pumping = false;
  };
  const waits: Waits = {
    sleepUntil: (at, signal) =>
      new Promise<void>((wake) => {
        if (signal?.aborted) return wake();
        const s = { at, wake };
        sleepers.push(s);
        signal?.addEventListener('abort', () => (sleepers.includes(s) && sleepers.splice(sleepers.indexOf(s), 1), wake()), { once: true });
        void pump();
      }),
    yield: () => new Promise((r) => setImmediate(r)),
  };
  return { now: () => t, waits };
}

const LIMITS = { vus: 100_000, ratePerS: 1_000_000 };

describe('ramping-vus', () => {
  it('starts the VUs evenly, tags each request with its stage phase, and never runs more VUs than the ramp allows', async () => {
    const plan = parseStages('1s:4,1s:4,1s:0', LIMITS);
    const clock = virtualClock();
    const o: ScheduleOptions = { arrival: 'constant', burstiness: 1, warmup: 0, rng: createRng(1), now: clock.now, waits: clock.waits, ramp: plan, durationMs: stagesMs(plan.stages) };
    const slots: Slot[] = [];
    let inFlight = 0;
    let overLimit = 0;
    const activeAt = (t: number) => [0, 1, 2, 3].filter((k) => vuIntervals(plan.stages, k).some(([a, b]) => t >= a && t < b)).length;
    await getExecutor('ramping-vus').run(o, async (s) => {
      slots.push(s);
      inFlight++;
      if (inFlight > activeAt(s.scheduledAtMs)) overLimit++;
      await clock.waits.sleepUntil(clock.now() + 300);
      inFlight--;
      return true;
    });
    // VU k's first request at k/4 × 1 s, then one every 300 ms (each takes that long): before 250 ms only VU 0 sends.
    const times = slots.map((s) => s.scheduledAtMs);
    expect(times).toEqual(expect.arrayContaining([0, 250, 500, 750]));
    expect(times.filter((t) => t < 500)).toEqual([0, 250, 300]);
    for (const s of slots) expect(s.phase).toBe(phaseAt(plan.stages, s.scheduledAtMs));
    expect(new Set(slots.map((s) => s.phase))).toEqual(new Set(['ramp-up', 'steady', 'ramp-down']));
    expect(overLimit).toBe(0);
    expect(Math.max(...slots.map((s) => s.scheduledAtMs))).toBeLessThan(3000);
    expect(slots.map((s) => s.index)).toEqual(slots.map((_, i) => i));
  });

  it('ends when --requests is reached, without waiting for the VUs still due later in the ramp', async () => {
    const clock = virtualClock();
    const plan = parseStages('10m:100', LIMITS);
    const o: ScheduleOptions = { arrival: 'constant', burstiness: 1, warmup: 0, requests: 3, rng: createRng(1), now: clock.now, waits: clock.waits, ramp: plan };
    let sent = 0;
    // 100 VUs wait on one stop signal: expected, so no MaxListenersExceededWarning on the user's terminal.
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    await getExecutor('ramping-vus').run(o, async () => (sent++, await clock.waits.sleepUntil(clock.now() + 1), true));
    await new Promise((r) => setImmediate(r));
    process.off('warning', onWarning);
    expect(warnings).not.toContain('MaxListenersExceededWarning');
    expect(sent).toBe(3);
    // VU 0 sends all three in its first 3 ms; VU 1, due at 6 s, and the 98 after it are never waited for.
    expect(clock.now()).toBeLessThan(6_000);
  });

  it('stops at --requests', async () => {
    const clock = virtualClock();
    const plan = parseStages('1s:4', LIMITS);
    const slots: Slot[] = [];
    const o: ScheduleOptions = { arrival: 'constant', burstiness: 1, warmup: 2, requests: 5, rng: createRng(1), now: clock.now, waits: clock.waits, ramp: plan };
    await getExecutor('ramping-vus').run(o, async (s) => (slots.push(s), await clock.waits.sleepUntil(clock.now() + 100), true));
    expect(slots.map((s) => [s.index, s.warmup])).toEqual([[0, true], [1, true], [2, false], [3, false], [4, false], [5, false], [6, false]]);
  });
});

describe('ramping-arrival-rate', () => {
  it('sends at the ramping schedule, each request in its stage phase', async () => {
    const plan = parseStages('1s:20/s,1s:20/s,1s:0', LIMITS);
    const clock = virtualClock();
    const o: ScheduleOptions = { arrival: 'poisson', burstiness: 1, warmup: 0, rng: createRng(3), now: clock.now, waits: clock.waits, ramp: plan, durationMs: 3000 };
    const slots: Slot[] = [];
    await getExecutor('ramping-arrival-rate').run(o, async (s) => (slots.push(s), true));
    const expected = [...rampingArrivals('poisson', plan.stages, 1, createRng(3), o)];
    expect(slots.map((s) => s.scheduledAtMs)).toEqual(expected);
    expect(slots.map((s) => s.phase)).toEqual(expected.map((t) => phaseAt(plan.stages, t)));
    expect(slots.length).toBeGreaterThan(0);
  });
});
