// The run report: renders offline in headless Chromium without errors, and server text cannot inject markup or scripts.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { run } from '../src/run.js';
import { writeRunReport } from '../src/report/html/run-report.js';
import { startScriptServer, chatChunk, usageChunk, DONE, type ScriptServer } from './fixtures/script-server.js';
import { checkPage, hasChromium, launch, NO_CHROMIUM } from './fixtures/browser.js';
import { tmpDir } from './helpers.js';
import { startSimServer } from '../src/sim/server.js';
import { num } from '../src/report/html/sections.js';

const EVIL_ERROR = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">';
const EVIL_MODEL = '</script><script>window.__pwned=3</script>';
const EVIL_CLASS = '<img src=y onerror=window.__pwned=4>';

let server: ScriptServer;
let browser: Browser | undefined;
beforeAll(async () => {
  server = await startScriptServer(
    (_b, n) =>
      n % 3 === 2
        ? { status: 500, headers: { 'content-type': 'text/plain' }, steps: [{ at: 0, write: EVIL_ERROR }] }
        : {
            steps: [
              { at: 0, write: chatChunk({ role: 'assistant', content: '' }) },
              ...[5, 10, 15, 20, n === 4 ? 140 : 25].map((at) => ({ at, write: chatChunk({ content: ' </script>x' }) })),
              { at: n === 4 ? 140 : 25, write: usageChunk(8, 5) },
              { at: n === 4 ? 140 : 25, write: DONE },
            ],
          },
    EVIL_MODEL,
  );
  if (hasChromium) browser = await launch();
  else console.warn(NO_CHROMIUM);
});
afterAll(async () => {
  await server?.close();
  await browser?.close();
});

