// The live dashboard in headless Chromium during real runs: charts update, live load changes become stages, stop keeps every record, token and escaping hold.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { run, type Reporter, type RunStartEvent } from '../src/run.js';
import { replaySummary } from '../src/report/results-dir.js';
import { renderSummary } from '../src/report/terminal.js';
import { startDashboard, type Dashboard } from '../src/ui/dashboard.js';
import type { RequestRecord } from '../src/metrics/record.js';
import { startScriptServer, chatChunk, usageChunk, DONE, type ScriptServer } from './fixtures/script-server.js';
import { hasChromium, launch, NO_CHROMIUM } from './fixtures/browser.js';
import { tmpDir } from './helpers.js';
import { startSimServer } from '../src/sim/server.js';

const EVIL = '<img src=x onerror="window.__pwned=1">';
const EVIL_MODEL = '<img src=y onerror=window.__pwned=2>';

let browser: Browser | undefined;
// One sim server for the runs that need not start the embedded one (that path has its own tests below).
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

/** A page on the dashboard that collects console errors and blocks every request leaving it. */
async function openPage(d: Dashboard): Promise<{ page: Page; errors: string[]; offsite: string[] }> {
  const page = await browser!.newPage({ viewport: { width: 1400, height: 1000 } });
  const errors: string[] = [];
  const offsite: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  const origin = new URL(d.url).origin;
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(origin)) return route.continue();
    offsite.push(url);
    return route.abort();
  });
  await page.goto(d.url, { waitUntil: 'load' });
  return { page, errors, offsite };
}

// The page's globals (no DOM types in this Node project).
type W = { __tfLast?: { server_running: number | null; kv_usage_pct: number | null }; __tfUpdates?: number; __tfCharts?: number; __tfStage?: number; __tfEnded?: string; __pwned?: unknown };
const g = () => globalThis as unknown as W;

function records(out: string): RequestRecord[] {
  return readFileSync(join(out, 'requests.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as RequestRecord);
}

/** Most requests in flight at any send time of a stage's requests (counting requests of every stage). */
function peakInFlight(all: RequestRecord[], stage: number): number {
  let peak = 0;
  for (const r of all.filter((x) => x.stage === stage)) {
    const t = r.sent_at_ms;
    peak = Math.max(peak, all.filter((x) => x.sent_at_ms <= t && t < x.sent_at_ms + (x.end_ms ?? 0)).length);
  }
  return peak;
}

/** The cells of the statistics table's rows, by the row's name. */
async function statsTable(page: Page): Promise<Record<string, string[]>> {
  return page.evaluate(() => {
    const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<{ children: ArrayLike<{ textContent: string }> }> } }).document;
    const out: Record<string, string[]> = {};
    for (const tr of Array.from(doc.querySelectorAll('#stats tr')).slice(1)) {
      const cells = Array.from(tr.children).map((c) => c.textContent);
      out[cells[0]] = cells;
    }
    return out;
  });
}

