// Issue 25 (D10): report.html's layout in Chromium: config folded, legends clear of titles and plots and never paged,
// time axes from the run's 0, headline tiles on one line, the sweep's points table not clipped.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { run } from '../src/run.js';
import { writeRunReport } from '../src/report/html/run-report.js';
import { resolveSweepConfig } from '../src/sweep/config.js';
import { runSweep } from '../src/sweep/sweep.js';
import { startSimServer } from '../src/sim/server.js';
import { hasChromium, launch, NO_CHROMIUM } from './fixtures/browser.js';
import { chartBoxes, legendProblems } from './fixtures/chart-boxes.js';
import { tmpDir } from './helpers.js';

let browser: Browser | undefined;
let sim: Awaited<ReturnType<typeof startSimServer>>;
beforeAll(async () => {
  sim = await startSimServer({});
  if (hasChromium) browser = await launch();
  else console.warn(NO_CHROMIUM);
});
afterAll(async () => {
  await browser?.close();
  await sim?.close();
});

// The page's globals (no DOM types in this Node project).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = any;

async function open(file: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } });
  const errors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
  await page.waitForFunction(() => (globalThis as Doc).__tokenfloodCharts !== undefined, null, { timeout: 15_000 });
  return { page, errors };
}

describe('report.html layout (issue 25, D10)', () => {
  it('a run with server metrics: config folded, legends clear, server time axes from 0, tiles on one line', async () => {
    const out = tmpDir();
    // Scraping starts before the first request is sent: the first samples fall before the run's 0.
    await run({ baseUrl: sim.baseUrl, concurrency: 4, duration: 3, inputTokens: 64, outputTokens: 16, scrapeInterval: 0.25, out, quiet: true }, {});
    const file = writeRunReport(out);
    if (!browser) return console.warn(NO_CHROMIUM);
    const { page, errors } = await open(file);
    const got = await page.evaluate(() => {
      const doc = (globalThis as Doc).document;
      const details = doc.querySelector('#metadata details.config');
      const vs = [...doc.querySelectorAll('#headline .tile .v')] as Doc[];
      return {
        folded: details ? { open: details.open, rows: details.querySelectorAll('tr').length, tall: details.getBoundingClientRect().height > 40 } : null,
        configRowsShown: [...doc.querySelectorAll('#metadata > .scroll tr')].filter((tr: Doc) => tr.textContent.startsWith('config.')).length,
        // A value on one line: no taller than its font's line, nothing cut off.
        wrapped: vs.filter((v) => v.getBoundingClientRect().height > 32 || v.scrollWidth > v.clientWidth + 1).map((v) => v.textContent),
        height: doc.documentElement.scrollHeight,
      };
    });
    expect.soft(got.folded).toMatchObject({ open: false, tall: false });
    expect.soft(got.folded?.rows ?? 0).toBeGreaterThan(20);
    expect.soft(got.configRowsShown).toBe(0);
    expect.soft(got.wrapped).toEqual([]);
    const charts = await chartBoxes(page);
    expect.soft(charts.map((c) => c.id)).toEqual(expect.arrayContaining(['c-server-load', 'c-server-times', 'c-overtime', 'c-timeline']));
    expect.soft(legendProblems(charts)).toEqual([]);
    for (const id of ['c-server-load', 'c-server-times']) expect.soft([id, charts.find((c) => c.id === id)!.xExtent![0]]).toEqual([id, 0]);
    expect.soft(errors).toEqual([]);
    console.log(`report.html: ${statSync(file).size} bytes, ${got.height} px tall at 1,280 px`);
    await page.close();
  }, 60_000);

  it('a sweep with server metrics: the points table fits, the decomposition and latency legends show every entry without paging', async () => {
    const out = join(tmpDir(), 'sweep');
    await runSweep(
      resolveSweepConfig({ flags: { concurrency: '1,2,4', requests: '6', inputOutput: '64x8,128x8', out }, runFlags: { baseUrl: sim.baseUrl, scrapeInterval: '0.25' } }),
    );
    if (!browser) return console.warn(NO_CHROMIUM);
    const { page, errors } = await open(join(out, 'report.html'));
    // At the default --percentiles the table fits the card at 1,280 px; wider ones scroll inside it, never the page.
    const table = await page.evaluate(() => {
      const doc = (globalThis as Doc).document;
      const box = doc.querySelector('#points .scroll');
      return { scroll: box.scrollWidth, client: box.clientWidth, overflow: getComputedStyle(box).overflowX, page: doc.documentElement.scrollWidth - doc.documentElement.clientWidth };
    });
    expect.soft(table).toEqual({ scroll: expect.any(Number), client: expect.any(Number), overflow: 'auto', page: 0 });
    expect.soft(table.scroll).toBeLessThanOrEqual(table.client);
    const charts = await chartBoxes(page);
    const decomp = charts.filter((c) => c.id.startsWith('s-decomp'));
    expect.soft(decomp.length).toBe(2);
    expect.soft(legendProblems(charts)).toEqual([]);
    // Every legend entry drawn: a plain legend (it wraps to more rows) instead of a paged one.
    for (const c of charts.filter((x) => x.legend)) expect.soft([c.id, c.legendType]).toEqual([c.id, 'plain']);
    expect.soft(errors).toEqual([]);
    await page.close();
  }, 120_000);
});
