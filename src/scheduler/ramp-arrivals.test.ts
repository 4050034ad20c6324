// The ramping arrival process: send times follow the stages' linear rate, deterministically for a seed, generated lazily.
import { describe, it, expect } from 'vitest';
import { rampingArrivals } from './ramp-arrivals.js';
import { openLoopSchedule } from './arrivals.js';
import { parseStages, stagesMs } from './stages.js';
import { createRng } from '../util/rng.js';

const LIMITS = { vus: 100_000, ratePerS: 1_000_000 };
const stagesOf = (spec: string) => parseStages(spec, LIMITS).stages;
/** The send times of a spec, ending with the stages (as --duration does by default) unless `o` says otherwise. */
const all = (spec: string, kind: 'constant' | 'poisson' | 'gamma' = 'constant', o: { warmup?: number; requests?: number; durationMs?: number } = {}, seed = 1) =>
  [...rampingArrivals(kind, stagesOf(spec), 0.5, createRng(seed), { warmup: 0, durationMs: stagesMs(stagesOf(spec)), ...o })];
const countIn = (times: number[], from: number, to: number) => times.filter((t) => t >= from && t < to).length;

describe('ramping arrival rate', () => {
  it('constant spacing inverts the cumulative rate: a ramp 0 → r over R sends arrival n at √(2nR/r)', () => {
    // r = 100/s = 0.1/ms over R = 10 s: Λ(t) = r t² / 2R, 500 arrivals in all.
    const times = all('10s:100/s');
    expect(times).toHaveLength(500);
    times.forEach((t, n) => expect(t).toBeCloseTo(Math.sqrt((2 * n * 10_000) / 0.1), 6));
  });

  it('a flat stage sends at exactly the times of constant-arrival-rate, shifted by what came before', () => {
    const flat = all('0s:50/s,2s:50/s');
    expect(flat).toEqual(openLoopSchedule('constant', 50, 1, createRng(1), { warmup: 0, durationMs: 2000 }));
    // After a 0 → 50/s ramp of 2 s (50 arrivals), the flat stage continues one every 20 ms.
    const ramped = all('2s:50/s,2s:50/s');
    expect(ramped.slice(50).map((t) => t - 2000)).toEqual(flat.map((t) => expect.closeTo(t, 6)));
  });

  it('falls linearly in a ramp-down, sends nothing while the rate is 0, and ends when it stays 0', () => {
    const times = all('1s:100/s,2s:100/s,1s:0,1s:0,1s:100/s');
    // Expected counts: ramp-up 50, steady 200, ramp-down 50, pause 0, ramp-up 50.
    expect(countIn(times, 0, 1000)).toBe(50);
    expect(countIn(times, 1000, 3000)).toBe(200);
    expect(countIn(times, 3000, 4000)).toBe(50);
    expect(countIn(times, 4000, 5000)).toBe(0);
    // Then the rate holds at 100/s: only --duration or --requests ends it.
    expect(countIn(all('1s:100/s,2s:100/s,1s:0,1s:0,1s:100/s', 'constant', { durationMs: 7000 }), 5000, 7000)).toBe(50 + 100);
    // A last target of 0 ends the schedule by itself.
    expect(all('1s:10/s,1s:0', 'constant', { durationMs: undefined })).toHaveLength(10);
    // Within a ramp-down the gaps widen: the expected count in its halves is 37.5 and 12.5.
    expect(countIn(times, 3000, 3500)).toBeGreaterThanOrEqual(37);
    expect(countIn(times, 3000, 3500)).toBeLessThanOrEqual(38);
  });

  it('poisson and gamma follow the ramp on average and are the same for the same seed', () => {
    for (const kind of ['poisson', 'gamma'] as const) {
      // 0 → 1000/s over 10 s: Λ = 5000 in all, 1250 in the first half; Poisson sd ≈ √n (gamma k=0.5 about √2 times more).
      const times = all('10s:1000/s', kind, {}, 7);
      expect(Math.abs(times.length - 5000)).toBeLessThan(5 * Math.sqrt(2 * 5000));
      expect(Math.abs(countIn(times, 0, 5000) - 1250)).toBeLessThan(5 * Math.sqrt(2 * 1250));
      expect(all('10s:1000/s', kind, {}, 7)).toEqual(times);
      expect(all('10s:1000/s', kind, {}, 8)).not.toEqual(times);
      for (let i = 1; i < times.length; i++) expect(times[i]).toBeGreaterThanOrEqual(times[i - 1]);
    }
  });

  it('stops at warmup + requests or at --duration from the start of the stages, and generates lazily', () => {
    expect(all('10s:100/s', 'constant', { warmup: 5, requests: 10 })).toHaveLength(15);
    const cut = all('10s:100/s', 'constant', { durationMs: 5000 });
    expect(cut).toHaveLength(125);
    expect(Math.max(...cut)).toBeLessThan(5000);
    // 10^12 arrivals at 10^6/s after a day-long ramp: only the ones asked for are ever made.
    const it = rampingArrivals('constant', stagesOf('1s:1000000/s,24h:1000000/s'), 1, createRng(1), { warmup: 0, requests: 1e12 });
    expect([it.next().value, it.next().value]).toEqual([0, expect.closeTo(Math.sqrt((2 * 1000) / 1000), 9)]);
  });
});
