// LoadControl: changes are checked, each starts a stage, and the closed and open loops follow them.
import { describe, it, expect } from 'vitest';
import { LoadControl } from './load-control.js';
import { constantVus } from './executors/constant-vus.js';
import { constantArrivalRate } from './executors/constant-arrival-rate.js';
import type { ScheduleOptions, Slot } from './executors/types.js';
import { createRng } from '../util/rng.js';

const base = (o: Partial<ScheduleOptions>): ScheduleOptions => ({ arrival: 'constant', burstiness: 1, warmup: 0, rng: createRng(1), now: () => performance.now(), ...o });

describe('LoadControl', () => {
  it('accepts only its own knob, within bounds, and numbers the stages', () => {
    let t = 0;
    const c = new LoadControl('concurrency', { concurrency: 4, rate: undefined }, () => t);
    expect(c.check({ concurrency: 0 })).toEqual(['concurrency: expected a whole number above 0 and at most 100000']);
    expect(c.check({ concurrency: 2.5 })).toHaveLength(1);
    expect(c.check({ concurrency: 100_001 })).toHaveLength(1);
    expect(c.check({ concurrency: Number.NaN })).toHaveLength(1);
    expect(c.check({ rate: 5, concurrency: 8 })).toEqual(['rate: cannot be changed live in this run (only concurrency)']);
    expect(c.check({})).toEqual(['concurrency: missing']);
    const seen: number[] = [];
    c.onChange((s) => seen.push(s.stage));
    t = 1500;
    expect(c.set({ concurrency: 8 })).toEqual({ stage: 1, startedAtMs: 1500, concurrency: 8, rate: undefined });
    expect(() => c.set({ concurrency: -1 })).toThrow(/concurrency/);
    expect(c.stages.map((s) => s.concurrency)).toEqual([4, 8]);
    expect(seen).toEqual([1]);
    c.close();
    expect(c.check({ concurrency: 2 })).toEqual(['the run is no longer sending']);
  });

  it('constant-vus follows a live concurrency: more VUs start at once, fewer once their requests end', async () => {
    const ctl = new LoadControl('concurrency', { concurrency: 2, rate: undefined }, () => 0);
    let inFlight = 0;
    const atSend: { slot: Slot; inFlight: number }[] = [];
    await constantVus.run(base({ concurrency: 2, requests: 120, control: ctl }), async (slot) => {
      inFlight++;
      atSend.push({ slot, inFlight });
      if (slot.index === 20) ctl.set({ concurrency: 6 });
      if (slot.index === 70) ctl.set({ concurrency: 1 });
      await new Promise((r) => setTimeout(r, 2));
      inFlight--;
      return true;
    });
    expect(atSend).toHaveLength(120);
    const byStage = (s: number) => atSend.filter((x) => x.slot.stage === s);
    expect(Math.max(...byStage(0).map((x) => x.inFlight))).toBe(2);
    expect(Math.max(...byStage(1).map((x) => x.inFlight))).toBe(6);
    // Requests already running when the target fell finish first; after them one VU is left.
    expect(Math.max(...atSend.slice(-20).map((x) => x.inFlight))).toBe(1);
    expect(atSend.map((x) => x.slot.index)).toEqual(Array.from({ length: 120 }, (_, i) => i));
  });

  it('constant-arrival-rate follows a live rate from the next arrival not yet scheduled', async () => {
    let t = 0;
    const now = () => t;
    const waits = { sleepUntil: async (at: number) => void (t = Math.max(t, at)), yield: async () => {} };
    const ctl = new LoadControl('rate', { concurrency: undefined, rate: 10 }, now);
    const sent: Slot[] = [];
    await constantArrivalRate.run(base({ rate: 10, requests: 30, now, waits, control: ctl }), async (slot) => {
      sent.push(slot);
      if (slot.index === 9) ctl.set({ rate: 100 });
      return true;
    });
    const gaps = sent.slice(1).map((s, i) => s.scheduledAtMs - sent[i].scheduledAtMs);
    // The change came while slot 9 was sent, before slot 10 was drawn: every later gap is at the new rate.
    expect(gaps.slice(0, 9).every((g) => Math.abs(g - 100) < 1e-9)).toBe(true);
    expect(gaps.slice(9).every((g) => Math.abs(g - 10) < 1e-9)).toBe(true);
    expect(sent.slice(0, 10).every((s) => s.stage === 0)).toBe(true);
    expect(sent.slice(10).every((s) => s.stage === 1)).toBe(true);
  });
});
