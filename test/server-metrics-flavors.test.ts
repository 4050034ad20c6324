// Server metrics from SGLang- and TGI-named /metrics (the sim server's --metrics-flavor): engine detected, queueing explained, charts drawn.
import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../src/run.js';
import { startSimServer } from '../src/sim/server.js';
import { replaySummary } from '../src/report/results-dir.js';
import { tmpDir } from './helpers.js';

describe.each(['sglang', 'tgi'] as const)('server metrics, %s names', (flavor) => {
  it('a load that queues (concurrency 16 > max_num_seqs 4): the engine, its queue time, a queue-bound finding, the server charts', async () => {
    const sim = await startSimServer({ maxNumSeqs: 4, timeScale: 4, metricsFlavor: flavor });
    try {
      const out = tmpDir();
      const res = await run({ baseUrl: sim.baseUrl, requests: 64, concurrency: 16, inputTokens: 128, outputTokens: 16, out, quiet: true, scrapeInterval: 0.25 });
      const srv = res.summary.server!;
      expect(srv.engine).toBe(flavor);
      expect(srv.waiting_max).toBeGreaterThan(0);
      // Every request's queue time is in the server's histogram, and queueing is most of the client's TTFT.
      const queue = srv.times.queue!;
      expect(queue.count).toBe(64);
      expect(queue.mean_ms!).toBeGreaterThan(0.5 * res.summary.ttft_ms.mean!);
      expect(srv.findings.map((f) => f.kind)).toContain('queue_bound');
      expect(JSON.parse(JSON.stringify(replaySummary(out).summary.server))).toEqual(JSON.parse(JSON.stringify(srv)));
      const html = readFileSync(join(out, 'report.html'), 'utf8');
      for (const id of ['c-server-load', 'c-server-times']) expect(html).toContain(`id="${id}"`);
    } finally {
      await sim.close();
    }
  }, 60_000);
});