describe('live dashboard', () => {
  it('updates during a run on the embedded server, turns a concurrency change into a stage, and stops keeping every finished request', async () => {
    if (!browser) return console.warn(NO_CHROMIUM);
    const out = tmpDir();
    const ac = new AbortController();
    const d = await startDashboard({ onStop: () => ac.abort() });
    try {
      const running = run(
        { concurrency: 4, duration: 120, inputTokens: 64, outputTokens: 48, gracePeriod: 60, out, quiet: true, apiKey: 'sk-dashboard-secret-1234' },
        { signal: ac.signal, reporters: [d.reporter], liveLoad: true },
      );
      const { page, errors, offsite } = await openPage(d);
      await page.waitForFunction(() => (globalThis as unknown as W).__tfCharts === 10 && ((globalThis as unknown as W).__tfUpdates ?? 0) > 0, null, { timeout: 20_000 });
      const before = await page.evaluate(() => (globalThis as unknown as W).__tfUpdates ?? 0);
      const t0 = Date.now();
      await page.waitForFunction((n) => ((globalThis as unknown as W).__tfUpdates ?? 0) >= n + 3, before, { timeout: 5000 });
      expect(Date.now() - t0).toBeLessThanOrEqual(5000);
      // The configuration shown is run.json's, with the key redacted.
      expect(await page.textContent('#config')).not.toContain('sk-dashboard-secret-1234');

      await page.fill('#load-value', '8');
      await page.click('#load-apply');
      await page.waitForFunction(() => (globalThis as unknown as W).__tfStage === 1, null, { timeout: 10_000 });
      // Poll until stage 1 has had time to fill up: 8 in flight shown on the page.
      await page.waitForFunction(() => (globalThis as unknown as { document: { getElementById(s: string): { textContent: string } } }).document.getElementById('inflight').textContent === '8', null, { timeout: 20_000 });

      // The embedded server serves /metrics: its queue and KV usage reach the page on the run's time axis.
      await page.waitForFunction(() => (globalThis as unknown as W).__tfLast?.kv_usage_pct != null && (globalThis as unknown as W).__tfLast?.server_running != null, null, { timeout: 10_000 });

      await page.click('#stop');
      const result = await running;
      await page.waitForFunction(() => (globalThis as unknown as W).__tfEnded !== undefined, null, { timeout: 20_000 });
      const table = await statsTable(page);

      const recs = records(out);
      expect(result.summary.run.stopped_reason).toBe('interrupted');
      // Stopping is graceful: the requests in flight finished within the grace period, none was cancelled or lost.
      expect(recs.filter((r) => r.status === 'cancelled')).toEqual([]);
      expect(recs.length).toBe(result.summary.requests.total);
      const stage0 = recs.filter((r) => r.stage === 0);
      const stage1 = recs.filter((r) => r.stage === 1);
      expect(stage0.length + stage1.length).toBe(recs.length);
      expect(stage1.length).toBeGreaterThan(0);
      expect(peakInFlight(recs, 0)).toBeLessThanOrEqual(4);
      expect(peakInFlight(recs, 1)).toBeGreaterThan(peakInFlight(recs, 0));
      // The added streams really went out: none waited for a connection (the pool is not capped at the starting load).
      expect(peakInFlight(recs, 1)).toBeGreaterThanOrEqual(7);
      expect(stage1.filter((r) => r.schedule_lag_ms > 500)).toEqual([]);
      const meta = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8'));
      expect(meta.load_stages.map((s: { concurrency: number }) => s.concurrency)).toEqual([4, 8]);
      expect(result.summary.by_stage?.map((s) => [s.stage, s.concurrency, s.metrics.requests.total])).toEqual([
        [0, 4, stage0.length],
        [1, 8, stage1.length],
      ]);
      // `tokenflood report` rebuilds the same per-stage figures from the records and run.json.
      expect(replaySummary(out).summary.by_stage).toEqual(result.summary.by_stage);

      // The statistics table agrees with the final summary.
      const s = result.summary.requests;
      expect(Number(table.Aggregated[1])).toBe(s.total - s.cancelled);
      expect(Number(table.Aggregated[2])).toBe(s.failed);
      expect(errors).toEqual([]);
      expect(offsite).toEqual([]);
      await page.close();
    } finally {
      ac.abort();
      await d.close();
    }
  }, 90_000);

  it('answers 403 on every endpoint without the right token, and never stops the run for it', async () => {
    let stops = 0;
    const d = await startDashboard({ onStop: () => stops++ });
    try {
      const origin = new URL(d.url).origin;
      const token = new URL(d.url).searchParams.get('token')!;
      expect(token).toMatch(/^[0-9a-f]{32}$/);
      const paths = ['/', '/assets/echarts.js', '/assets/dashboard.js', '/assets/dashboard.css', '/api/events', '/api/state', '/download/stats.csv', '/download/requests.jsonl', '/download/summary.json', '/download/report.html', '/nope'];
      for (const bad of ['', '?token=', `?token=${token.slice(0, -1)}`, `?token=${token}0`, `?token=${token.toUpperCase()}`]) {
        for (const p of paths) expect([p + bad, (await fetch(origin + p + bad)).status]).toEqual([p + bad, 403]);
        for (const p of ['/api/stop', '/api/load'])
          expect([p + bad, (await fetch(origin + p + bad, { method: 'POST', body: '{"concurrency":8}' })).status]).toEqual([p + bad, 403]);
      }
      expect(stops).toBe(0);
      const page = await fetch(d.url);
      expect(page.status).toBe(200);
      const csp = page.headers.get('content-security-policy')!;
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toMatch(/https?:|unsafe-eval|script-src[^;]*unsafe-inline/);
      // With the token, a stop goes through (the run's own Ctrl-C path).
      expect((await fetch(`${origin}/api/stop?token=${token}`, { method: 'POST' })).status).toBe(202);
      expect(stops).toBe(1);
    } finally {
      await d.close();
    }
  });

  it('shows the run\'s --percentiles beyond p50/p90/p99 (p99.9) in the statistics table, from its histograms', async () => {
    const out = tmpDir();
    const d = await startDashboard({ onStop: () => {} });
    try {
      const result = await run({ validate: false, baseUrl: sim.baseUrl, requests: 12, concurrency: 4, inputTokens: 16, outputTokens: 4, percentiles: [50, 99.9], out, quiet: true, serverMetrics: false }, { reporters: [d.reporter], liveLoad: true });
      expect(result.summary.requests.ok).toBe(12);
      if (!browser) return console.warn(NO_CHROMIUM);
      const { page, errors } = await openPage(d);
      await page.waitForFunction(() => (globalThis as unknown as W).__tfEnded !== undefined, null, { timeout: 20_000 });
      const head = await page.evaluate(() => {
        const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<{ textContent: string }> } }).document;
        return Array.from(doc.querySelectorAll('#stats th')).map((c) => c.textContent);
      });
      expect(head.slice(3, 7)).toEqual(['TTFT median', 'TTFT p90', 'TTFT p99', 'TTFT p99.9']);
      expect(head).toContain('E2E p99.9');
      const row = (await statsTable(page)).Aggregated;
      // The histogram's p99.9 lies between its p99 and max (within the histogram's 1% buckets of the exact one).
      const [p99, p999, max] = [row[5], row[6], row[9]].map(Number);
      expect(p999).toBeGreaterThanOrEqual(p99);
      expect(p999).toBeLessThanOrEqual(max * 1.01 + 0.01);
      expect(Math.abs(p999 - result.summary.ttft_ms.max!)).toBeLessThanOrEqual(result.summary.ttft_ms.max! * 0.02 + 0.01);
      // The latency charts draw it after p50 and p99.
      const series = await page.evaluate(() => {
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        const w = globalThis as any;
        return ['c-ttft', 'c-tpot', 'c-itl', 'c-rps'].map((id) => w.echarts.getInstanceByDom(w.document.getElementById(id)).getOption().series.map((x: { name: string }) => x.name));
      });
      expect(series).toEqual([['p50', 'p99', 'p99.9'], ['p50', 'p99', 'p99.9'], ['p50', 'p99', 'p99.9'], ['req/s']]);
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      await d.close();
    }
  }, 60_000);

  it('renders markup from model output, error bodies and the model id as text', async () => {
    const server: ScriptServer = await startScriptServer(
      (_b, n) =>
        n % 2 === 1
          ? { status: 500, headers: { 'content-type': 'text/plain' }, steps: [{ at: 0, write: EVIL }] }
          : {
              steps: [
                { at: 0, write: chatChunk({ role: 'assistant', content: '' }) },
                { at: 2, write: chatChunk({ content: EVIL }) },
                { at: 4, write: usageChunk(8, 2) },
                { at: 4, write: DONE },
              ],
            },
      EVIL_MODEL,
    );
    const out = tmpDir();
    const d = await startDashboard({ onStop: () => {} });
    try {
      const result = await run({ validate: false, baseUrl: server.baseUrl, requests: 8, concurrency: 2, inputTokens: 8, outputTokens: 2, out, quiet: true, serverMetrics: false }, { reporters: [d.reporter], liveLoad: true });
      expect(result.summary.requests.failed).toBe(4);
      if (!browser) return console.warn(NO_CHROMIUM);
      const { page, errors, offsite } = await openPage(d);
      await page.waitForFunction(() => (globalThis as unknown as W).__tfEnded !== undefined, null, { timeout: 20_000 });
      await page.click('button[data-tab="t-failures"]');
      const failures = await page.textContent('#failures');
      expect(failures).toContain(EVIL);
      expect(await page.textContent('#target')).toContain(EVIL_MODEL);
      expect(await page.locator('img').count()).toBe(0);
      expect(await page.evaluate(() => (globalThis as unknown as W).__pwned)).toBeUndefined();
      expect(errors).toEqual([]);
      expect(offsite).toEqual([]);
      await page.close();
    } finally {
      await d.close();
      await server.close();
    }
  }, 60_000);
});

