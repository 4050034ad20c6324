// Sweep points carry what the server said: its queue time, KV usage and findings per point, in sweep.json and sweep.csv.
import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runSweep } from '../src/sweep/sweep.js';
import { resolveSweepConfig } from '../src/sweep/config.js';
import { startSimServer } from '../src/sim/server.js';
import { tmpDir } from './helpers.js';
import { checkPage, hasChromium, launch, NO_CHROMIUM } from './fixtures/browser.js';

describe('sweep with server metrics', () => {
  it('past max_num_seqs the server queues: the queue time grows, the point is queue-bound, and the insights say it sets in at the knee', async () => {
    const sim = await startSimServer({ maxNumSeqs: 4, timeScale: 4 });
    try {
      const out = join(tmpDir(), 'sw');
      const { doc } = await runSweep(
        resolveSweepConfig({ flags: { concurrency: '1,2,4,16', requests: '48', out, quiet: true }, runFlags: { baseUrl: sim.baseUrl, inputTokens: '128', outputTokens: '16', scrapeInterval: '250ms' } }),
      );
      const low = doc.points[0];
      const high = doc.points[3];
      expect(high.server_queue_mean_ms!).toBeGreaterThan((low.server_queue_mean_ms ?? 0) + 5);
      expect(high.server_waiting_mean!).toBeGreaterThan(0);
      expect(high.server_findings).toContain('queue_bound');
      expect(low.server_findings).not.toContain('queue_bound');
      const csv = readFileSync(join(out, 'sweep.csv'), 'utf8').trim().split('\n');
      const cols = csv[0].split(',');
      const cell = (row: number, c: string) => csv[row].split(',')[cols.indexOf(c)];
      expect(Number(cell(4, 'server_queue_mean_ms'))).toBeCloseTo(high.server_queue_mean_ms!, 3);
      expect(cell(4, 'server_findings')).toMatch(/queue_bound/);
      expect(cell(1, 'gpu_util_pct_mean')).toBe('');
      // Throughput levels off at max_num_seqs (4): the knee, and queueing is what sets in there.
      const statements = doc.insights[0].statements.join('\n');
      // The sweep report splits each level's TTFT into server queue, server prefill and the rest.
      const html = readFileSync(join(out, 'report.html'), 'utf8');
      expect(html).toContain('server queue');
      if (!hasChromium) console.warn(NO_CHROMIUM);
      else {
        const browser = await launch();
        try {
          expect((await checkPage(browser, join(out, 'report.html'))).errors).toEqual([]);
        } finally {
          await browser.close();
        }
      }
      expect(statements, statements).toMatch(/What sets in at the knee, from the server's \/metrics: .*queue-bound from concurrency (4|16)/);
    } finally {
      await sim.close();
    }
  }, 120_000);
});
