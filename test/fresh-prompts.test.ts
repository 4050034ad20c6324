// Prompts are fresh per run and per sweep point, so a prefix cache cannot answer a repeat; a run it did answer says so.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { run } from '../src/run.js';
import { runSweep } from '../src/sweep/sweep.js';
import { resolveSweepConfig } from '../src/sweep/config.js';
import { startSimServer, type SimServerHandle } from '../src/sim/server.js';
import { registerRun } from '../src/cli/run.js';
import { registerCompare } from '../src/cli/compare.js';
import { registerCalibrate } from '../src/cli/calibrate.js';
import { registerSweep } from '../src/cli/sweep.js';
import type { Summary } from '../src/metrics/summary.js';
import { runCli } from './fixtures/cli-harness.js';
import { tmpDir } from './helpers.js';
import { startScriptServer, chatChunk, usageChunk, DONE } from './fixtures/script-server.js';

/** Σ cached / Σ prompt tokens from the distributions (what a user of today's summary.json can compute). */
const cachedShare = (s: Summary): number => ((s.cached_tokens.mean ?? 0) * s.cached_tokens.count) / ((s.input_tokens.mean ?? 1) * s.input_tokens.count);

describe.each(['h1', 'undici'] as const)('fresh prompts against one sim server with prefix caching (transport %s)', (transport) => {
  let sim: SimServerHandle;
  beforeAll(async () => {
    sim = await startSimServer({ prefixCaching: true, timeScale: 20 });
  });
  afterAll(async () => {
    await sim.close();
  });
  const once = (extra: Record<string, unknown> = {}) =>
    run({ baseUrl: sim.baseUrl, transport, requests: 6, concurrency: 2, inputTokens: 256, outputTokens: 4, out: tmpDir(), quiet: true, ...extra });

  it('a second identical run is not answered from the cache', async () => {
    const first = await once();
    const second = await once();
    expect(first.summary.requests.ok).toBe(6);
    expect(second.summary.requests.ok).toBe(6);
    expect(cachedShare(second.summary)).toBeLessThan(0.1);
    expect(second.summary.prompt_cache?.warning).toBeNull();
    expect(second.summary.run.workload).toMatchObject({ prompts: 'fresh' });
  });

  it("every prompt starts with its own nonce carrying the run id, and no prompt begins as the previous run's", async () => {
    const bodies: string[] = [];
    const srv = await startScriptServer((b) => {
      bodies.push(((b as { messages: { content: string }[] }).messages.at(-1) as { content: string }).content);
      return { steps: [{ at: 0, write: chatChunk({ content: 'ok' }) + usageChunk(8, 1) + DONE }] };
    });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 2; i++) {
        const r = await run({ validate: false, baseUrl: srv.baseUrl, transport, requests: 4, concurrency: 1, inputTokens: 64, outputTokens: 2, out: tmpDir(), quiet: true });
        ids.push(String(r.summary.run.run_id));
      }
      expect(bodies).toHaveLength(8);
      bodies.forEach((b, i) => expect(b).toMatch(new RegExp(`^\\[[0-9a-f]{8}-${ids[Math.floor(i / 4)]}\\] `)));
      const heads = new Set(bodies.map((b) => b.slice(0, 9)));
      expect(heads.size).toBe(8);
    } finally {
      await srv.close();
    }
  });

  it('with the same --dataset-seed twice the repeat is cached, and the terminal, summary.json and compare say so', async () => {
    const aDir = join(tmpDir(), 'a');
    const a = await runCli(registerRun, ['run', '--base-url', sim.baseUrl, '--transport', transport, '--requests', '6', '--concurrency', '2', '--input-tokens', '192', '--output-tokens', '4', '--dataset-seed', '7', '--out', aDir, '--quiet']);
    const bDir = join(tmpDir(), 'b');
    const b = await runCli(registerRun, ['run', '--base-url', sim.baseUrl, '--transport', transport, '--requests', '6', '--concurrency', '2', '--input-tokens', '192', '--output-tokens', '4', '--dataset-seed', '7', '--out', bDir, '--quiet']);
    expect(a.code).toBe(0);
    expect(a.err).not.toMatch(/prefix cache/);
    expect(b.code).toBe(0);
    expect(b.err).toMatch(/WARNING: .*% of prompt tokens were answered from the server's prefix cache .*--dataset-seed/);
    const summary = JSON.parse(readFileSync(join(bDir, 'summary.json'), 'utf8')) as Summary;
    expect(summary.prompt_cache!.cached_share).toBeGreaterThan(0.5);
    expect(summary.prompt_cache!.threshold).toBe(0.1);
    expect(summary.prompt_cache!.cache_workload).toBeNull();
    expect(summary.prompt_cache!.warning).toMatch(/prefix cache/);
    const cmp = await runCli(registerCompare, ['compare', aDir, bDir]);
    expect(cmp.out).toMatch(/WARNING: a prefix cache answered prompts meant to be fresh/);
    expect(cmp.out).toContain(`candidate ${bDir}:`);
  });

  it('prompts of different lengths do not share heads, even with the same seed', async () => {
    await once({ datasetSeed: 11, inputTokens: 128 });
    const longer = await once({ datasetSeed: 11, inputTokens: 512 });
    expect(cachedShare(longer.summary)).toBeLessThan(0.1);
  });

  it('a cache workload (--prefix-tokens) is not warned about', async () => {
    const r = await once({ prefixTokens: 256, inputTokens: 64 });
    expect(r.summary.prompt_cache!.cached_share).toBeGreaterThan(0.1);
    expect(r.summary.prompt_cache!.cache_workload).toBe('--prefix-tokens');
    expect(r.summary.prompt_cache!.warning).toBeNull();
  });
});

