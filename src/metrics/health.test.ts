import { describe, it, expect } from 'vitest';
import { HEALTH_THRESHOLDS, judgeHealth, startHealthMonitor } from './health.js';

const now = () => performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const busy = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};

describe('startHealthMonitor', () => {
  it('flips client_bound when the event loop is blocked', async () => {
    const m = startHealthMonitor(now);
    for (let i = 0; i < 6; i++) {
      busy(50);
      await sleep(15);
    }
    const h = m.stop();
    expect(h.event_loop_delay_ms.max).toBeGreaterThan(30);
    expect(h.event_loop_delay_ms.p99).toBeGreaterThan(HEALTH_THRESHOLDS.eventLoopDelayP99Ms);
    expect(h.client_bound).toBe(true);
    expect(h.reasons.join(' ')).toMatch(/event loop was blocked/);
    expect(m.stop()).toBe(h);
  });

  // Before: only the p99 was judged, and one 150 ms block among many quiet timer ticks left the run unflagged.
  it('flags client_bound when the event loop stalls once for 150 ms', async () => {
    const m = startHealthMonitor(now);
    await sleep(200);
    busy(150);
    // Quiet ticks after the stall keep the p99 low: only the single stall can flag the run.
    await sleep(1500);
    const h = m.stop();
    expect(h.event_loop_delay_ms.max).toBeGreaterThan(HEALTH_THRESHOLDS.eventLoopStallMs);
    expect(h.client_bound).toBe(true);
    expect(h.reasons.join(' ')).toMatch(/event loop stalled for [\d.]+ ms at once \(> 100 ms\)/);
  });

  // A real measurement of this process: on an overloaded machine the OS itself can stall it past 100 ms once,
  // which the monitor rightly reports, so the idle period gets up to three tries (as client-health.test.ts does).
  it('stays healthy through an idle period', { retry: 2 }, async () => {
    const m = startHealthMonitor(now);
    for (let i = 0; i < 20; i++) {
      m.recordSendLag(0.05);
      await sleep(10);
    }
    const h = m.stop();
    expect(h.client_bound).toBe(false);
    expect(h.reasons).toEqual([]);
    expect(h.send_lag_ms.count).toBe(20);
    expect(h.send_lag_ms.p99).toBeCloseTo(0.05, 2);
    expect(h.cpu_percent.one_core).toBeLessThan(50);
    expect(h.dropped).toBe(0);
  });
});

describe('judgeHealth', () => {
  const ok = {
    event_loop_delay_ms: { p50: 0.1, p99: 1, max: 3 },
    cpu_percent: { one_core: 40, machine: 20 },
    send_lag_ms: { p50: 0.1, p99: 0.5, max: 2, count: 1000 },
    dropped: 0,
  };
  it('names every crossed threshold in plain words', () => {
    expect(judgeHealth(ok, 5000).client_bound).toBe(false);
    const bad = judgeHealth(
      { ...ok, cpu_percent: { one_core: 97, machine: 48.5 }, send_lag_ms: { ...ok.send_lag_ms, p99: 25 }, dropped: 50 },
      5000,
    );
    expect(bad.client_bound).toBe(true);
    expect(bad.reasons).toHaveLength(3);
    expect(bad.reasons[0]).toMatch(/went out late/);
    expect(bad.reasons[1]).toMatch(/97% of one core/);
    expect(bad.reasons[2]).toMatch(/50 of 1050/);
  });
  it('flags one event-loop stall over 100 ms even with a low p99', () => {
    const h = judgeHealth({ ...ok, event_loop_delay_ms: { p50: 0.1, p99: 1, max: 150 } }, 5000);
    expect(h.client_bound).toBe(true);
    expect(h.reasons).toEqual([expect.stringMatching(/stalled for 150 ms at once \(> 100 ms\)/)]);
    expect(judgeHealth({ ...ok, event_loop_delay_ms: { p50: 0.1, p99: 1, max: 90 } }, 5000).client_bound).toBe(false);
  });
  it('ignores CPU over a window too short to judge, and a handful of drops', () => {
    expect(judgeHealth({ ...ok, cpu_percent: { one_core: 99, machine: 49.5 } }, 200).client_bound).toBe(false);
    expect(judgeHealth({ ...ok, dropped: 5 }, 5000).client_bound).toBe(false);
  });
  it('judges CPU against the number of threads doing the work', () => {
    const busy = { ...ok, cpu_percent: { one_core: 150, machine: 75 } };
    expect(judgeHealth(busy, 5000, 2).client_bound).toBe(false);
    expect(judgeHealth(busy, 5000, 1).reasons[0]).toMatch(/150% of one core/);
  });
});
