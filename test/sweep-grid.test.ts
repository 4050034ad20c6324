// Grid sweeps end to end: 3 input lengths × 4 concurrencies against the embedded server, heatmaps rendered in Chromium.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { registerSweep } from '../src/cli/sweep.js';
import { runCli } from './fixtures/cli-harness.js';
import { hasChromium, launch, NO_CHROMIUM } from './fixtures/browser.js';
import { tmpDir } from './helpers.js';

let browser: Browser | undefined;
beforeAll(async () => {
  if (hasChromium) browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const INPUTS = [16, 32, 64];
const LEVELS = [1, 2, 4, 8];
const FAST = ['--sim-time-scale', '100', '--sim-max-num-seqs', '4', '--quiet'];

interface HeatInfo {
  id: string;
  cells: number;
  xName: string;
  yName: string;
  xData: string[];
  yData: string[];
  painted: boolean;
}

/** Open the sweep report and read every heatmap's ECharts option (cells, axis names) and whether its canvas is painted. */
async function heatmapsOf(b: Browser, file: string): Promise<{ errors: string[]; heat: HeatInfo[]; charts: number }> {
  const page = await b.newPage({ viewport: { width: 1280, height: 900 } });
  const errors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(e.message));
  await page.route('**/*', (r) => (r.request().url().startsWith('file:') ? r.continue() : r.abort()));
  await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
  await page.waitForFunction(() => (globalThis as unknown as { __tokenfloodCharts?: number }).__tokenfloodCharts !== undefined, null, { timeout: 30_000 });
  const res = await page.evaluate(() => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const w = globalThis as any;
    const els: any[] = [...w.document.querySelectorAll('[id^="s-heat-"]')];
    const heat = els.map((el) => {
      const o = w.echarts.getInstanceByDom(el).getOption();
      const c = el.querySelector('canvas');
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let painted = 0;
      for (let i = 3; i < d.length; i += 28) if (d[i] > 0) painted++;
      return { id: el.id, cells: o.series[0].data.length, xName: o.xAxis[0].name, yName: o.yAxis[0].name, xData: o.xAxis[0].data, yData: o.yAxis[0].data, painted: painted > 500 };
    });
    return { heat, charts: w.__tokenfloodCharts };
  });
  await page.close();
  return { errors, ...res };
}