describe('sweep points and calibrate', () => {
  it('each sweep point sends fresh prompts (no level finds the previous one in the cache)', async () => {
    const sim = await startSimServer({ prefixCaching: true, timeScale: 20 });
    try {
      const out = join(tmpDir(), 'sw');
      const { doc } = await runSweep(resolveSweepConfig({ flags: { concurrency: '1,2,3', requests: '6', out, quiet: true }, runFlags: { baseUrl: sim.baseUrl, inputTokens: '256', outputTokens: '4' } }));
      expect(doc.points.map((p) => p.status)).toEqual(['done', 'done', 'done']);
      for (const p of doc.points) {
        const s = JSON.parse(readFileSync(join(out, p.dir, 'summary.json'), 'utf8')) as Summary;
        expect(cachedShare(s), p.name).toBeLessThan(0.1);
      }
    } finally {
      await sim.close();
    }
  }, 60_000);

  it('a sweep with one --dataset-seed repeats its prompts at every point, and the terminal names each cached point', async () => {
    const sim = await startSimServer({ prefixCaching: true, timeScale: 20 });
    try {
      const res = await runCli(registerSweep, ['sweep', '--base-url', sim.baseUrl, '--concurrency', '1,2', '--requests', '4', '--input-tokens', '256', '--output-tokens', '4', '--dataset-seed', '3', '--out', join(tmpDir(), 'sw'), '--quiet']);
      expect(res.code).toBe(0);
      expect(res.err).not.toMatch(/point c1[-:]/);
      expect(res.err).toMatch(/tokenflood sweep: WARNING: point c2\S*: .*prefix cache/);
    } finally {
      await sim.close();
    }
  }, 60_000);

  it('calibrate skips a run answered from the prefix cache, naming it, and refuses when nothing is left', async () => {
    const sim = await startSimServer({ prefixCaching: true, timeScale: 20 });
    try {
      const dirs: string[] = [];
      // Seeds 5 and 6 differ; the third run repeats the second's prompts.
      for (const [c, seed] of [[1, 5], [2, 6], [2, 6]]) {
        const r = await run({ validate: false, baseUrl: sim.baseUrl, requests: 6, concurrency: c, inputTokens: 256, outputTokens: 8, datasetSeed: seed, out: tmpDir(), quiet: true });
        dirs.push(r.outDir);
      }
      const cached = dirs[2];
      const profile = join(tmpDir(), 'p.yaml');
      const res = await runCli(registerCalibrate, ['calibrate', dirs[0], dirs[1], cached, '--out', profile, '--max-requests', '12', '--json']);
      expect(res.code).toBe(0);
      expect(res.err).toContain(`calibrate: skipped ${cached}: `);
      expect(res.err).not.toContain(`skipped ${dirs[0]}`);
      expect(JSON.parse(res.out).points.map((p: { dir: string }) => p.dir)).toEqual([dirs[0], dirs[1]]);
      const none = await runCli(registerCalibrate, ['calibrate', cached, '--out', profile]);
      expect(none.code).toBe(2);
      expect(none.err).toMatch(/nothing left to fit on/);
    } finally {
      await sim.close();
    }
  }, 60_000);
});
