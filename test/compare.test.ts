// `tokenflood compare`: a slower server is a regression (exit 1); a rerun of the same settings is within threshold.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { run } from '../src/run.js';
import { registerCompare } from '../src/cli/compare.js';
import { registerSweep } from '../src/cli/sweep.js';
import { startSlotServer, type SlotServer } from './fixtures/slot-server.js';
import { checkPage, hasChromium, launch, NO_CHROMIUM } from './fixtures/browser.js';
import { runCli } from './fixtures/cli-harness.js';
import { tmpDir } from './helpers.js';

let fast: SlotServer;
let slow: SlotServer;
let browser: Browser | undefined;
beforeAll(async () => {
  fast = await startSlotServer({ slots: 4, tokenMs: 20 });
  slow = await startSlotServer({ slots: 4, tokenMs: 40 });
  if (hasChromium) browser = await launch();
});
afterAll(async () => {
  await fast?.close();
  await slow?.close();
  await browser?.close();
});

const runOn = async (s: SlotServer) => {
  const out = tmpDir();
  await run({ validate: false, baseUrl: s.baseUrl, concurrency: 4, requests: 24, warmup: 4, inputTokens: 16, outputTokens: 8, out, quiet: true });
  return out;
};

describe('compare runs', () => {
  it('flags the slower server and exits 1; a rerun passes', async () => {
    await runOn(fast); // warm-up: the first run in a process pays for JIT and tokenizer loading
    const [base, rerun, slower] = [await runOn(fast), await runOn(fast), await runOn(slow)];
    const bad = await runCli(registerCompare, ['compare', base, slower, '--fail-on', 'output_throughput,e2e_p50', '--json']);
    expect(bad.code).toBe(1);
    const doc = JSON.parse(bad.out);
    expect(doc.failed).toBe(true);
    const deltas = doc.comparisons[0].points[0].deltas as { metric: string; regressed: boolean; relative: number }[];
    const by = Object.fromEntries(deltas.map((d) => [d.metric, d]));
    expect(by.output_throughput.regressed).toBe(true);
    expect(by.output_throughput.relative).toBeLessThan(-0.25);
    expect(by.tpot_p50.regressed).toBe(true);
    expect(by.error_rate.regressed).toBe(false);
    expect(existsSync(doc.html)).toBe(true);

    // A loaded 2-core CI box can stall a run by tens of ms, so the rerun gate uses robust metrics and a 15% threshold.
    const ok = await runCli(registerCompare, ['compare', base, rerun, '--threshold', '15', '--fail-on', 'output_throughput,e2e_p50,tpot_p50', '--html', join(rerun, 'cmp.html')]);
    expect(ok.code, ok.out).toBe(0);
    expect(ok.out).toMatch(/passed: no --fail-on metric/);
    expect(ok.out).toMatch(/output throughput \(tok\/s\)\s+higher/);

    const usage = await runCli(registerCompare, ['compare', base, rerun, '--fail-on', 'ttft_p42']);
    expect(usage.code).toBe(2);
    expect(usage.err).toMatch(/unknown metric "ttft_p42"/);

    if (!browser) return console.warn(NO_CHROMIUM);
    const page = await checkPage(browser, doc.html);
    expect(page.errors).toEqual([]);
    expect(page.charts).toBe(3);
    expect(page.drawn).toBe(page.canvases);
  });
});

describe('compare against the embedded engine model', () => {
  it('the same model on a smaller GPU is flagged as a regression (exit 1)', async () => {
    const { startSimServer } = await import('../src/sim/server.js');
    // Real time (scale 1): at a faster scale a decode step lasts ~2 ms of wall time, and timers firing a few ms late
    // on a loaded machine would swamp the 2x difference under test.
    const h100 = await startSimServer({ gpu: 'h100', timeScale: 1 });
    const a100 = await startSimServer({ gpu: 'a100-40gb', timeScale: 1 });
    try {
      const go = async (baseUrl: string) => {
        const out = tmpDir();
        // Two rounds of 8 in lockstep: every round has the same TPOT, so more rounds would not move tpot_p50.
        await run({ validate: false, baseUrl, concurrency: 8, requests: 16, inputTokens: 512, outputTokens: 32, out, quiet: true });
        return out;
      };
      const [base, cand] = [await go(h100.baseUrl), await go(a100.baseUrl)];
      const r = await runCli(registerCompare, ['compare', base, cand, '--fail-on', 'tpot_p50,output_throughput', '--json', '--no-html']);
      expect(r.code).toBe(1);
      const deltas = JSON.parse(r.out).comparisons[0].points[0].deltas as { metric: string; regressed: boolean; relative: number }[];
      const by = Object.fromEntries(deltas.map((d) => [d.metric, d]));
      expect(by.tpot_p50.regressed).toBe(true);
      expect(by.tpot_p50.relative).toBeGreaterThan(0.5); // A100-40GB decodes about 2x slower than H100
    } finally {
      await h100.close();
      await a100.close();
    }
  });
});

