// LoadControl: changes are checked, each starts a stage, and the closed and open loops follow them.
import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { LoadControl, MAX_LIVE_STAGES } from './load-control.js';
import { FD_RESERVE, maxInFlightByFds, openFileLimit } from './fd-limit.js';
import { constantVus, VU_START_BATCH } from './executors/constant-vus.js';
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

describe('live changes within the process limits (issue 25, items 24 and 27)', () => {
  it('refuses a concurrency above the open-file limit, naming it, and more than MAX_LIVE_STAGES stages', () => {
    const c = new LoadControl('concurrency', { concurrency: 4, rate: undefined }, () => 0, 1000);
    expect(c.check({ concurrency: 1000 })).toEqual([]);
    expect(c.check({ concurrency: 1001 })[0]).toMatch(/^concurrency: 1001 requests in flight need 1001 sockets: at most 1000 within this process's open-file limit \(ulimit -n/);
    for (let i = 1; i < MAX_LIVE_STAGES; i++) c.set({ concurrency: 4 + (i % 3) });
    expect(c.stages).toHaveLength(MAX_LIVE_STAGES);
    expect(c.check({ concurrency: 8 })).toEqual([`at most ${MAX_LIVE_STAGES} load stages per run: this run has had ${MAX_LIVE_STAGES}; start a new run for more changes`]);
  });

  it('reads the open-file limit as a child shell sees it (ulimit -n), and keeps a reserve below it', () => {
    const shell = spawnSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).stdout.trim();
    expect(String(openFileLimit() ?? 'unlimited')).toBe(shell);
    expect(maxInFlightByFds(1024)).toBe(1024 - FD_RESERVE);
    expect(maxInFlightByFds(null)).toBeUndefined();
  });

  it('constant-vus ramps a big rise: VU_START_BATCH VUs start in the turn of the change, the rest in later turns', async () => {
    const ctl = new LoadControl('concurrency', { concurrency: 2, rate: undefined }, () => 0, 100_000);
    const ac = new AbortController();
    let sent = 0;
    let atChange = -1;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const done = constantVus.run(base({ concurrency: 2, durationMs: 60_000, control: ctl, signal: ac.signal }), async () => {
      sent++;
      if (sent === 2) {
        ctl.set({ concurrency: 2000 });
        atChange = sent;
      }
      await gate;
      return !ac.signal.aborted;
    });
    // The change's own turn started one batch (the POST that made it is answered right after); then a batch per turn.
    expect(atChange).toBe(2 + VU_START_BATCH);
    expect(sent).toBeLessThan(2000);
    for (let i = 0; i < 100 && sent < 2000; i++) await new Promise((r) => setImmediate(r));
    expect(sent).toBe(2000);
    ac.abort();
    release();
    await done;
  });
});