describe.each(['h1', 'undici'] as const)('a live load change over %s', (transport) => {
  it('raises what is in flight: the connection pool is not capped at the starting concurrency', async () => {
    const out = tmpDir();
    let raised = false;
    let control: RunStartEvent['control'];
    const raiser: Reporter = {
      name: 'raiser',
      runStart: (e) => {
        control = e.control;
      },
      record: () => {
        if (!raised && control) (raised = true), control.set({ concurrency: 8 });
      },
    };
    const result = await run({ validate: false, baseUrl: sim.baseUrl, transport, requests: 40, concurrency: 2, inputTokens: 16, outputTokens: 16, out, quiet: true, serverMetrics: false }, { reporters: [raiser], liveLoad: true });
    const recs = records(out);
    expect(result.summary.by_stage?.map((s) => s.concurrency)).toEqual([2, 8]);
    expect(renderSummary(result.summary)).toMatch(/by stage \(live load changes\):\n[^]*\n1 +8 in flight/);
    expect(peakInFlight(recs, 0)).toBeLessThanOrEqual(2);
    expect(peakInFlight(recs, 1)).toBeGreaterThanOrEqual(7);
  }, 60_000);
});

describe('a live rate change', () => {
  it('starts a stage whose arrivals follow the new rate', async () => {
    const out = tmpDir();
    let control: RunStartEvent['control'];
    const raiser: Reporter = {
      name: 'raiser',
      runStart: (e) => void (control = e.control),
      record: () => control?.current.stage === 0 && control.set({ rate: 40 }),
    };
    const result = await run({ validate: false, baseUrl: sim.baseUrl, rate: 10, arrival: 'constant', requests: 40, inputTokens: 16, outputTokens: 8, out, quiet: true, serverMetrics: false }, { reporters: [raiser], liveLoad: true });
    const stage1 = records(out).filter((r) => r.stage === 1).sort((a, b) => a.id - b.id);
    expect(result.summary.by_stage?.map((s) => s.rate)).toEqual([10, 40]);
    const gaps = stage1.slice(2).map((r, i) => r.scheduled_at_ms - stage1[i + 1].scheduled_at_ms);
    expect(gaps.length).toBeGreaterThan(10);
    // Scheduled times are the plan, not when the timers fired: exact to rounding.
    for (const g of gaps) expect(g).toBeCloseTo(25, 1);
  }, 60_000);
});

