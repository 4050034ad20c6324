// After a run, each timeline file is read once: the summary's sections and report.html's charts come from the same pass.
import { describe, expect, it } from 'vitest';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { resolveSweepConfig } from '../src/sweep/config.js';
import { runSweep } from '../src/sweep/sweep.js';
import { renderRunReport, runDataOf } from '../src/report/html/run-report.js';
import { readServerSamples } from '../src/telemetry/sample-writer.js';
import { readGpuLines } from '../src/telemetry/gpu-source.js';
import type { RunArtifacts } from '../src/artifacts/run-artifacts.js';
import { tmpDir } from './helpers.js';

describe('timelines after a sweep point', () => {
  it('report.html is drawn from the chart samples the run kept: the same charts with both timeline files gone', async () => {
    const out = tmpDir();
    const kept = new Map<string, RunArtifacts>();
    await runSweep(resolveSweepConfig({ flags: { concurrency: '2,8', requests: '24', out, simulate: true, quiet: true }, runFlags: { inputTokens: '128', outputTokens: '64' }, engineFlags: {} }), {
      reporters: [{ name: 'keep', runEnd: (e) => void kept.set(e.outDir, e.artifacts) }],
    });
    expect(kept.size).toBe(2);
    for (const [dir, a] of kept) {
      // The samples kept are those a reader of the files would take.
      expect(a.timelines!.server).toEqual(readServerSamples(dir, 2000));
      expect(a.timelines!.gpu).toEqual(readGpuLines(dir, 2000));
      expect(a.timelines!.server.length).toBeGreaterThan(1);
      expect(a.timelines!.gpu.length).toBeGreaterThan(1);
      const html = readFileSync(join(dir, 'report.html'), 'utf8');
      expect(html).toContain('GPU');
      rmSync(join(dir, 'server_metrics.jsonl'));
      rmSync(join(dir, 'gpu_metrics.jsonl'));
      expect(renderRunReport(runDataOf(a))).toBe(html);
    }
  }, 30_000);
});
