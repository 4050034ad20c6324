import { describe, it, expect } from 'vitest';
import { runSchedule, sleepUntil } from './scheduler.js';
import { openLoopArrivals, openLoopSchedule } from './arrivals.js';
import { createRng } from '../util/rng.js';

const now = () => performance.now();

describe('open loop', () => {
  // Before: behind schedule, the send loop ran as one chain of microtasks, so no timer, socket or signal was
  // served until every request had been issued.
  it('keeps serving timers and the stop signal when it cannot keep up with the rate', async () => {
    const stop = new AbortController();
    let sent = 0;
    let timerFiredAfter: number | undefined;
    setTimeout(() => {
      timerFiredAfter = sent;
      stop.abort();
    }, 20);
    await runSchedule(
      { rate: 1_000_000, arrival: 'constant', burstiness: 1, warmup: 0, requests: 200_000, rng: createRng(1), now, signal: stop.signal },
      async () => {
        sent++;
        // A little synchronous work per send, as building and writing a request takes.
        const end = performance.now() + 0.01;
        while (performance.now() < end);
        return true;
      },
    );
    expect(timerFiredAfter).toBeDefined();
    expect(sent).toBeLessThan(200_000);
    expect(sent).toBe(timerFiredAfter);
  }, 60_000);

  it('streams the same send times as the whole schedule, ending at --requests or --duration', () => {
    for (const o of [{ warmup: 3, requests: 50 }, { warmup: 2, durationMs: 500 }, { warmup: 0, requests: 1000, durationMs: 300 }]) {
      const all = openLoopSchedule('poisson', 100, 1, createRng(5), o);
      const streamed = [...openLoopArrivals('poisson', 100, 1, createRng(5), o)];
      expect(streamed).toEqual(all);
      if (o.durationMs !== undefined) {
        const measured = all.slice(o.warmup);
        expect(measured[measured.length - 1] - measured[0]).toBeLessThan(o.durationMs);
      }
    }
    // 10^12 arrivals: only the first few are ever generated.
    const it = openLoopArrivals('constant', 1e6, 1, createRng(1), { warmup: 0, requests: 1e12 });
    expect([it.next().value, it.next().value, it.next().value]).toEqual([0, 0.001, 0.002]);
  });
});

describe('sleepUntil', () => {
  it('ends at once when the stop signal fires, however far away the next arrival is', async () => {
    const ac = new AbortController();
    const t0 = performance.now();
    const now = () => performance.now() - t0;
    // A day away: without the abort listener this would only look at the signal when the (clamped) timer fires.
    const wait = sleepUntil(86_400_000, now, ac.signal);
    setTimeout(() => ac.abort(), 20);
    await wait;
    expect(now()).toBeLessThan(5_000);
  });
});