describe('run report.html', () => {
  it('escapes server text, hides secrets, renders every chart without errors or network', async () => {
    const out = tmpDir();
    await run({ baseUrl: server.baseUrl, requests: 9, concurrency: 2, inputTokens: 8, outputTokens: 5, out, quiet: true, apiKey: 'sk-verysecretkey-1234', header: ['X-Api-Key: hunter2hunter2', 'X-Trace: ok'] });
    // Give some records an untrusted class name and the run an SLO, as later runs will have.
    const lines = readFileSync(join(out, 'requests.jsonl'), 'utf8').trim().split('\n');
    writeFileSync(join(out, 'requests.jsonl'), lines.map((l, i) => JSON.stringify({ ...JSON.parse(l), class: i % 2 ? EVIL_CLASS : 'chat' })).join('\n') + '\n');
    const meta = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8'));
    meta.config.header.push('Authorization: Bearer sk-leaked-if-shown');
    writeFileSync(join(out, 'run.json'), JSON.stringify(meta));
    const path = writeRunReport(out, { slo: 'ttft_p99=1s,error_rate=1%' });
    const html = readFileSync(path, 'utf8');
    for (const bad of ['window.__pwned=1</script>', '<img src=x', '<img src=y', 'hunter2', 'sk-leaked', 'sk-verysecretkey']) expect(html).not.toContain(bad);
    expect(html).toContain('SLOs');

    if (!browser) return console.warn(NO_CHROMIUM);
    const page = await checkPage(browser, path);
    expect(page.errors).toEqual([]);
    expect(page.network).toEqual([]);
    expect(page.pwned).toBeUndefined();
    // The text is shown, as text.
    expect(page.text).toContain(EVIL_ERROR.slice(0, 40));
    expect(page.text).toContain(EVIL_MODEL);
    expect(page.text).toMatch(/SLOs not met: error_rate/);
    expect(page.text).not.toContain('hunter2');
    // The 9 charts of every run (the 2 of the percentiles with their intervals among them) and the errors chart.
    expect(page.charts).toBe(10);
    expect(page.drawn).toBe(page.canvases);
    expect(page.canvases).toBeGreaterThanOrEqual(10);
  });

  it('a run against the sim server draws the server charts on the run\'s time axis, with no console errors', async () => {
    const sim = await startSimServer({ maxNumSeqs: 4, timeScale: 4 });
    try {
      const out = tmpDir();
      await run({ baseUrl: sim.baseUrl, requests: 64, concurrency: 16, inputTokens: 128, outputTokens: 16, out, quiet: true, scrapeInterval: 0.25 });
      const html = readFileSync(join(out, 'report.html'), 'utf8');
      for (const id of ['c-server-load', 'c-server-times', 'c-server-ttft']) expect(html).toContain(`id="${id}"`);
      // The percentile charts draw each interval as a band (stacked low end + width) and name it at each point.
      const s = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
      const r3 = (x: number) => Math.round(x * 1000) / 1000;
      for (const id of ['c-ttft-pct', 'c-tpot-pct']) expect(html).toContain(`id="${id}"`);
      for (const [k, i] of [['ttft_ms', 0], ['e2e_ms', 1]] as const) {
        const [lo, hi] = s[k].ci95.p50;
        expect(html).toContain(`"stack":"ci-${i}"`);
        expect(html).toContain(`p50 (95% CI ${r3(lo)}–${r3(hi)})`);
      }
      // 64 values are too few for a p99 interval: the point says so.
      expect(s.ttft_ms.ci95.p99).toBeNull();
      expect(html).toContain('p99 (no 95% CI: too few values)');
      if (!browser) return console.warn(NO_CHROMIUM);
      const page = await checkPage(browser, join(out, 'report.html'));
      expect(page.errors).toEqual([]);
      expect(page.network).toEqual([]);
      // The percentile table shows the 95% interval under each mean and percentile that has one, none under p99.
      for (const k of ['ttft_ms', 'tpot_ms', 'itl_ms', 'e2e_ms']) {
        for (const f of ['mean', 'p50', 'p90']) {
          const [lo, hi] = s[k].ci95[f];
          expect(lo).toBeLessThanOrEqual(s[k][f]);
          expect(hi).toBeGreaterThanOrEqual(s[k][f]);
          expect(page.text, `${k} ${f}`).toContain(`${num(s[k][f])}\n${num(lo)}–${num(hi)}`);
        }
      }
      expect(page.text).toContain('Under each mean and percentile: its 95% confidence interval');
      // The diagnosis depends on what the 0.25 s scrapes caught (on a loaded machine they can miss the queue, and
      // the finding becomes another or none); whatever the run found, the page shows.
      const findings = (s.server?.findings ?? []) as { kind: string; message: string }[];
      for (const f of findings) expect(page.text).toContain(f.message.split(':')[0]);
      // The 9 charts every run has, the 3 server charts, and the host chart (host metrics are sampled in every measured run).
      expect(page.charts).toBe(13);
      expect(page.drawn).toBe(page.canvases);
    } finally {
      await sim.close();
    }
  }, 60_000);

  it('a run with --gpu-metrics dcgm: draws the GPU and host charts too, with no console errors', async () => {
    const sim = await startSimServer({ timeScale: 4, tp: 2, modelProfile: 'llama-3.1-70b' });
    try {
      const out = tmpDir();
      const dcgm = `dcgm:${new URL(sim.baseUrl).origin}/dcgm/metrics`;
      await run({ baseUrl: sim.baseUrl, requests: 48, concurrency: 8, inputTokens: 128, outputTokens: 16, out, quiet: true, scrapeInterval: 0.25, gpuMetrics: dcgm });
      const html = readFileSync(join(out, 'report.html'), 'utf8');
      for (const id of ['c-gpu-util', 'c-gpu-mem']) expect(html).toContain(`id="${id}"`);
      if (!browser) return console.warn(NO_CHROMIUM);
      const page = await checkPage(browser, join(out, 'report.html'));
      expect(page.errors).toEqual([]);
      expect(page.network).toEqual([]);
      // The 9 charts every run has, the 3 server charts and the 2 GPU charts.
      expect(page.charts).toBe(14);
      expect(page.drawn).toBe(page.canvases);
    } finally {
      await sim.close();
    }
  }, 60_000);
});
