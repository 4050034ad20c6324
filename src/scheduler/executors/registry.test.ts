// Executor registry: every kind resolves and runs, the choice from the load options, run.json descriptions; unknown kinds list the valid ones.
import { describe, it, expect } from 'vitest';
import { chooseExecutor, EXECUTOR_KINDS, getExecutor } from './registry.js';
import { UsageError } from '../../errors.js';
import { createRng } from '../../util/rng.js';
import type { ScheduleOptions, Slot } from './types.js';

describe('executor registry', () => {
  it('resolves each kind (k6 names) to an executor of that kind', () => {
    expect(EXECUTOR_KINDS).toEqual(['constant-vus', 'constant-arrival-rate', 'replay', 'ramping-vus', 'ramping-arrival-rate', 'user-centric']);
    for (const k of EXECUTOR_KINDS) expect(getExecutor(k).kind).toBe(k);
    expect(EXECUTOR_KINDS.map((k) => getExecutor(k).openLoop)).toEqual([false, true, true, false, true, true]);
  });

  it('answers an unknown kind with the valid ones', () => {
    expect(() => getExecutor('shared-iterations')).toThrow(
      new UsageError(['executor: unknown kind "shared-iterations" (valid: constant-vus, constant-arrival-rate, replay, ramping-vus, ramping-arrival-rate, user-centric)']),
    );
    expect(() => getExecutor('toString')).toThrow(/valid: constant-vus/);
  });

  it('is chosen in one place: send times → replay, ramps → ramping-*, --rate → constant-arrival-rate, else constant-vus', () => {
    const stages = [{ durationMs: 1000, target: 4 }];
    expect(chooseExecutor({ ramp: { of: 'vus', stages } }).kind).toBe('ramping-vus');
    expect(chooseExecutor({ rate: 4, ramp: { of: 'rate', stages } }).kind).toBe('ramping-arrival-rate');
    expect(chooseExecutor({ arrivalTimesMs: [0], ramp: { of: 'rate', stages } }).kind).toBe('replay');
    expect(chooseExecutor({}).kind).toBe('constant-vus');
    expect(chooseExecutor({ rate: 5 }).kind).toBe('constant-arrival-rate');
    expect(chooseExecutor({ arrivalTimesMs: [] }).kind).toBe('replay');
    expect(chooseExecutor({ arrivalTimesMs: [0, 10], rate: 5 }).kind).toBe('replay');
    expect(chooseExecutor({ users: 4 }).kind).toBe('user-centric');
  });

  it('describes itself for run.json with the in-flight cap as max_vus', () => {
    const p = { arrival: 'poisson' as const, burstiness: 1 };
    expect(getExecutor('constant-vus').describe({ ...p, concurrency: 8 })).toEqual({ kind: 'constant-vus', vus: 8 });
    expect(getExecutor('constant-arrival-rate').describe({ ...p, rate: 5 })).toEqual({ kind: 'constant-arrival-rate', rate: 5, arrival: 'poisson', max_vus: null });
    expect(getExecutor('constant-arrival-rate').describe({ rate: 5, arrival: 'gamma', burstiness: 0.5, concurrency: 3 })).toEqual({
      kind: 'constant-arrival-rate', rate: 5, arrival: 'gamma', burstiness: 0.5, max_vus: 3,
    });
    expect(getExecutor('replay').describe({ ...p, concurrency: 2 })).toEqual({ kind: 'replay', max_vus: 2 });
    const stages = [{ durationMs: 30_000, target: 100 }, { durationMs: 120_000, target: 100 }, { durationMs: 500, target: 0 }];
    const k6 = [{ duration_s: 30, target: 100 }, { duration_s: 120, target: 100 }, { duration_s: 0.5, target: 0 }];
    expect(getExecutor('ramping-vus').describe({ ...p, concurrency: 100, ramp: { of: 'vus', stages } })).toEqual({ kind: 'ramping-vus', start_vus: 0, stages: k6 });
    expect(getExecutor('ramping-arrival-rate').describe({ ...p, concurrency: 3, ramp: { of: 'rate', stages } })).toEqual({
      kind: 'ramping-arrival-rate', start_rate: 0, time_unit: '1s', stages: k6, arrival: 'poisson', max_vus: 3,
    });
    expect(getExecutor('user-centric').describe({ ...p, users: 4, userRate: 2 })).toEqual({ kind: 'user-centric', users: 4, user_rate: 2, rate: 8 });
  });

  it('each executor sends warmup and measured requests and stops at --requests', async () => {
    const now = () => performance.now();
    for (const k of EXECUTOR_KINDS) {
      // Ramps that start at their level at once (a 0 s stage), so every kind sends the same requests.
      const ramp = k === 'ramping-vus' ? { of: 'vus' as const, stages: [{ durationMs: 0, target: 2 }] } : { of: 'rate' as const, stages: [{ durationMs: 0, target: 1000 }] };
      const o: ScheduleOptions = { concurrency: 2, rate: 1000, arrival: 'constant', burstiness: 1, warmup: 1, requests: 3, rng: createRng(1), now, arrivalTimesMs: [0, 1, 2, 3, 4, 5], ramp, users: 2, userRate: 1000 };
      const slots: Slot[] = [];
      await getExecutor(k).run(o, async (s) => (slots.push(s), true));
      expect(slots.map((s) => [s.index, s.warmup, s.phase]), k).toEqual([[0, true, 'steady'], [1, false, 'steady'], [2, false, 'steady'], [3, false, 'steady']]);
    }
  });
});