describe('grid sweep against the embedded server', () => {
  it('a seed-workflow grid file of 3 input lengths × 4 concurrencies: 12 points, 12 csv rows, 5 heatmaps of 12 cells with labelled axes', async () => {
    const dir = tmpDir();
    const grid = join(dir, 'combos.yaml');
    // The seed workflow's shape, unchanged: a YAML list of {input_len, output_len, concurrency, num_prompts}.
    writeFileSync(grid, INPUTS.flatMap((i) => LEVELS.map((c) => `- {input_len: ${i}, output_len: 4, concurrency: ${c}, num_prompts: ${Math.max(4, c)}}`)).join('\n') + '\n');
    const out = join(dir, 'sweep');
    const r = await runCli(registerSweep, ['sweep', '--grid', grid, ...FAST, '--out', out, '--json']);
    expect(r.code, r.err).toBe(0);
    const doc = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8'));
    expect(doc.points).toHaveLength(12);
    for (const p of doc.points) {
      expect(existsSync(join(out, p.dir, 'summary.json')), p.dir).toBe(true);
      expect(p.ok).toBe(p.requests);
    }
    expect(new Set(doc.points.map((p: { dir: string }) => p.dir)).size).toBe(12);
    const csv = readFileSync(join(out, 'sweep.csv'), 'utf8').trim().split('\n');
    expect(csv).toHaveLength(13);
    const cols = csv[0].split(',');
    const pairs = csv.slice(1).map((l) => `${l.split(',')[cols.indexOf('input_tokens')]}x${l.split(',')[cols.indexOf('output_tokens')]}:${l.split(',')[cols.indexOf('concurrency')]}`);
    expect(pairs.sort()).toEqual(INPUTS.flatMap((i) => LEVELS.map((c) => `${i}x4:${c}`)).sort());
    // Insights per slice: one group per input/output pair, each over the 4 levels.
    expect(doc.insights.map((g: { lengths: string; levels: number[] }) => [g.lengths, g.levels])).toEqual(INPUTS.map((i) => [`${i}x4`, LEVELS]));

    if (!browser) return console.warn(NO_CHROMIUM);
    const page = await heatmapsOf(browser, join(out, 'report.html'));
    expect(page.errors).toEqual([]);
    // The 3 sweep-wide charts, 4 per slice and the 5 heatmaps.
    expect(page.charts).toBe(3 + 4 * 3 + 5);
    expect(page.heat.map((h) => h.id).sort()).toEqual(['s-heat-error_rate', 's-heat-goodput_tok_s', 's-heat-output_throughput', 's-heat-tpot_p99_ms', 's-heat-ttft_p99_ms']);
    for (const h of page.heat) {
      expect(h.cells, h.id).toBe(12);
      expect(h.xName).toBe('concurrency (requests in flight)');
      expect(h.yName).toBe('input length (tokens)');
      expect(h.xData).toEqual(LEVELS.map(String));
      expect(h.yData).toEqual(INPUTS.map(String));
      expect(h.painted, h.id).toBe(true);
    }
  }, 120_000);

  it('the same grid from flags (--input-tokens LIST × --concurrency LIST); a bad grid file is exit 2 with nothing written', async () => {
    const dir = tmpDir();
    const out = join(dir, 'flags');
    // A generous SLO: every point is graded, in sweep.json, sweep.csv, the terminal and the report.
    const r = await runCli(registerSweep, ['sweep', '--input-tokens', '16,32', '--output-tokens', '4', '--concurrency', '1,2', '--requests', '4', '--slo', 'e2e_p99=60s', ...FAST, '--out', out]);
    expect(r.code, r.err).toBe(0);
    const doc = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8'));
    expect(doc.points.map((p: { name: string }) => p.name)).toEqual(['c1-in16-out4', 'c2-in16-out4', 'c1-in32-out4', 'c2-in32-out4']);
    expect(doc.points.map((p: { grade: string }) => p.grade)).toEqual(['A', 'A', 'A', 'A']);
    expect(doc.points[0].slo_worst_metric).toBe('e2e_p99');
    expect(doc.insights.map((g: { grades: { name: string; grade: string }[] }) => g.grades.map((x) => `${x.name}:${x.grade}`))).toEqual([
      ['c1-in16-out4:A', 'c2-in16-out4:A'],
      ['c1-in32-out4:A', 'c2-in32-out4:A'],
    ]);
    const csv = readFileSync(join(out, 'sweep.csv'), 'utf8').trim().split('\n');
    expect(csv.slice(1).map((l) => l.split(',')[csv[0].split(',').indexOf('grade')])).toEqual(['A', 'A', 'A', 'A']);
    // The terminal shows each slice's findings under its pair, with the grades naming the points.
    expect(r.out).toMatch(/^16x4:$/m);
    expect(r.out).toMatch(/^32x4:$/m);
    expect(r.out).toMatch(/Grades from SLO margins .*: c1-in32-out4 A \(e2e_p99 at \d+% of its limit\), c2-in32-out4 A/);
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).toContain('id="s-heat-output_throughput"');
    expect(html).toContain('Grades from SLO margins');

    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, '- {input_len: 16, output_len: 4, concurrency: 1, num_prompts: 4}\n- {input_len: 16, output_len: 4, concurrency: two, num_prompts: 4}\n');
    const badOut = join(dir, 'bad-out');
    const b = await runCli(registerSweep, ['sweep', '--grid', bad, ...FAST, '--out', badOut]);
    expect(b.code).toBe(2);
    expect(b.err).toContain(`--grid ${bad}: points[1] (point 2): concurrency: expected a positive whole number, got "two"`);
    expect(existsSync(badOut)).toBe(false);
  }, 60_000);
});
