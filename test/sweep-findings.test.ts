// Sweep findings that must not mislead: lengths from run flags, client-bound levels, scaled simulated time, interrupted --auto.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { resolveSweepConfig } from '../src/sweep/config.js';
import { runSweep } from '../src/sweep/sweep.js';
import { renderSweep } from '../src/sweep/terminal.js';
import { startSlotServer, type SlotServer } from './fixtures/slot-server.js';
import { checkPage, hasChromium, launch, NO_CHROMIUM } from './fixtures/browser.js';
import { tmpDir } from './helpers.js';


// Burn `ms` of this process's CPU time (not wall time: on a loaded machine the OS may deschedule the loop mid-way,
// and only CPU time is the client's own work); capped at 40x in wall time.
const burnCpu = (ms: number) => {
  const c0 = process.cpuUsage();
  const wallEnd = performance.now() + 40 * ms;
  for (;;) {
    const c = process.cpuUsage(c0);
    if ((c.user + c.system) / 1000 >= ms || performance.now() > wallEnd) return;
  }
};
let server: SlotServer;
let browser: Browser | undefined;
beforeAll(async () => {
  server = await startSlotServer({ slots: 4, tokenMs: 4 });
  if (hasChromium) browser = await launch();
});
afterAll(async () => {
  await server?.close();
  await browser?.close();
});

describe('sweep findings', () => {
  it('records lengths set by run flags (fixed:N) as the pair, and describes a distribution', async () => {
    const out = join(tmpDir(), 'fixed');
    const { doc } = await runSweep(
      resolveSweepConfig({ flags: { concurrency: '1,2', requests: '4', out }, runFlags: { baseUrl: server.baseUrl, inputTokens: 'fixed:16', outputTokens: '8' } }),
    );
    expect(doc.points.map((p) => [p.input_tokens, p.output_tokens, p.lengths])).toEqual([[16, 8, '16x8'], [16, 8, '16x8']]);
    const csv = readFileSync(join(out, 'sweep.csv'), 'utf8').trim().split('\n');
    const cols = csv[0].split(',');
    expect(csv[1].split(',')[cols.indexOf('input_tokens')]).toBe('16');
    expect(csv[1].split(',')[cols.indexOf('output_tokens')]).toBe('8');
    expect(doc.points[0].output_tokens_mean).toBe(8);

    const out2 = join(tmpDir(), 'dist');
    const { doc: dist } = await runSweep(
      resolveSweepConfig({ flags: { concurrency: '1,2', requests: '4', out: out2 }, runFlags: { baseUrl: server.baseUrl, inputTokens: 'uniform:10,20', outputTokens: '8' } }),
    );
    expect(dist.points[0].lengths).toBe('in uniform:10,20 out 8');
    expect(dist.configured_lengths).toBe('in uniform:10,20 out 8');
    // One table line per point, the lengths in the "in x out" column.
    expect(renderSweep(dist).split('\n').filter((l) => /^[12] +in uniform:10,20 out 8 +4\/4 /.test(l))).toHaveLength(2);
    if (!browser) return console.warn(NO_CHROMIUM);
    const page = await checkPage(browser, join(out, 'report.html'));
    expect(page.errors).toEqual([]);
    expect(page.text).not.toMatch(/0×0/);
    expect(page.text).toMatch(/16x8/);
  });

  it('marks a level where the client was the bottleneck, in the row, the findings and the warnings', async () => {
    const out = join(tmpDir(), 'cb');
    let blocker: NodeJS.Timeout | undefined;
    // Block the event loop with 30 ms of CPU work every 40 ms while level 2 runs: its timings then include client time.
    const { doc } = await runSweep(
      resolveSweepConfig({ flags: { concurrency: '1,2,4', requests: '8', out }, runFlags: { baseUrl: server.baseUrl, inputTokens: 16, outputTokens: 8 } }),
      {
        hooks: {
          onPointStart: (p) => {
            if (p.load === 2)
              blocker = setInterval(() => burnCpu(30), 40);
          },
          onPointDone: () => clearInterval(blocker),
        },
      },
    );
    const c2 = doc.points.find((p) => p.load === 2)!;
    expect(c2.client_bound).toBe(true);
    expect(doc.insights[0].client_bound_levels).toContain(2);
    expect(doc.insights[0].statements.join('\n')).toMatch(/CLIENT-BOUND at [^:]*concurrency 2/);
    expect(doc.warnings.join('\n')).toMatch(/CLIENT-BOUND at [^:]*c2-in16-out8/);
    expect(renderSweep(doc)).toMatch(/WARNING: CLIENT-BOUND/);
    const csv = readFileSync(join(out, 'sweep.csv'), 'utf8').trim().split('\n');
    expect(csv[2].split(',')[csv[0].split(',').indexOf('client_bound')]).toBe('true');
  });

  it('warns on every output when the embedded simulated server runs time-scaled', async () => {
    const out = join(tmpDir(), 'scaled');
    const { doc } = await runSweep(
      resolveSweepConfig({ flags: { concurrency: '1,2', requests: '4', simTimeScale: '20', simMaxNumSeqs: '4', out }, runFlags: { inputTokens: 32, outputTokens: 8 } }),
    );
    expect(doc.sim_time_scale).toBe(20);
    expect(doc.warnings.join('\n')).toMatch(/20x faster than real time/);
    expect(renderSweep(doc)).toMatch(/^WARNING: simulated server running 20x faster than real time/);
    expect(JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8')).warnings).toEqual(doc.warnings);
    if (!browser) return console.warn(NO_CHROMIUM);
    const page = await checkPage(browser, join(out, 'report.html'));
    expect(page.errors).toEqual([]);
    expect(page.text).toMatch(/20x faster than real time/);
  });

  it('an interrupted --auto sweep says so and recommends nothing', async () => {
    const out = join(tmpDir(), 'auto-int');
    const ac = new AbortController();
    let done = 0;
    const { doc } = await runSweep(
      resolveSweepConfig({ flags: { auto: true, requests: '6', out }, runFlags: { baseUrl: server.baseUrl, inputTokens: 16, outputTokens: 8 } }),
      { signal: ac.signal, hooks: { onPointDone: () => ++done === 2 && ac.abort() } },
    );
    expect(doc.interrupted).toBe(true);
    expect(doc.points.map((p) => p.load)).toEqual([1, 2]);
    expect(doc.insights[0].recommended).toBeNull();
    expect(doc.insights[0].statements.join('\n')).toMatch(/Interrupted: no recommendation/);
    expect(doc.auto_stop?.['16x8']).toMatch(/interrupted/);
    expect(renderSweep(doc)).not.toMatch(/Recommended operating point/);
  });
});
