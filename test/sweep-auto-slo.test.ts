// `sweep --auto --slo` against a sim server with max-num-seqs 8: bisection finds the exhaustive grid's answer in fewer runs.
import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { registerSweep } from '../src/cli/sweep.js';
import { startSimServer } from '../src/sim/server.js';
import { renderSweep } from '../src/sweep/terminal.js';
import type { SweepDoc } from '../src/report/sweep-model.js';
import { describeMiss, type SloSearchReport } from '../src/report/auto-search-model.js';
import { checkPage, hasChromium, launch, NO_CHROMIUM } from './fixtures/browser.js';
import { runCli } from './fixtures/cli-harness.js';
import { tmpDir } from './helpers.js';

// 80 output tokens: a request holds its slot ≥ ~500 ms, longer than the 300 ms a point sends for, so each point is
// one wave of exactly `concurrency` requests. Up to 8, each starts at once: TTFT is one prefill step (~5–50 ms); from
// 9 on, the requests past 8 wait for the first 8 to finish: TTFT p99 ≥ ~500 ms (a loaded machine only lengthens it).
// A 400 ms limit leaves ~350 ms on the low side for the stalls of a loaded machine (up to ~250 ms seen).
const SLO = 'ttft_p99=400ms';
const MAX = 12;

describe('sweep --auto --slo against tokenflood serve --max-num-seqs 8', () => {
  it('finds a concurrency within one step of an exhaustive 1..12 grid, in fewer runs, and says how', async () => {
    const sim = await startSimServer({ maxNumSeqs: 8 });
    const dir = tmpDir();
    const common = ['--base-url', sim.baseUrl, '--input-tokens', '32', '--output-tokens', '80', '--duration', '300ms', '--slo', SLO, '--json', '--quiet'];
    try {
      const levels = Array.from({ length: MAX }, (_, i) => i + 1).join(',');
      const g = await runCli(registerSweep, ['sweep', ...common, '--concurrency', levels, '--out', join(dir, 'grid')]);
      expect(g.code, g.err).toBe(0);
      const grid = JSON.parse(g.out) as SweepDoc;
      const a = await runCli(registerSweep, ['sweep', ...common, '--auto', '--max-concurrency', String(MAX), '--out', join(dir, 'auto')]);
      expect(a.code, a.err).toBe(0);
      const auto = JSON.parse(a.out) as SweepDoc;

      const gridAnswer = grid.insights[0].max_load_meeting_slo;
      const verdicts = (d: SweepDoc) => d.points.map((p) => `${p.load}:${p.slo_passed ? 'ok' : 'FAIL'}(${p.ttft_p99_ms?.toFixed(0)})`).join(' ');
      const why = `grid ${verdicts(grid)}; auto ${verdicts(auto)}`;
      expect(gridAnswer, why).not.toBeNull();
      const search = auto.auto_search?.['32x80'] as SloSearchReport;
      expect(search.goal).toBe('slo');
      const [pass, fail] = search.bracket;
      // The Done-when conditions: within one step of the grid's answer, in fewer runs.
      expect(Math.abs(pass! - gridAnswer!), why).toBeLessThanOrEqual(1);
      expect(search.runs, why).toBeLessThan(grid.points.length);

      // Reported: runs (each one a point, none measured twice), the bracket, the precision reached against the target.
      expect(search.runs).toBe(auto.points.length);
      const loads = search.steps.map((s) => s.load);
      expect(new Set(loads).size).toBe(loads.length);
      expect(fail).toBe(pass! + 1);
      expect(search.precision_target).toEqual({ kind: 'absolute', value: 1 });
      expect(search.precision_reached).toEqual({ absolute: 1, relative: 1 / pass! });
      expect(search.converged).toBe(true);
      expect(search.stop).toBe('precision');
      // Each run: its verdict is its point's, and a failing run says which objective it missed and by how much.
      for (const step of search.steps) {
        const row = auto.points.find((p) => p.name === step.point)!;
        expect(step.passed).toBe(row.slo_passed);
        if (step.passed) expect(step.failed).toEqual([]);
        else {
          const miss = step.failed.find((f) => f.name === 'ttft_p99')!;
          expect(miss.actual).toBeCloseTo(row.ttft_p99_ms!, 6);
          expect(miss.limit).toBe(400);
          expect(miss.excess).toBeCloseTo((row.ttft_p99_ms! - 400) / 400, 6);
        }
      }
      expect(JSON.parse(readFileSync(join(dir, 'auto', 'sweep.json'), 'utf8')).auto_search).toEqual(auto.auto_search);
      const text = renderSweep(auto);
      expect(text).toContain(`highest load meeting the SLOs: concurrency ${pass}; lowest failing: concurrency ${fail} — ttft_p99 `);
      expect(text).toContain(`bracket [${pass}, ${fail}], width 1 (${((1 / pass!) * 100).toFixed(1)}%), target 1 reached; ${search.runs} runs`);
      expect(text).toMatch(new RegExp(`${search.runs}\\. concurrency ${search.steps.at(-1)!.load}: (pass|FAIL ttft_p99 \\d+ ms > 400 ms \\(\\d+\\.\\d% over\\))`));

      // report.html lists the same runs, each with its verdict and misses, and the bracket and precision, rendered in Chromium.
      if (!hasChromium) return console.warn(NO_CHROMIUM);
      const browser = await launch();
      try {
        const page = await checkPage(browser, join(dir, 'auto', 'report.html'));
        expect(page.errors).toEqual([]);
        expect(page.network).toEqual([]);
        const shown = page.text.slice(page.text.indexOf('Auto search, run by run'));
        expect(shown).toContain(`bracket [${pass}, ${fail}]`);
        expect(shown).toContain(`precision reached 1.00 (${((1 / pass!) * 100).toFixed(1)}% of the highest passing load), target 1; converged; stopped by precision; ${search.runs} runs`);
        const lines = shown.split('\n');
        for (const [i, step] of search.steps.entries()) {
          const line = lines.find((l) => l.startsWith(`${i + 1}\t${step.point}\t`));
          expect(line, `run ${i + 1}`).toBeDefined();
          expect(line).toContain(`concurrency ${step.load}`);
          expect(line).toContain(step.passed ? 'pass' : `FAIL\t${step.failed.map(describeMiss).join('; ')}`);
        }
      } finally {
        await browser.close();
      }
    } finally {
      await sim.close();
    }
  }, 90_000);
});