describe('--ui on the command line', () => {
  it('refuses --ui-port, --ui-host and --open without --ui, and a busy --ui-port, with exit 2 and nothing sent', async () => {
    const { runCli } = await import('./fixtures/cli-harness.js');
    const { registerRun } = await import('../src/cli/run.js');
    const out = tmpDir();
    const r = await runCli(registerRun, ['run', '--ui-port', '8123', '--open', '--requests', '2', '--out', out]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--ui-port, --open: only apply with --ui');
    const busy = await startDashboard({ onStop: () => {} });
    try {
      const r2 = await runCli(registerRun, ['run', '--ui', '--ui-port', String(busy.server.port), '--requests', '2', '--out', out]);
      expect(r2.code).toBe(2);
      expect(r2.err).toContain(`--ui-port: cannot serve the dashboard: port ${busy.server.port} is in use`);
    } finally {
      await busy.close();
    }
    expect(existsSync(join(out, 'requests.jsonl'))).toBe(false);
  });

  it('run --ui and sweep --ui on the embedded server print the URL with its token; a non-loopback --ui-host warns', async () => {
    const { runCli } = await import('./fixtures/cli-harness.js');
    const { registerRun } = await import('../src/cli/run.js');
    const { registerSweep } = await import('../src/cli/sweep.js');
    const url = /live dashboard at (http:\/\/\S+:\d+\/\?token=[0-9a-f]{32})\n/;
    const r = await runCli(registerRun, ['run', '--ui', '--requests', '4', '--concurrency', '2', '--input-tokens', '16', '--output-tokens', '4', '--out', tmpDir(), '--quiet']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/live dashboard at http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{32}\n/);
    expect(r.err).not.toContain('WARNING: --ui-host');
    const s = await runCli(registerSweep, ['sweep', '--ui', '--ui-host', '0.0.0.0', '--concurrency', '1,2', '--requests', '2', '--input-output', '16x4', '--out', tmpDir(), '--quiet']);
    expect(s.code).toBe(0);
    expect(s.out).toMatch(url);
    expect(s.err).toContain('WARNING: --ui-host 0.0.0.0: the dashboard listens beyond this machine');
  }, 60_000);
});

const CLI = join(__dirname, '..', 'dist', 'bin', 'tokenflood.js');

describe.skipIf(!existsSync(CLI))('the stop button in the CLI (needs `npm run build`)', () => {
  it('takes the Ctrl-C path: no new requests, those in flight finish, every record kept, exit 130', async () => {
    const out = join(tmpDir(), 'run');
    const child = spawn(process.execPath, [CLI, 'run', '--ui', '--base-url', sim.baseUrl, '--duration', '60s', '--concurrency', '3', '--input-tokens', '16', '--output-tokens', '32', '--no-server-metrics', '--out', out, '--quiet'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += String(c)));
    child.stderr.on('data', (c) => (stderr += String(c)));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      const until = Date.now() + 20_000;
      while (!existsSync(join(out, 'requests.jsonl')) || readFileSync(join(out, 'requests.jsonl'), 'utf8').split('\n').length < 6) {
        if (Date.now() > until) throw new Error(`no records in time: ${stdout} ${stderr}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      const url = /live dashboard at (\S+)/.exec(stdout)![1];
      const u = new URL(url);
      expect((await fetch(`${u.origin}/api/stop${u.search}`, { method: 'POST' })).status).toBe(202);
      expect(await exited).toBe(130);
    } finally {
      child.kill();
    }
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(summary.run.stopped_reason).toBe('interrupted');
    const recs = records(out);
    expect(recs.length).toBe(summary.requests.total);
    expect(recs.filter((r) => r.status === 'cancelled')).toEqual([]);
  }, 60_000);
});
