// Take docs/img/dashboard.png: a real run on the embedded server with the dashboard open in headless Chromium.
// Usage: npm run build && node scripts/dashboard-screenshot.mjs [out.png]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { run } from '../dist/run.js';
import { startDashboard } from '../dist/ui/dashboard.js';

const file = process.argv[2] ?? new URL('../docs/img/dashboard.png', import.meta.url).pathname;
const out = mkdtempSync(join(tmpdir(), 'tokenflood-shot-'));
const ac = new AbortController();
const dash = await startDashboard({ onStop: () => ac.abort() });
const running = run({ concurrency: 4, duration: 120, inputTokens: 256, outputTokens: 96, out, quiet: true, gracePeriod: 30 }, { signal: ac.signal, reporters: [dash.reporter], liveLoad: true });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] });
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 1000 }, deviceScaleFactor: 1 });
  await page.goto(dash.url, { waitUntil: 'load' });
  const ticks = (n) => page.waitForFunction((k) => (globalThis.__tfUpdates ?? 0) >= k, n, { timeout: 60_000 });
  await ticks(8);
  // A live change, as a user would make it: concurrency 4 → 12 starts stage 1.
  await page.fill('#load-value', '12');
  await page.click('#load-apply');
  await ticks(20);
  await page.screenshot({ path: file, fullPage: true });
  console.log(`wrote ${file}`);
} finally {
  ac.abort();
  await running.catch(() => {});
  await browser.close();
  await dash.close();
  rmSync(out, { recursive: true, force: true });
}
