// A sweep whose server dies between points: the finished points are kept, the rest are failed rows, exit 1.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { registerSweep } from '../src/cli/sweep.js';
import { startSlotServer } from './fixtures/slot-server.js';
import { checkPage, hasChromium, launch, NO_CHROMIUM } from './fixtures/browser.js';
import { runCli } from './fixtures/cli-harness.js';
import { tmpDir } from './helpers.js';

let browser: Browser | undefined;
beforeAll(async () => {
  if (hasChromium) browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

describe.each(['h1', 'undici'])('sweep when the server dies after 2 points (transport %s)', (transport) => {
  it('writes sweep.json, sweep.csv and report.html for points 1 and 2, marks 3 and 4 failed, exits 1', async () => {
    // 4 requests per point: the server serves points 1 and 2 (8 streams), then dies on the next request.
    const server = await startSlotServer({ slots: 4, tokenMs: 2, dieAfter: 8 });
    const out = join(tmpDir(), 'sweep');
    try {
      const r = await runCli(registerSweep, [
        'sweep', '--no-validate', '--base-url', server.baseUrl, '--concurrency', '1,2,4,8', '--requests', '4', '--input-output', '16x4',
        '--transport', transport, '--out', out, '--json', '--quiet',
      ]);
      expect(r.code, r.err).toBe(1);
      expect(r.err).toMatch(/sweep incomplete: concurrency 4 \(c4-in16-out4\) could not run: cannot reach the server/);
      const doc = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8'));
      expect(JSON.parse(r.out)).toEqual(doc);
      expect(doc.points.map((p: { load: number; status: string }) => [p.load, p.status])).toEqual([[1, 'done'], [2, 'done'], [4, 'failed'], [8, 'failed']]);
      expect(doc.points[0].ok).toBe(4);
      expect(doc.points[1].ok).toBe(4);
      expect(doc.points[2].error).toMatch(/cannot reach the server/);
      expect(doc.points[3].error).toMatch(/^not run: concurrency 4/);
      expect(doc.failure).toMatch(/concurrency 4/);
      expect(doc.warnings.join('\n')).toMatch(/INCOMPLETE/);
      expect(doc.insights[0].recommended).toBeNull();
      expect(doc.insights[0].failed_levels).toEqual([4, 8]);
      expect(doc.insights[0].statements.join('\n')).toMatch(/Not measured: concurrency 4, concurrency 8/);

      const csv = readFileSync(join(out, 'sweep.csv'), 'utf8').trim().split('\n');
      expect(csv).toHaveLength(5);
      const col = csv[0].split(',').indexOf('status');
      expect(csv.slice(1).map((l) => l.split(',')[col])).toEqual(['done', 'done', 'failed', 'failed']);
      for (const p of doc.points.slice(0, 2)) expect(existsSync(join(out, p.dir, 'report.html'))).toBe(true);
      expect(existsSync(join(out, 'report.html'))).toBe(true);

      if (!browser) return console.warn(NO_CHROMIUM);
      const page = await checkPage(browser, join(out, 'report.html'));
      expect(page.errors).toEqual([]);
      expect(page.drawn).toBe(page.canvases);
      expect(page.text).toMatch(/INCOMPLETE/);
      expect(page.text).toMatch(/c8-in16-out4 failed/);
    } finally {
      await server.close();
    }
  });
});
