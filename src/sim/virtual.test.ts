// Virtual-clock driver: speed, closed/open loop, lengths.
import { describe, expect, it } from 'vitest';
import { simulateRun } from './virtual.js';
import { resolveEngine } from './engine/config.js';
import { stepCost } from './engine/cost.js';
import { outsideEngineMs } from './engine/overheads.js';

describe('simulateRun', () => {
  // Speed is a bench target (bench/), not a test assertion: a shared, loaded machine can be many times slower.
  it('runs 1,000 requests of 512 in / 128 out at concurrency 64', () => {
    const run = simulateRun({ requests: [{ promptTokens: 512, maxTokens: 128, ignoreEos: true }], load: { concurrency: 64, requests: 1000 } });
    expect(run.records).toHaveLength(1000);
    expect(run.records.every((r) => r.outputTokens === 128 && r.tokenTimesMs.length === 128)).toBe(true);
    expect(run.maxInFlight).toBe(64);
  });

  it('closed loop never exceeds the concurrency and refills instantly', () => {
    const run = simulateRun({ requests: [{ promptTokens: 200, maxTokens: 300 }], load: { concurrency: 8, requests: 100, seed: 3 } });
    const events = run.records.flatMap((r) => [[r.sentMs, 1] as const, [r.endMs, -1] as const]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    let inFlight = 0;
    for (const [, d] of events) {
      inFlight += d;
      expect(inFlight).toBeLessThanOrEqual(8);
    }
    const ends = new Set(run.records.map((r) => r.endMs));
    expect(run.records.slice(8).every((r) => ends.has(r.sentMs))).toBe(true);
  });

  it('without ignore_eos, lengths vary but respect max_tokens and min_tokens', () => {
    const run = simulateRun({ requests: [{ promptTokens: 50, maxTokens: 300, minTokens: 20 }], load: { concurrency: 16, requests: 200, seed: 9 } });
    const lens = run.records.map((r) => r.outputTokens);
    expect(Math.max(...lens)).toBeLessThanOrEqual(300);
    expect(Math.min(...lens)).toBeGreaterThanOrEqual(20);
    expect(new Set(lens).size).toBeGreaterThan(20);
    expect(run.records.some((r) => r.finishReason === 'stop')).toBe(true);
  });

  it('open loop sends on schedule; a concurrency cap delays sends past their schedule', () => {
    const open = simulateRun({ requests: [{ promptTokens: 100, maxTokens: 50, ignoreEos: true }], load: { rate: 20, arrival: 'constant', requests: 40 } });
    expect(open.records.every((r) => r.sentMs === r.scheduledMs)).toBe(true);
    expect(open.records[10].scheduledMs).toBeCloseTo(500, 6);
    const capped = simulateRun({ requests: [{ promptTokens: 100, maxTokens: 400, ignoreEos: true }], load: { rate: 50, arrival: 'poisson', concurrency: 4, requests: 40, seed: 2 } });
    expect(capped.maxInFlight).toBeLessThanOrEqual(4);
    expect(capped.records.some((r) => r.sentMs > r.scheduledMs)).toBe(true);
  });

  it('time outside the engine: a fully cached prompt still pays API server, tokenization and detokenization time', () => {
    const spec = resolveEngine({});
    const ids = Array.from({ length: 2000 }, (_, i) => (i * 7919) % 50_000);
    const run = simulateRun({ engine: spec, requests: [{ promptTokenIds: ids, maxTokens: 4, ignoreEos: true }], load: { concurrency: 1, requests: 2 } });
    const second = run.records[1];
    expect(second.cachedTokens).toBe(1984);
    const outside = outsideEngineMs(spec, 2000);
    expect(outside).toBeGreaterThan(5);
    // outside + one step computing the last 16 tokens against 1,984 cached ones.
    const step = stepCost(spec, { requests: 1, newTokens: 16, contextTokens: 1984, attentionPairs: 16 * 1984 + (16 * 17) / 2 }).totalMs;
    expect(second.firstTokenMs! - second.sentMs).toBeCloseTo(outside + step, 6);
    expect(run.records[0].firstTokenMs! - run.records[0].sentMs).toBeGreaterThan(outside + step);
  });
});

describe('simulateRun: a measured run re-simulated (calibrate)', () => {
  it('closed loop: the first wave goes out at startMs, each refill after the client gap; warm requests leave their prefix cached', () => {
    const gaps = [3, 0, 7, 1, 2, 5];
    const run = simulateRun({
      requests: [{ promptTokens: 300, maxTokens: 20, ignoreEos: true, prefix: { key: 'p', tokens: 256 } }],
      warm: [{ promptTokens: 272, maxTokens: 1, prefix: { key: 'p', tokens: 256 } }],
      load: { concurrency: 3, requests: 9, startMs: [0, 0.5, 4], refillGapMs: (k) => gaps[k] },
    });
    expect(run.records.slice(0, 3).map((r) => r.sentMs)).toEqual([0, 0.5, 4]);
    // The k-th freed slot (in end order) sends after gaps[k].
    const ends = run.records.map((r) => r.endMs).sort((a, b) => a - b);
    const sends = run.records.slice(3).map((r) => r.sentMs);
    expect(sends).toEqual(gaps.map((g, k) => ends[k] + g).sort((a, b) => a - b));
    expect(run.records.every((r) => r.cachedTokens === 256)).toBe(true);
  });

  it('open loop: explicit arrival times replace the drawn schedule', () => {
    const run = simulateRun({ requests: [{ promptTokens: 64, maxTokens: 4, ignoreEos: true }], load: { arrivalsMs: [0, 5, 100, 101], requests: 4 } });
    expect(run.records.map((r) => r.sentMs)).toEqual([0, 5, 100, 101]);
  });
});
