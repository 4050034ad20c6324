// Issue 25 (D9, items 24 and 27): the dashboard's final header, layout and console in Chromium; its limits over HTTP during real runs.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { run } from '../src/run.js';
import { startDashboard, type Dashboard } from '../src/ui/dashboard.js';
import { MAX_STREAM_CLIENTS } from '../src/ui/server.js';
import { MAX_LIVE_STAGES } from '../src/scheduler/load-control.js';
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

type W = { __tfEnded?: string; __tfUpdates?: number; document: { getElementById(id: string): { textContent: string; scrollWidth: number; clientWidth: number; parentElement: { scrollWidth: number; clientWidth: number } } } };

/** Wait until the dashboard has a run (its init names the target). */
async function runStarted(d: Dashboard): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const s = (await (await fetch(new URL('/api/state', d.url).href + new URL(d.url).search)).json()) as { knob: string | null };
    if (s.knob) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the run did not start');
}

describe('the live dashboard page at 1,400 px (issue 25, D9)', () => {
  it('ends with the final counts in the header, fits its statistics table, draws KV in % without an empty GPU series, and has a clean console', async () => {
    if (!browser) return console.warn(NO_CHROMIUM);
    const d = await startDashboard({ onStop: () => {} });
    try {
      const running = run({ baseUrl: sim.baseUrl, concurrency: 8, duration: 4, inputTokens: 32, outputTokens: 24, percentiles: [50, 90, 95, 99, 99.9], out: tmpDir(), quiet: true }, { reporters: [d.reporter], liveLoad: true });
      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      const errors: string[] = [];
      page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
      page.on('requestfailed', (r) => !r.url().includes('/api/events') && errors.push(`failed: ${r.url()}`));
      page.on('response', (r) => r.status() >= 400 && errors.push(`${r.status()}: ${r.url()}`));
      await page.goto(d.url, { waitUntil: 'load' });
      const result = await running;
      await page.waitForFunction(() => (globalThis as unknown as W).__tfEnded !== undefined, null, { timeout: 20_000 });
      const got = await page.evaluate(() => {
        const doc = (globalThis as unknown as W).document;
        const t = (id: string) => doc.getElementById(id).textContent;
        const table = doc.getElementById('stats');
        return { done: t('done'), failed: t('failed'), inflight: t('inflight'), box: { scroll: table.parentElement.scrollWidth, client: table.parentElement.clientWidth } };
      });
      const s = result.summary.requests;
      // The header's last tick came up to a second before the end; the end carries the summary's counts.
      // Soft: a failure names every problem at once.
      expect.soft([got.done, got.failed, got.inflight]).toEqual([String(s.total - s.cancelled), String(s.failed), '0']);
      // The statistics table (with p95 and p99.9 columns) fits the card: nothing clipped at 1,400 px.
      expect.soft(got.box.scroll).toBeLessThanOrEqual(got.box.client);
      const charts = await chartBoxes(page);
      expect(charts).toHaveLength(10);
      expect.soft(legendProblems(charts)).toEqual([]);
      const kv = charts.find((c) => c.id === 'c-kv')!;
      expect.soft(kv.yMax).toBe(100);
      expect.soft(kv.legendNames).toEqual(['KV cache']);
      await page.waitForTimeout(300);
      // No 403 for /favicon.ico (the page carries an inline icon), nothing failed, no console error.
      expect.soft(errors).toEqual([]);
      await page.close();
    } finally {
      await d.close();
    }
  }, 60_000);
});

describe.each(['h1', 'undici'] as const)('dashboard limits during a real run over %s (issue 25, items 24 and 27)', (transport) => {
  it('refuses a concurrency beyond the open-file limit at once, answers 413 to a large body, caps streams and stages', async () => {
    const ac = new AbortController();
    const d = await startDashboard({ onStop: () => ac.abort() });
    const out = tmpDir();
    const u = new URL(d.url);
    const post = (path: string, body: string) => fetch(`${u.origin}${path}${u.search}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const streams: AbortController[] = [];
    try {
      const running = run({ baseUrl: sim.baseUrl, transport, concurrency: 2, duration: 60, gracePeriod: 10, inputTokens: 16, outputTokens: 16, out, quiet: true, serverMetrics: false }, { signal: ac.signal, reporters: [d.reporter], liveLoad: true });
      await runStarted(d);

      // The allowed maximum of the flag is beyond this process's sockets: refused with the reason, at once.
      const big = await post('/api/load', '{"concurrency":100000}');
      expect(big.status).toBe(400);
      expect(((await big.json()) as { error: string }).error).toMatch(/^concurrency: 100000 requests in flight need 100000 sockets: at most \d+ within this process's open-file limit \(ulimit -n/);

      // A body over 4 KB gets the documented 413 with a message (not a reset connection).
      const large = await post('/api/load', JSON.stringify({ concurrency: 3, pad: 'x'.repeat(5000) }));
      expect(large.status).toBe(413);
      expect(((await large.json()) as { error: string }).error).toContain('at most 4096 bytes');

      // Event streams: MAX_STREAM_CLIENTS at once, the next one 503 with a reason.
      for (let i = 0; i < MAX_STREAM_CLIENTS; i++) {
        const c = new AbortController();
        streams.push(c);
        expect((await fetch(`${u.origin}/api/events${u.search}`, { signal: c.signal })).status).toBe(200);
      }
      const over = await fetch(`${u.origin}/api/events${u.search}`);
      expect(over.status).toBe(503);
      expect(await over.text()).toContain(`at most ${MAX_STREAM_CLIENTS} event streams`);
      for (const c of streams) c.abort();

      // Stages: MAX_LIVE_STAGES in all (stage 0 and 99 changes), then refused, so summary.json stays small.
      for (let i = 1; i < MAX_LIVE_STAGES; i++) expect((await post('/api/load', JSON.stringify({ concurrency: 2 + (i % 2) }))).status).toBe(200);
      const more = await post('/api/load', '{"concurrency":2}');
      expect(more.status).toBe(400);
      expect(((await more.json()) as { error: string }).error).toContain(`at most ${MAX_LIVE_STAGES} load stages per run`);

      expect((await post('/api/stop', '')).status).toBe(202);
      const result = await running;
      expect(result.summary.by_stage!.length).toBeLessThanOrEqual(MAX_LIVE_STAGES);
      expect(JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')).load_stages).toHaveLength(MAX_LIVE_STAGES);
    } finally {
      for (const c of streams) c.abort();
      ac.abort();
      await d.close();
    }
  }, 90_000);
});
