// Whole runs against the embedded simulated server on loopback: every request accounted for, report agrees.
import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../src/run.js';
import { rebuildSummary } from '../src/cli/report.js';
import { tmpDir } from './helpers.js';

describe('runs against the embedded simulated server', () => {
  it('1,000 requests at concurrency 64: every request in requests.jsonl, summary equals `report`', async () => {
    const out = tmpDir();
    const res = await run({ requests: 1000, concurrency: 64, inputTokens: 64, outputTokens: 16, out, quiet: true, warmup: 0 });
    const lines = readFileSync(join(out, 'requests.jsonl'), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1000);
    const ids = new Set(lines.map((l) => JSON.parse(l).id));
    expect(ids.size).toBe(1000);
    expect(res.summary.requests.total).toBe(1000);
    expect(res.summary.requests.ok).toBe(1000);
    expect(res.summary.output_tokens.mean).toBe(16);
    expect(res.summary.input_tokens.mean).toBeGreaterThanOrEqual(64);
    const onDisk = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    const rebuilt = rebuildSummary(out).summary;
    expect(JSON.parse(JSON.stringify(rebuilt))).toEqual(onDisk);
    // Concurrency was honoured: never more than 64 in flight.
    const events = res.records.flatMap((r) => [[r.sent_at_ms, 1], [r.sent_at_ms + (r.end_ms ?? 0), -1]] as [number, number][]);
    events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    let cur = 0;
    let peak = 0;
    for (const [, d] of events) peak = Math.max(peak, (cur += d));
    expect(peak).toBeLessThanOrEqual(64);
    expect(res.summary.mean_in_flight).toBeGreaterThan(32);
  });

  it('--workers 2 spreads requests over worker threads; records and summary have the same form', async () => {
    const out = tmpDir();
    const res = await run({ requests: 300, concurrency: 32, inputTokens: 64, outputTokens: 16, out, quiet: true, workers: 2 });
    expect(res.summary.run.workers).toBe(2);
    expect(res.records).toHaveLength(300);
    expect(new Set(res.records.map((r) => r.id)).size).toBe(300);
    expect(res.summary.requests.ok).toBe(300);
    // times from the worker threads are on the run's clock: sends are after schedule and within the run
    for (const r of res.records) {
      expect(r.schedule_lag_ms).toBeGreaterThanOrEqual(-0.5);
      expect(r.sent_at_ms).toBeLessThan(res.summary.duration_s * 1000 + 1000);
      expect(r.ttft_ms!).toBeGreaterThan(0);
    }
    expect(JSON.parse(JSON.stringify(rebuildSummary(out).summary))).toEqual(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')));
  });

  it('warmup requests are recorded but left out of every statistic', async () => {
    // Only counts are asserted, so the embedded server may run 20x faster than real time.
    const res = await run({ requests: 20, warmup: 5, concurrency: 4, inputTokens: 32, outputTokens: 8, out: tmpDir(), quiet: true, simTimeScale: 20 });
    expect(res.records).toHaveLength(25);
    expect(res.records.filter((r) => r.warmup)).toHaveLength(5);
    expect(res.summary.requests.total).toBe(20);
    expect(res.summary.requests.warmup).toBe(5);
    expect(res.summary.ttft_ms.count).toBe(20);
  });

  it('the usage the server reports matches the client tokenizer count of the prompt', async () => {
    const res = await run({ requests: 10, concurrency: 2, inputTokens: 200, outputTokens: 8, out: tmpDir(), quiet: true, simTimeScale: 20 }); // token counts only
    for (const r of res.records) {
      expect(r.token_source).toBe('usage');
      expect(r.input_tokens).toBe(r.expected_input_tokens);
      expect(r.expected_input_tokens).toBe(200);
    }
  });

  it('open loop: schedule honoured, lateness recorded, rate with a concurrency cap', async () => {
    const res = await run({ rate: 50, arrival: 'constant', requests: 50, inputTokens: 32, outputTokens: 4, out: tmpDir(), quiet: true });
    expect(res.records).toHaveLength(50);
    const sched = res.records.map((r) => r.scheduled_at_ms);
    // constant arrivals: 20 ms apart
    for (let i = 1; i < sched.length; i++) expect(sched[i] - sched[i - 1]).toBeCloseTo(20, 6);
    for (const r of res.records) expect(r.schedule_lag_ms).toBeGreaterThanOrEqual(-0.5); // sub-ms clock rounding, as in the worker test
    // Late timers on a loaded machine are tens of ms; an unhonoured schedule would be late by whole gaps and growing.
    expect(res.summary.schedule_lag_ms.p50!).toBeLessThan(60);
  });

  it('raising concurrency raises TTFT and TPOT, as on a real GPU server', async () => {
    // At concurrency 1 every request is alike (fixed lengths, one at a time), so 8 give the same p50 as 16.
    const lo = await run({ requests: 8, concurrency: 1, inputTokens: 1024, outputTokens: 32, out: tmpDir(), quiet: true });
    const hi = await run({ requests: 64, concurrency: 32, inputTokens: 1024, outputTokens: 32, out: tmpDir(), quiet: true });
    expect(hi.summary.ttft_ms.p50!).toBeGreaterThan(lo.summary.ttft_ms.p50! * 1.5);
    expect(hi.summary.tpot_ms.p50!).toBeGreaterThan(lo.summary.tpot_ms.p50!);
  });

  it('reasoning model: TTFAT later than TTFT, reasoning tokens reported', async () => {
    const res = await run({ requests: 4, concurrency: 2, inputTokens: 32, outputTokens: 40, out: tmpDir(), quiet: true, model: 'llama-3.1-8b-reasoning' });
    for (const r of res.records) {
      expect(r.status).toBe('ok');
      expect(r.reasoning_tokens!).toBeGreaterThan(0);
      expect(r.ttfat_ms!).toBeGreaterThan(r.ttft_ms!);
    }
  });
});

describe('prefix caching on the embedded server', () => {
  it('cache A/B: the warm pass hits the prefix cache and has a much lower TTFT', async () => {
    const res = await run({ requests: 8, concurrency: 1, cacheAb: true, inputTokens: 4096, outputTokens: 4, out: tmpDir(), quiet: true });
    const cold = res.summary.by_class!.cold;
    const warm = res.summary.by_class!.warm;
    expect(cold.requests.ok).toBe(4);
    expect(warm.requests.ok).toBe(4);
    expect(cold.cached_tokens.max ?? 0).toBeLessThan(64);
    expect(warm.cached_tokens.min!).toBeGreaterThan(4000);
    expect(warm.ttft_ms.p50!).toBeLessThan(cold.ttft_ms.p50! / 3);
  });
});