describe('compare sweeps', () => {
  it('compares point by point through the sweep CLI', async () => {
    // The two sweeps are independent (one server each, 2x apart in token time), so they run side by side.
    const dirs = await Promise.all(
      [fast, slow].map(async (s) => {
        const out = join(tmpDir(), 'sweep');
        const r = await runCli(registerSweep, ['sweep', '--no-validate', '--base-url', s.baseUrl, '--concurrency', '1,4', '--requests', '8', '--input-output', '16x8', '--out', out, '--json', '--quiet']);
        expect(r.code).toBe(0);
        expect(JSON.parse(r.out).points).toHaveLength(2);
        return out;
      }),
    );
    const res = await runCli(registerCompare, ['compare', dirs[0], dirs[1], '--fail-on', 'all', '--json']);
    expect(res.code).toBe(1);
    const doc = JSON.parse(res.out);
    expect(doc.comparisons[0].kind).toBe('sweep');
    expect(doc.comparisons[0].points.map((p: { point: string }) => p.point)).toEqual(['concurrency 1, 16x8', 'concurrency 4, 16x8']);
    expect(doc.failures.some((f: { metric: string }) => f.metric === 'output_throughput')).toBe(true);
    if (!browser) return console.warn(NO_CHROMIUM);
    const page = await checkPage(browser, doc.html);
    expect(page.errors).toEqual([]);
    expect(page.charts).toBe(4);
    expect(page.drawn).toBe(page.canvases);
  });
});

/** The chart options embedded in a report page (the JSON the boot script hands to ECharts). */
const chartData = (html: string): Record<string, { series: { name: string; lineStyle?: { type?: string } }[] }> =>
  JSON.parse(/<script type="application\/json" id="tf-data">([\s\S]*?)<\/script>/.exec(html)![1]);

describe('compare warns when the inputs differ in kind', () => {
  it('time scale 5 vs 20: a warning in the terminal, the JSON and compare.html; the baseline is drawn dashed as the legend says', async () => {
    const { startSimServer } = await import('../src/sim/server.js');
    const s5 = await startSimServer({ timeScale: 5 });
    const s20 = await startSimServer({ timeScale: 20 });
    try {
      const go = async (baseUrl: string) => {
        const out = tmpDir();
        await run({ validate: false, baseUrl, concurrency: 4, requests: 8, inputTokens: 64, outputTokens: 16, out, quiet: true });
        return out;
      };
      const [base, cand] = await Promise.all([go(s5.baseUrl), go(s20.baseUrl)]); // only the warnings are compared: no timing at stake
      const json = await runCli(registerCompare, ['compare', base, cand, '--json']);
      expect(json.code).toBe(0);
      const doc = JSON.parse(json.out);
      expect(doc.warnings).toHaveLength(1);
      expect(doc.warnings[0]).toMatch(/time scale differs: baseline 5x real time, candidate 20x real time/);
      expect(doc.comparisons[0].warnings).toEqual([doc.warnings[0].slice(cand.length + 2)]);
      const text = await runCli(registerCompare, ['compare', base, cand, '--no-html']);
      expect(text.out).toMatch(/WARNING: these inputs differ in kind[^\n]*\n  - time scale differs/);

      const html = readFileSync(doc.html, 'utf8');
      const charts = chartData(html);
      for (const id of ['cmp-ttft', 'cmp-tpot', 'cmp-e2e']) {
        expect(charts[id].series[0].lineStyle?.type, id).toBe('dashed');
        expect(charts[id].series[1].lineStyle?.type, id).not.toBe('dashed');
      }
      if (!browser) return console.warn(NO_CHROMIUM);
      const page = await checkPage(browser, doc.html);
      expect(page.errors).toEqual([]);
      expect(page.text).toMatch(/Baseline \(dashed\)/);
      expect(page.text).toMatch(/time scale differs/);
    } finally {
      await s5.close();
      await s20.close();
    }
  });

  it('a fixed-length run against a mix: workload differs; the same settings give no warning', async () => {
    const go = async (lengths: Record<string, unknown>) => {
      const out = tmpDir();
      await run({ validate: false, baseUrl: fast.baseUrl, concurrency: 4, requests: 8, ...lengths, out, quiet: true });
      return out;
    };
    // Only the workload descriptions are compared, so the three runs go side by side.
    const [fixed, again, mix] = await Promise.all([go({ inputTokens: 16, outputTokens: 8 }), go({ inputTokens: 16, outputTokens: 8 }), go({ mix: 'a: 50% in 16 out 8; b: 50% in 64 out 8' })]);
    const r = await runCli(registerCompare, ['compare', fixed, mix, again, '--json', '--no-html']);
    const doc = JSON.parse(r.out);
    expect(doc.comparisons[0].warnings.join('\n')).toMatch(/workload differs: baseline "synthetic input 16 output 8", candidate "synthetic mix \(a 0\.5 in 16 out 8; b 0\.5 in 64 out 8\)"/);
    expect(doc.comparisons[1].warnings).toEqual([]);
    expect(doc.warnings).toHaveLength(1);
  });
});

describe('compare a sweep whose server died', () => {
  it('does not compare the points that did not run (no false regression), and lists them', async () => {
    const dying = await startSlotServer({ slots: 4, tokenMs: 20, dieAfter: 8 });
    try {
      // Independent sweeps on their own servers: side by side.
      const dirs = await Promise.all(
        [fast, dying].map(async (s) => {
          const out = join(tmpDir(), 'sweep');
          await runCli(registerSweep, ['sweep', '--no-validate', '--base-url', s.baseUrl, '--concurrency', '1,2,4', '--requests', '4', '--input-output', '16x8', '--out', out, '--json', '--quiet']);
          return out;
        }),
      );
      const res = await runCli(registerCompare, ['compare', dirs[0], dirs[1], '--threshold', '50', '--fail-on', 'output_throughput', '--json', '--no-html']);
      const doc = JSON.parse(res.out);
      expect(doc.comparisons[0].points.map((p: { point: string }) => p.point)).toEqual(['concurrency 1, 16x8', 'concurrency 2, 16x8']);
      expect(doc.comparisons[0].unmatched).toEqual(['concurrency 4, 16x8 (did not run in the candidate)']);
      expect(doc.failures.filter((f: { point: string }) => f.point.startsWith('concurrency 4'))).toEqual([]);
    } finally {
      await dying.close();
    }
  });
});
