// The live saturation watch: slices closed on the run clock, a growing in-flight count stops the run once, a flat one never.
import { describe, it, expect } from 'vitest';
import { SaturationWatch } from './saturation-watch.js';
import type { DriverClock } from '../drivers/driver.js';
import type { RequestRecord } from '../metrics/record.js';

/** A clock whose sleeps end at once, moving time to their deadline (a stand-in for the virtual driver's clock). */
function fakeClock(): DriverClock {
  let t = 0;
  return {
    now: () => t,
    sleepUntil: (at: number, signal?: AbortSignal) =>
      new Promise<void>((resolve) =>
        setImmediate(() => {
          if (!signal?.aborted) t = Math.max(t, at);
          resolve();
        }),
      ),
    yield: () => new Promise<void>((resolve) => setImmediate(resolve)),
  };
}

const until = async (cond: () => boolean, max = 2000) => {
  for (let i = 0; i < max && !cond(); i++) await new Promise((r) => setImmediate(r));
};

describe('SaturationWatch', () => {
  it('stops once when in-flight grows slice after slice, with the verdict that stopped it', async () => {
    const clock = fakeClock();
    const agg = { get inFlight() { return Math.floor(clock.now() / 100); } }; // +10 requests per 1 s slice
    const verdicts: unknown[] = [];
    const w = new SaturationWatch(1, agg, clock, (v) => verdicts.push(v));
    w.start(true);
    await until(() => clock.now() >= 12_000);
    w.stop();
    expect(verdicts).toHaveLength(1);
    expect(w.verdict).toMatchObject({ saturated: true, stopped: true, growing: ['in_flight'], slice_s: 1, slices: 8 });
  });

  it('never fires on a steady load, and averages the TTFT of the requests completed in each slice', async () => {
    const clock = fakeClock();
    const agg = { inFlight: 12 };
    let fired = false;
    const w = new SaturationWatch(1, agg, clock, () => (fired = true));
    w.start(true);
    for (let k = 0; k < 20; k++) {
      w.record({ status: 'ok', ttft_ms: 100 + (k % 3) } as RequestRecord);
      w.record({ status: 'timeout', ttft_ms: null } as RequestRecord);
      await until(() => clock.now() >= (k + 1) * 1000);
    }
    w.stop();
    expect(fired).toBe(false);
    expect(w.verdict).toBeUndefined();
  });
});
