// Ramps and stages in whole runs against a loopback server: streams start over the ramp, records carry their phase, the summary covers the steady phase.
import { describe, it, expect, afterEach } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../src/run.js';
import { phaseAt, rampPlan } from '../src/scheduler/scheduler.js';
import { startScriptServer, chatChunk, usageChunk, DONE, type ScriptServer } from './fixtures/script-server.js';
import { tmpDir } from './helpers.js';
import { renderSummary } from '../src/report/terminal.js';
import { replaySummary } from '../src/report/results-dir.js';

let server: ScriptServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A reply that streams its one token `ms` after the request arrived. */
const replyAfter = (ms: number) => () => ({ steps: [{ at: ms, write: chatChunk({ content: 'x' }) }, { at: ms, write: usageChunk(16, 1) }, { at: ms, write: DONE }] });

// Timers on a loaded 2-core machine fire up to ~1 ms early or tens of ms late.
const EARLY = 5;
const LATE = 300;

describe('ramps in a run', () => {
  it('--ramp-up: the --concurrency streams start evenly over the period, and only the steady requests are summarized', async () => {
    // Each answer takes 1.1 s, so each of the 8 streams sends once during the 1 s ramp-up and once after it.
    server = await startScriptServer(replyAfter(1100));
    const out = tmpDir();
    const res = await run({ validate: false, baseUrl: server.baseUrl, concurrency: 8, rampUp: '1s', requests: 16, inputTokens: 16, outputTokens: 1, out, quiet: true });
    const recs = res.records;
    expect(recs).toHaveLength(16);
    const first = recs.slice(0, 8);
    const start = first[0].scheduled_at_ms;
    // Stream k's first request is due k/8 × 1 s after the start, and goes out then (the first one a little late: a cold start).
    first.forEach((r, k) => {
      expect(r.scheduled_at_ms - start, `stream ${k}`).toBeCloseTo(k * 125, 6);
      expect(r.sent_at_ms - start, `stream ${k}`).toBeGreaterThanOrEqual(k * 125 - EARLY);
      expect(r.sent_at_ms - start, `stream ${k}`).toBeLessThanOrEqual(k * 125 + LATE);
    });
    expect(recs.map((r) => r.phase)).toEqual([...Array(8).fill('ramp-up'), ...Array(8).fill('steady')]);
    expect(res.summary.phases).toEqual({ steady: 8, ramp_up: 8, ramp_down: 0, summarized: 'steady' });
    expect(res.summary.requests.total).toBe(8);
    expect(res.summary.ttft_ms.count).toBe(8);
    expect(renderSummary(res.summary)).toContain('phases: figures below cover the 8 steady requests; 8 ramp-up and 0 ramp-down requests are recorded but left out');
    const lines = readFileSync(join(out, 'requests.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { phase: string });
    expect(lines.filter((l) => l.phase === 'ramp-up')).toHaveLength(8);
    const meta = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')) as { executor: unknown };
    expect(meta.executor).toEqual({ kind: 'ramping-vus', start_vus: 0, stages: [{ duration_s: 1, target: 8 }] });
  }, 60_000);

  it('--rate with --ramp-up and --ramp-down: the rate ramps, each request is in the phase it was scheduled in', async () => {
    server = await startScriptServer(replyAfter(5));
    const out = tmpDir();
    const cfg = { rate: 40, arrival: 'constant' as const, rampUp: 0.5, rampDown: 0.5, duration: 1.5 };
    const res = await run({ validate: false, baseUrl: server.baseUrl, ...cfg, inputTokens: 16, outputTokens: 1, out, quiet: true });
    const { stages } = rampPlan(cfg)!;
    const recs = res.records;
    const start = recs[0].scheduled_at_ms;
    // Rounded to the record's µs: times on the schedule's boundaries must not fall a float ulp short of them.
    for (const r of recs) expect(r.phase).toBe(phaseAt(stages, Math.round((r.scheduled_at_ms - start) * 1000) / 1000));
    // Λ: 40/s × 0.5 s / 2 = 10 in the ramp-up, 20 steady, 10 in the ramp-down (constant spacing: exactly these).
    expect(res.summary.phases).toEqual({ steady: 20, ramp_up: 10, ramp_down: 10, summarized: 'steady' });
    expect(res.summary.requests.total).toBe(20);
    // `tokenflood report` rebuilds the same summary from requests.jsonl, phases included.
    expect(replaySummary(out).summary).toEqual(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')));
    expect(res.summary.run.executor).toEqual({
      kind: 'ramping-arrival-rate', start_rate: 0, time_unit: '1s', arrival: 'constant', max_vus: null,
      stages: [{ duration_s: 0.5, target: 40 }, { duration_s: 0.5, target: 40 }, { duration_s: 0.5, target: 0 }],
    });
  }, 60_000);

  it('--stages: the duration defaults to their sum and the VU count follows them', async () => {
    server = await startScriptServer(replyAfter(100));
    const out = tmpDir();
    const res = await run({ validate: false, baseUrl: server.baseUrl, stages: '500ms:2,1s:2,500ms:0', inputTokens: 16, outputTokens: 1, out, quiet: true });
    const recs = res.records;
    const start = recs[0].scheduled_at_ms;
    expect(Math.max(...recs.map((r) => r.scheduled_at_ms - start))).toBeLessThan(2000);
    expect(new Set(recs.map((r) => r.phase))).toEqual(new Set(['ramp-up', 'steady', 'ramp-down']));
    expect(res.summary.phases!.steady).toBe(recs.filter((r) => r.phase === 'steady').length);
    expect((res.summary.run.config as { duration: number }).duration).toBe(2);
  }, 60_000);
});

describe('ramps in a simulation', () => {
  it('simulate runs the same ramping executors on its virtual clock: streams start exactly over the ramp', async () => {
    const { simulate } = await import('../src/simulate.js');
    // Answers of 600 tokens take longer than the ramp, so the first 8 sends are the 8 users' starts.
    const res = await simulate({ concurrency: 8, rampUp: '2s', requests: 16, inputTokens: 64, outputTokens: 600, ignoreEos: true, out: tmpDir() });
    // The first sends of the 8 virtual users, on the virtual clock: exactly k × 250 ms.
    const starts = [...res.records].sort((a, b) => a.sent_at_ms - b.sent_at_ms).slice(0, 8).map((r) => r.sent_at_ms);
    expect(starts).toEqual([0, 250, 500, 750, 1000, 1250, 1500, 1750]);
    expect(res.summary.run.executor).toMatchObject({ kind: 'ramping-vus' });
    expect(res.records.some((r) => r.phase === 'ramp-up')).toBe(true);
    expect(res.records.some((r) => r.phase === 'steady')).toBe(true);
    expect(res.summary.phases?.summarized).toBe('steady');
  });
});
