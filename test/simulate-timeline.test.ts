// `simulate` writes server_metrics.jsonl: the engine model's /metrics (vLLM's names) sampled on the virtual clock.
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { simulate } from '../src/simulate.js';
import { readServerSamples } from '../src/telemetry/sample-writer.js';
import { tmpDir } from './helpers.js';

describe('simulate: the server timeline', () => {
  it('samples every --scrape-interval of virtual time; running, waiting and KV usage move with the load; summary.server is there', async () => {
    const out = tmpDir();
    const t0 = performance.now();
    const res = await simulate({ requests: 48, concurrency: 32, inputTokens: 256, outputTokens: 128, maxNumSeqs: 8, scrapeInterval: 0.5, out } as never);
    const wallMs = performance.now() - t0;
    const samples = readServerSamples(out);
    const virtualMs = res.sim.durationMs;
    console.log(`simulate 48 requests: ${wallMs.toFixed(0)} ms wall, ${(virtualMs / 1000).toFixed(1)} s virtual, ${samples.length} server samples`);
    expect(virtualMs).toBeGreaterThan(2000); // several intervals
    // One at the start, one per 0.5 s of virtual time, one after the last answer.
    expect(samples.length).toBeGreaterThanOrEqual(Math.floor(virtualMs / 500));
    expect(samples.length).toBeLessThanOrEqual(Math.floor(virtualMs / 500) + 3);
    const t = samples.map((s) => s.t_ms);
    expect(t[0]).toBe(0);
    for (let i = 1; i < t.length - 1; i++) expect(t[i]).toBe(i * 500);
    expect(samples.every((s) => s.engine === 'vllm')).toBe(true);
    const running = samples.map((s) => s.gauges.running ?? 0);
    const waiting = samples.map((s) => s.gauges.waiting ?? 0);
    const kv = samples.map((s) => s.gauges.kv_usage ?? 0);
    const mid = samples.slice(1, -1);
    expect(mid.length).toBeGreaterThan(2);
    // 32 clients on an 8-sequence engine: it runs at most 8, the rest wait.
    expect(Math.max(...running)).toBe(8);
    expect(mid.every((s) => (s.gauges.running ?? 0) > 0 && (s.gauges.running ?? 0) <= 8)).toBe(true);
    expect(Math.max(...waiting)).toBeGreaterThan(0);
    expect(Math.max(...kv)).toBeGreaterThan(0);
    expect(Math.max(...kv)).toBeLessThanOrEqual(1);
    // Idle before the first request and after the last one.
    expect([running[0], waiting[0], running.at(-1), waiting.at(-1)]).toEqual([0, 0, 0, 0]);
    // Counters are the engine's: all of the run's tokens by the last sample.
    expect(samples.at(-1)!.counters.generation_tokens).toBe(48 * 128);

    const run = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8'));
    expect(run.simulated).toBe(true);
    expect(run.server_metrics).toMatchObject({ url: 'engine model (simulated)', found: true, engine: 'vllm', samples: samples.length, interval_ms: 500 });
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(summary.server).toBeDefined();
    expect(summary.server.sim).toBe(true);
    expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain('id="c-server-load"'); // report.html's server charts
    expect(existsSync(join(out, 'gpu_metrics.jsonl'))).toBe(false); // no host under simulate: not invented
  });

  it('--no-server-metrics: no timeline', async () => {
    const out = tmpDir();
    await simulate({ requests: 4, concurrency: 2, inputTokens: 32, outputTokens: 4, serverMetrics: false, out } as never);
    expect(existsSync(join(out, 'server_metrics.jsonl'))).toBe(false);
    expect(JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')).server_metrics).toBeUndefined();
  });
});
