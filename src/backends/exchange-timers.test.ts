// ExchangeTimers: the planned cancel fires after its delay, counts from the measured send, and loses to an earlier end.
import { describe, expect, it } from 'vitest';
import { ExchangeTimers } from './exchange-timers.js';

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('ExchangeTimers --cancel-after', () => {
  it('aborts after the delay and says it was the client\'s cancel', async () => {
    const t0 = performance.now();
    let at = 0;
    const t = new ExchangeTimers(0, 0, undefined, () => (at = performance.now() - t0), 40);
    await wait(120);
    expect(t.aborted).toBe(true);
    expect([t.cancelledByClient, t.timedOut, t.stalled]).toEqual([true, false, false]);
    expect(at).toBeGreaterThanOrEqual(39); // a timer may fire a hair early, never a whole ms
  });

  it('counts from the measured send: sent() restarts the delay once', async () => {
    const t0 = performance.now();
    let at = 0;
    const t = new ExchangeTimers(0, 0, undefined, () => (at = performance.now() - t0), 60);
    await wait(40);
    t.sent();
    await wait(30);
    t.sent(); // a re-send keeps the first send's origin
    await wait(150);
    expect(t.cancelledByClient).toBe(true);
    expect(at).toBeGreaterThanOrEqual(99);
  });

  it('an earlier timeout wins, and a stopped request is never cancelled', async () => {
    const first = new ExchangeTimers(20, 0, undefined, () => {}, 80);
    await wait(140);
    expect([first.timedOut, first.cancelledByClient]).toEqual([true, false]);
    let fired = false;
    const done = new ExchangeTimers(0, 0, undefined, () => (fired = true), 20);
    done.stop();
    await wait(60);
    expect([fired, done.aborted]).toEqual([false, false]);
  });
});
