// The dashboard's cost to the measurement: the same run with and without --ui (headless Chromium attached), TTFT p99 both ways.
// Usage: npm run bench:dashboard [-- --runs 3 --concurrency 16 --requests 320]
import { fork } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { run } from '../dist/run.js';
import { startDashboard } from '../dist/ui/dashboard.js';

const { values: a } = parseArgs({ options: { runs: { type: 'string', default: '3' }, concurrency: { type: 'string', default: '16' }, requests: { type: 'string', default: '320' } } });
const RUNS = Number(a.runs);
const CHROMIUM = '/usr/bin/chromium';

/** The sim server in its own process, so its engine loop does not share the client's event loop. */
function startServer() {
  const child = fork(new URL('./dashboard-server.mjs', import.meta.url), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.on('message', (m) => resolve({ baseUrl: `http://127.0.0.1:${m.port}/v1`, stop: () => child.kill() }));
    child.on('exit', (code) => reject(new Error(`sim server exited with ${code}`)));
  });
}

async function once(baseUrl, ui, browser) {
  const out = mkdtempSync(join(tmpdir(), 'tokenflood-bench-dash-'));
  let dash;
  let page;
  const reporters = [];
  if (ui) {
    dash = await startDashboard({ onStop: () => {} });
    reporters.push(dash.reporter);
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.goto(dash.url, { waitUntil: 'load' });
  }
  try {
    const r = await run({ baseUrl, concurrency: Number(a.concurrency), requests: Number(a.requests), inputTokens: 256, outputTokens: 64, out, quiet: true, serverMetrics: false }, { reporters, liveLoad: ui });
    const updates = page ? await page.evaluate(() => globalThis.__tfUpdates ?? 0) : null;
    return { ui, ttft_p50_ms: r.summary.ttft_ms.p50, ttft_p99_ms: r.summary.ttft_ms.p99, e2e_p99_ms: r.summary.e2e_ms.p99, req_s: r.summary.request_throughput, client_bound: r.summary.client?.client_bound ?? null, loop_delay_p99_ms: r.summary.client?.event_loop_delay_ms?.p99 ?? null, page_updates: updates };
  } finally {
    await page?.close();
    await dash?.close();
    rmSync(out, { recursive: true, force: true });
  }
}

const server = await startServer();
let browser;
if (existsSync(CHROMIUM)) {
  const { chromium } = await import('playwright-core');
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] });
} else console.error(`${CHROMIUM} missing: the --ui runs have no browser attached`);
const rows = [];
try {
  await once(server.baseUrl, false, browser); // warm-up: JIT, connections, the sim's caches
  for (let i = 0; i < RUNS; i++) for (const ui of i % 2 ? [true, false] : [false, true]) rows.push(await once(server.baseUrl, ui, browser));
} finally {
  await browser?.close();
  server.stop();
}
const f = (x) => (x === null || x === undefined ? '-' : x.toFixed(1));
console.log('ui   TTFT p50  TTFT p99  E2E p99   req/s  loop p99  client_bound  page updates');
for (const r of rows) console.log(`${r.ui ? 'on ' : 'off'}  ${f(r.ttft_p50_ms).padStart(8)}  ${f(r.ttft_p99_ms).padStart(8)}  ${f(r.e2e_p99_ms).padStart(7)}  ${f(r.req_s).padStart(6)}  ${f(r.loop_delay_p99_ms).padStart(8)}  ${String(r.client_bound).padStart(12)}  ${String(r.page_updates ?? '-').padStart(12)}`);
const med = (v) => [...v].sort((x, y) => x - y)[Math.floor((v.length - 1) / 2)];
for (const ui of [false, true]) {
  const p99 = rows.filter((r) => r.ui === ui).map((r) => r.ttft_p99_ms);
  console.log(`--ui ${ui ? 'on ' : 'off'}: TTFT p99 median ${f(med(p99))} ms, range ${f(Math.min(...p99))}–${f(Math.max(...p99))} ms over ${p99.length} runs`);
}
console.log(JSON.stringify({ concurrency: Number(a.concurrency), requests: Number(a.requests), rows }));
