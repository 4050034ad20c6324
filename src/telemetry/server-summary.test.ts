// The server section from samples: the bracketing window, histogram deltas, gauge means, rates and the time scale.
import { describe, it, expect } from 'vitest';
import { bracket, serverSummary } from './server-summary.js';
import { buildSummary } from '../metrics/summary.js';
import type { ServerSample } from './normalize.js';

const sample = (t: number, running: number, queued: number, queueSum: number, tokens: number): ServerSample => ({
  t_ms: t,
  engine: 'vllm',
  gauges: { running, waiting: running > 2 ? 1 : 0 },
  counters: { generation_tokens: tokens },
  histograms: { queue: { sum: queueSum, count: queued, buckets: [[0.1, Math.min(queued, 2)], [1, queued], [Infinity, queued]] } },
  raw: {},
});

describe('serverSummary', () => {
  // Warm traffic before 1000 ms (2 queued requests), the window 1000..3000 ms, more after.
  const samples = [sample(0, 0, 0, 0, 0), sample(1000, 2, 2, 0.1, 100), sample(2000, 4, 6, 2.1, 500), sample(3000, 4, 10, 4.1, 900), sample(4000, 0, 12, 4.5, 1000)];

  it('brackets the window with the last sample at or before its start and the first at or after its end', () => {
    expect(bracket(samples, { startMs: 1200, endMs: 2500 }).map((s) => s.t_ms)).toEqual([1000, 2000, 3000]);
    expect(bracket(samples, { startMs: -5, endMs: 99_999 }).map((s) => s.t_ms)).toEqual([0, 1000, 2000, 3000, 4000]);
  });

  it('deltas inside the window only; times divided by the time scale; gauges averaged; token rate per wall second', () => {
    const s = serverSummary(samples, { startMs: 1000, endMs: 3000 }, buildSummary([], {}), 2)!;
    expect(s.samples).toBe(3);
    // 8 requests queued in the window for 4.0 s in all → 0.5 s each → 250 ms at time scale 2.
    expect(s.times.queue).toMatchObject({ count: 8, mean_ms: 250 });
    // Every one of the 8 lies in (0.1, 1] s: p50 interpolates to 0.55 s → 275 ms.
    expect(s.times.queue!.p50_ms).toBeCloseTo(275, 6);
    expect(s.running_mean).toBeCloseTo(10 / 3, 3);
    expect(s.waiting_max).toBe(1);
    // Little's law: 8 queued over the 2 s window = 4/s, × 0.25 s each = 1 waiting on average.
    expect(s.waiting_littles_law).toBeCloseTo(1, 6);
    expect(s.generation_tokens_per_s).toBe(400);
    expect(s.time_scale).toBe(2);
  });

  it('no samples: no section', () => {
    expect(serverSummary([], null, buildSummary([], {}))).toBeUndefined();
  });
});
