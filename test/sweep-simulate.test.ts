// `sweep --simulate`: a whole sweep on the engine model (virtual driver per point), the same files as a real sweep, in seconds.
import { describe, it, expect } from 'vitest';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { resolveSweepConfig } from '../src/sweep/config.js';
import { runSweep } from '../src/sweep/sweep.js';
import { evaluateSlo } from '../src/metrics/slo.js';
import { readRecordsSorted } from '../src/report/results-dir.js';
import { boxStats, renderSweepReport } from '../src/report/html/sweep-report.js';
import type { BoxStats } from '../src/report/html/sweep-charts.js';
import type { SweepDoc } from '../src/report/sweep-model.js';
import { tmpDir } from './helpers.js';

const CLI = join(__dirname, '..', 'dist', 'bin', 'tokenflood.js');
const GRID = { concurrency: '1,2,4,8,16', requests: '4' };
const LENGTHS = { inputTokens: '128', outputTokens: '32' };

function files(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(relative(dir, p));
    }
  };
  walk(dir);
  return out.sort();
}

describe('sweep --simulate', () => {
  it('runs a 5-point sweep via the CLI in seconds and writes the files a real sweep of the same grid writes', async () => {
    const sim = join(tmpDir(), 'sim');
    const t0 = performance.now();
    const { stdout } = await promisify(execFile)(process.execPath, [
      CLI, 'sweep', '--simulate', '--gpu', 'h100', '--concurrency', GRID.concurrency, '--requests', GRID.requests,
      '--input-tokens', LENGTHS.inputTokens, '--output-tokens', LENGTHS.outputTokens, '--out', sim, '--quiet',
    ]);
    const wallMs = performance.now() - t0;
    console.log(`sweep --simulate, 5 points via the CLI: ${(wallMs / 1000).toFixed(2)} s of wall time`);
    // Under 10 s on an idle machine (about 2 s); the bound is generous for a loaded 2-core one, and far below real time.
    expect(wallMs).toBeLessThan(20_000);
    expect(stdout).toContain('wrote');

    const doc = JSON.parse(readFileSync(join(sim, 'sweep.json'), 'utf8')) as SweepDoc;
    expect(doc.simulated).toBe(true);
    expect(doc.engine?.gpu).toBe('h100');
    expect(doc.target_url).toContain('(simulated)');
    expect(doc.points.map((p) => [p.load, p.status, p.ok])).toEqual([1, 2, 4, 8, 16].map((c) => [c, 'done', 4]));
    for (const p of doc.points) expect(JSON.parse(readFileSync(join(sim, p.dir, 'run.json'), 'utf8')).simulated).toBe(true);
    // The GPUs of each point are the engine model's: every line says so, as do run.json and summary.gpu.
    for (const p of doc.points) {
      const lines = readFileSync(join(sim, p.dir, 'gpu_metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.every((l) => l.source === 'model' && l.gpus.length === 1)).toBe(true);
      expect(JSON.parse(readFileSync(join(sim, p.dir, 'run.json'), 'utf8')).gpu_metrics.source).toBe('model');
      expect(JSON.parse(readFileSync(join(sim, p.dir, 'summary.json'), 'utf8')).gpu.source).toBe('model');
    }

    const real = join(tmpDir(), 'real');
    await runSweep(resolveSweepConfig({ flags: { ...GRID, out: real, simTimeScale: 50, quiet: true }, runFlags: { ...LENGTHS } }));
    // Every file, timelines included: server_metrics.jsonl and gpu_metrics.jsonl are the engine model's on the simulated side.
    const realFiles = files(real);
    expect(files(sim)).toEqual(realFiles);
    expect(realFiles).toContain(join('points', 'c16-in128-out32', 'gpu_metrics.jsonl'));
    expect(realFiles).toContain('sweep.json');
    expect(realFiles).toContain(join('points', 'c16-in128-out32', 'requests.jsonl'));
  }, 90_000);

  it('reads no point\'s records back once it ended: goodput and the report\'s boxes come from the records as they arrived', async () => {
    const out = join(tmpDir(), 'sim');
    const expected = new Map<string, ReturnType<typeof evaluateSlo>>();
    const boxes = new Map<string, BoxStats>();
    const resolved = resolveSweepConfig({ flags: { concurrency: '2,8', requests: '12', slo: 'ttft_p99=25ms', out, simulate: true, quiet: true }, runFlags: { ...LENGTHS }, engineFlags: {} });
    const { doc } = await runSweep(resolved, {
      reporters: [
        {
          name: 'take the records away',
          pointEnd: (e) => {
            expected.set(e.row.name, evaluateSlo(e.summary!, readRecordsSorted(e.outDir).records, resolved.sweep.slo));
            boxes.set(e.row.dir, boxStats(out, [e.row])[0]);
            rmSync(join(e.outDir, 'requests.jsonl'));
          },
        },
      ],
    });
    expect(doc.points.length).toBe(2);
    for (const r of doc.points) {
      const x = expected.get(r.name)!;
      expect([r.goodput_req_s, r.goodput_tok_s, r.good_fraction]).toEqual([x.goodput_req_s, x.goodput_tok_s, x.good_fraction]);
    }
    // The stricter SLO at concurrency 8: some requests were not good there (the counter saw them as they finished).
    expect(expected.get('c8-in128-out32')!.good_fraction).toBeLessThan(expected.get('c2-in128-out32')!.good_fraction);
    // The boxes as boxStats reads them from disk, drawn although the records were gone (redrawn now, they would be empty).
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).toBe(renderSweepReport(out, doc, boxes));
    expect(html).not.toBe(renderSweepReport(out, doc));
  }, 30_000);

  it('refuses engine flags without --simulate, naming them', () => {
    expect(() => resolveSweepConfig({ flags: { concurrency: '1' }, runFlags: {}, engineFlags: { gpu: 'h100' } })).toThrow(/--gpu: engine options of sweep --simulate/);
  });
});
