// `sweep --auto --then-grid`: the SLO search finds the knee, then a grid around it runs in the same sweep directory.
import { describe, it, expect } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { registerSweep } from '../src/cli/sweep.js';
import { startSimServer } from '../src/sim/server.js';
import type { SweepDoc } from '../src/report/sweep-model.js';
import type { SloSearchReport } from '../src/report/auto-search-model.js';
import { gridLoads } from '../src/sweep/then-grid.js';
import { runCli } from './fixtures/cli-harness.js';
import { tmpDir } from './helpers.js';

describe('sweep --auto --then-grid', () => {
  it('runs knee × 0.5…1.5 after the search, reusing loads it measured, in one sweep.json', async () => {
    // As in sweep-auto-slo.test.ts: max-num-seqs 8 puts the SLO knee at about concurrency 8.
    const sim = await startSimServer({ maxNumSeqs: 8 });
    const out = join(tmpDir(), 'sweep');
    try {
      const r = await runCli(registerSweep, ['sweep', '--base-url', sim.baseUrl, '--input-tokens', '32', '--output-tokens', '80', '--duration', '300ms', '--slo', 'ttft_p99=400ms', '--auto', '--then-grid', '--max-concurrency', '12', '--json', '--quiet', '--out', out]);
      expect(r.code, r.err).toBe(0);
      const doc = JSON.parse(r.out) as SweepDoc;
      const g = doc.then_grid!['32x80'];
      const search = doc.auto_search!['32x80'] as SloSearchReport;
      expect(g.knee_from).toBe('slo_search');
      expect(g.knee).toBe(search.bracket[0]);
      expect(g.loads).toEqual(gridLoads(g.knee!, 'concurrency', 12));
      const searched = new Set(search.steps.map((s) => s.load));
      expect(g.reused).toEqual(g.loads.filter((l) => searched.has(l)));
      // Every grid load is a point of the one sweep; the new ones are marked as the grid's.
      for (const l of g.loads) expect(doc.points.some((p) => p.load === l)).toBe(true);
      expect(doc.points.filter((p) => p.auto_role === 'grid').map((p) => p.load).sort((a, b) => a - b)).toEqual(g.loads.filter((l) => !searched.has(l)));
      expect(readdirSync(join(out, 'points')).length).toBe(doc.points.length);
      expect(readdirSync(out)).toEqual(expect.arrayContaining(['sweep.json', 'sweep.csv']));
    } finally {
      await sim.close();
    }
  });

  it('--then-grid without --auto is exit 2', async () => {
    const r = await runCli(registerSweep, ['sweep', '--concurrency', '1,2', '--then-grid', '--out', join(tmpDir(), 'x')]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--then-grid: only with --auto/);
  });
});
