// `simulate`: speed, agreement with a real run against the sim server, files readable by `report`, the CLI.
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { simulate } from '../src/simulate.js';
import { run } from '../src/run.js';
import { startSimServer } from '../src/sim/server.js';
import { rebuildSummary } from '../src/cli/report.js';
import { registerSimulate } from '../src/cli/simulate.js';
import type { DistStats } from '../src/metrics/stats.js';
import { tmpDir } from './helpers.js';
import { stepCost } from '../src/sim/engine/cost.js';
import { outsideEngineMs } from '../src/sim/engine/overheads.js';

const relDiff = (sim: number | null, real: number | null): number => Math.abs((sim as number) - (real as number)) / (real as number);

describe('simulate', () => {
  it('1,000 requests (wall time logged, not asserted: speed is a bench target), files readable by report with the same summary', async () => {
    const out = tmpDir();
    const t0 = performance.now();
    const res = await simulate({ requests: 1000, concurrency: 64, inputTokens: 512, outputTokens: 128, out });
    const wallMs = performance.now() - t0;
    console.log(`simulate 1,000 requests (512 in / 128 out, concurrency 64): ${wallMs.toFixed(0)} ms wall, ${(res.sim.durationMs / 1000).toFixed(1)} s simulated`);
    expect(res.records).toHaveLength(1000);
    expect(res.summary.requests.ok).toBe(1000);
    expect(res.summary.output_tokens.mean).toBe(128);
    expect(res.summary.input_tokens.mean).toBe(512);
    expect(res.records.every((r) => r.token_source === 'usage' && r.chunks === 131)).toBe(true);
    const runJson = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8'));
    expect(runJson.simulated).toBe(true);
    expect(runJson.engine).toMatchObject({ gpu: 'h100', model_profile: 'llama-3.1-8b', tp: 1 });
    const onDisk = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(JSON.parse(JSON.stringify(rebuildSummary(out).summary))).toEqual(onDisk);
    expect(onDisk.run.simulated).toBe(true);
  });

  it('TTFT of a prefix-cache hit includes the time outside the engine (API server, tokenization, detokenization)', async () => {
    const res = await simulate({ requests: 2, concurrency: 1, endpoint: 'completions', inputTokens: 8, prefixTokens: 564, prefixGroups: 1, outputTokens: 4, out: tmpDir() });
    const r = res.records[1];
    const cached = r.cached_tokens!;
    const prompt = r.input_tokens!;
    expect(cached).toBeGreaterThan(500);
    const fresh = prompt - cached;
    const step = stepCost(res.engine, { requests: 1, newTokens: fresh, contextTokens: cached, attentionPairs: fresh * cached + (fresh * (fresh + 1)) / 2 }).totalMs;
    const outside = outsideEngineMs(res.engine, prompt);
    expect(outside).toBeGreaterThan(5);
    // Records keep µs, so the sum agrees to about a µs.
    expect(Math.abs(r.ttft_ms! - (outside + step))).toBeLessThan(0.01);
  });

  it('agrees with run() against the sim server: TTFT and TPOT p50/p90 within 10%', async () => {
    // Robust on a noisy machine: (1) output lengths vary (32-96, mean 64), so requests do not run in lockstep, which
    // a virtual clock keeps forever but ms of real jitter break; (2) 16 users on an engine that runs 8 sequences, so
    // half the requests always wait inside the engine and TTFT (~530 ms, mostly queueing) does not hinge on whether
    // a refill reached the server just before or just after a ~7 ms step began. TPOT averages 30-90 gaps.
    const engine = { gpu: 'h100', modelProfile: 'llama-3.1-8b', maxNumSeqs: 8 };
    const load = { requests: 200, concurrency: 16, inputTokens: 512, outputTokens: 'uniform:32,96' };
    const sim = await simulate({ ...load, ...engine, out: tmpDir() });
    const server = await startSimServer({ ...engine, timeScale: 1 });
    let real;
    try {
      real = await run({ ...load, baseUrl: server.baseUrl, out: tmpDir() });
    } finally {
      await server.close();
    }
    const rows: string[] = [];
    for (const m of ['ttft_ms', 'tpot_ms'] as const)
      for (const p of ['p50', 'p90'] as const) {
        const s = (sim.summary[m] as DistStats)[p];
        const r = (real.summary[m] as DistStats)[p];
        rows.push(`${m} ${p}: simulated ${s?.toFixed(2)} real ${r?.toFixed(2)} (${(relDiff(s, r) * 100).toFixed(1)}%)`);
        expect(relDiff(s, r), rows[rows.length - 1]).toBeLessThan(0.1);
      }
    console.log(rows.join('\n'));
  });

  it('prefix-cache hits, token counts and chunking match a real run (shared prefix; no cache bust; 4 tokens per chunk)', async () => {
    const cases = [
      { prefixTokens: 256, inputTokens: 200, outputTokens: 8 },
      { cacheBust: false, inputTokens: 300, outputTokens: 9, tokensPerChunk: 4 },
    ];
    for (const { tokensPerChunk, ...load } of cases) {
      const common = { ...load, requests: 12, concurrency: 1 };
      const sim = await simulate({ ...common, tokensPerChunk, out: tmpDir() });
      const server = await startSimServer({ tokensPerChunk, timeScale: 20 });
      try {
        const real = await run({ ...common, baseUrl: server.baseUrl, out: tmpDir() });
        const pick = (rs: typeof real.records) => rs.map((r) => [r.cached_tokens, r.input_tokens, r.output_tokens, r.event_kinds, r.finish_reason]);
        expect(pick(sim.records)).toEqual(pick(real.records));
        expect(sim.records.some((r) => (r.cached_tokens ?? 0) > 0)).toBe(true);
      } finally {
        await server.close();
      }
    }
  });

  it('requests over max_model_len fail with the HTTP 400 a real run records', async () => {
    const opts = { requests: 4, concurrency: 2, inputTokens: 512, outputTokens: 256, quiet: true };
    const sim = await simulate({ ...opts, numGpuBlocksOverride: 40, out: tmpDir() });
    const server = await startSimServer({ numGpuBlocksOverride: 40, timeScale: 20 });
    try {
      const real = await run({ ...opts, baseUrl: server.baseUrl, out: tmpDir() });
      expect(sim.records.map((r) => [r.status, r.http_status, r.error])).toEqual(real.records.map((r) => [r.status, r.http_status, r.error]));
      expect(sim.records[0].error).toContain("This model's maximum context length is 640 tokens");
    } finally {
      await server.close();
    }
  });

  it('--duration stops sending in (virtual) time; open loop with a rate', async () => {
    const res = await simulate({ duration: '20s', rate: 5, arrival: 'constant', inputTokens: 128, outputTokens: 16, out: tmpDir() });
    expect(res.records).toHaveLength(100);
    expect(Math.max(...res.records.map((r) => r.scheduled_at_ms))).toBeCloseTo(19_800, 6);
  });

  it('CLI: --json prints one JSON document; the table says it is a prediction; bad options are reported together', async () => {
    const cli = async (args: string[]) => {
      let stdout = '';
      let stderr = '';
      const io = { out: { write: (s: string) => ((stdout += s), true) }, err: { write: (s: string) => ((stderr += s), true) } } as never;
      const program = new Command('tokenflood').exitOverride();
      registerSimulate(program, io);
      let error: unknown;
      await program.parseAsync(args, { from: 'user' }).catch((e) => (error = e));
      return { stdout, stderr, error };
    };
    const out = tmpDir();
    const j = await cli(['simulate', '--requests', '20', '--concurrency', '4', '--gpu', 'a100-80gb', '--model-profile', 'qwen2.5-7b', '--no-prefix-caching', '--json', '--out', out]);
    expect(j.error).toBeUndefined();
    const doc = JSON.parse(j.stdout);
    expect(doc.requests.ok).toBe(20);
    expect(doc.run.engine).toMatchObject({ gpu: 'a100-80gb', model_profile: 'qwen2.5-7b', prefix_caching: false });
    const cfg = join(tmpDir(), 'run.yaml');
    writeFileSync(cfg, 'requests: 10\nbase-url: http://example.invalid/v1\ngpu: l40s\ntokens-per-chunk: 2\n');
    const t = await cli(['simulate', '--config', cfg, '--out', tmpDir()]);
    expect(t.error).toBeUndefined();
    expect(t.stdout).toContain('PREDICTION');
    expect(t.stdout).toContain('on 1x l40s');
    expect(t.stderr).toContain('ignored (not modelled): --base-url');
    // Issue 32: --validate and --short-baseline need a real server's answers; said, not silently dropped.
    // As flags they are not offered (like --base-url); in a config file they are ignored with the note.
    for (const flag of [['--validate'], ['--short-baseline', '4k']]) {
      const v = await cli(['simulate', '--requests', '10', ...flag, '--out', tmpDir()]);
      expect(String((v.error as Error).message)).toContain(`unknown option '${flag[0]}'`);
    }
    const vcfg = join(tmpDir(), 'validate.yaml');
    writeFileSync(vcfg, 'requests: 10\nvalidate: true\nshort-baseline: 4k\n');
    const v = await cli(['simulate', '--config', vcfg, '--out', tmpDir()]);
    expect(v.error).toBeUndefined();
    expect(v.stderr).toContain('ignored (not modelled): --validate, --short-baseline');
    const bad = await cli(['simulate', '--tp', 'x', '--out', tmpDir()]);
    expect(String((bad.error as Error).message)).toContain('--tp');
    await expect(simulate({ gpu: 'nope', concurrency: 0, out: tmpDir() } as never)).rejects.toThrow(/--concurrency/);
  });
});
