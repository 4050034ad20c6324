// Diagnosis in words from whole runs against the sim server: long prompts are prefill-bound, a full KV cache is KV-bound.
import { describe, it, expect } from 'vitest';
import { run } from '../src/run.js';
import { startSimServer } from '../src/sim/server.js';
import { tmpDir } from './helpers.js';

describe('server findings from whole runs', () => {
  it('8k-token prompts one at a time: prefill-bound, with the prefill time as evidence', async () => {
    // Real time (scale 1), one stream: the prefill of 8k tokens dwarfs the client's and the network's share of TTFT.
    const sim = await startSimServer({ timeScale: 1, maxModelLen: 16384 });
    try {
      const res = await run({ validate: false, baseUrl: sim.baseUrl, requests: 6, concurrency: 1, inputTokens: 8000, outputTokens: 8, maxModelLen: 16384, out: tmpDir(), quiet: true, scrapeInterval: 0.25 });
      const f = res.summary.server!.findings.find((x) => x.kind === 'prefill_bound');
      expect(f, JSON.stringify(res.summary.server!.findings)).toBeDefined();
      expect(f!.message).toMatch(/prefill-bound: prefill took [\d.]+ ms on average/);
      expect(res.summary.server!.ttft_decomposition!.prefill_source).toBe('histogram');
    } finally {
      await sim.close();
    }
  }, 120_000);

  it('a KV cache of 64 blocks under 16 long streams: KV-bound, with the usage and the preemptions', async () => {
    const sim = await startSimServer({ timeScale: 4, numGpuBlocksOverride: 64 });
    try {
      const res = await run({ validate: false, baseUrl: sim.baseUrl, requests: 48, concurrency: 16, inputTokens: 256, outputTokens: 128, ignoreEos: true, out: tmpDir(), quiet: true, scrapeInterval: 0.25 });
      const srv = res.summary.server!;
      expect(srv.findings.map((x) => x.kind)).toContain('kv_bound');
      expect(srv.kv_usage_max!).toBeGreaterThan(0.9);
      expect(srv.preemptions!).toBeGreaterThan(0);
    } finally {
      await sim.close();
    }
  }, 120_000);
});
