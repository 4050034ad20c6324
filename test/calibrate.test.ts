// `tokenflood calibrate`: fitted on some concurrency levels of runs with hidden engine constants, it predicts the others.
import { describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { simulate, type SimulateInput } from '../src/simulate.js';
import { registerCalibrate } from '../src/cli/calibrate.js';
import { registerSimulate } from '../src/cli/simulate.js';
import { readCalibrationPoints } from '../src/calibrate/runs.js';
import { runCli } from './fixtures/cli-harness.js';
import { tmpDir } from './helpers.js';

const DEPLOYMENT = { gpu: 'a100-40gb', modelProfile: 'llama-3.1-8b' } as const;
const WORKLOAD = { inputTokens: 512, outputTokens: 64 } as const;
const rel = (a: number, b: number): number => Math.abs(a - b) / b;

async function level(dir: string, concurrency: number, extra: Partial<SimulateInput> = {}) {
  const res = await simulate({ ...DEPLOYMENT, ...WORKLOAD, ...extra, concurrency, requests: Math.max(12, 3 * concurrency), out: dir });
  return { ttft: res.summary.ttft_ms.mean!, tpot: res.summary.tpot_ms.mean! };
}

describe('calibrate', () => {
  // The measured "server" is the engine model with perturbed constants on the virtual clock (tokenflood simulate):
  // deterministic, so a loaded 2-core machine cannot blur the 5% the test asks for.
  it('recovers TTFT and TPOT within 5% on concurrency levels it did not see, and simulate --engine-profile uses the fit', async () => {
    const root = tmpDir();
    const hidden = join(root, 'hidden.yaml');
    writeFileSync(hidden, 'bw-efficiency: 0.6\nstep-overhead-ms: 1.5\nmfu: 0.35\n');
    const sweep = join(root, 'sweep');
    mkdirSync(join(sweep, 'points'), { recursive: true });
    const measured: Record<number, { ttft: number; tpot: number }> = {};
    for (const c of [1, 2, 4, 8, 16]) measured[c] = await level(join(sweep, 'points', `c${c}`), c, { engineProfile: hidden });

    const profile = join(root, 'profile.yaml');
    const seen = [1, 4, 16].map((c) => join(sweep, 'points', `c${c}`));
    const res = await runCli(registerCalibrate, ['calibrate', ...seen, '--out', profile, '--max-requests', '48', '--json']);
    expect(res.err).toBe('');
    expect(res.code).toBe(0);
    const report = JSON.parse(res.out);
    expect(report.points).toHaveLength(3);
    expect(report.points.every((p: { loo_error?: unknown }) => p.loo_error !== undefined)).toBe(true);
    const text = readFileSync(profile, 'utf8');
    expect(text).toContain('gpu: a100-40gb');
    expect(text).toContain('model-profile: llama-3.1-8b');
    expect(text).toMatch(/bw-efficiency: [0-9.]+/);

    for (const c of [2, 8]) {
      const fitted = await level(tmpDir(), c, { engineProfile: profile });
      const plain = await level(tmpDir(), c);
      expect(rel(fitted.ttft, measured[c].ttft), `c${c} TTFT`).toBeLessThan(0.05);
      expect(rel(fitted.tpot, measured[c].tpot), `c${c} TPOT`).toBeLessThan(0.05);
      // Without the profile the default constants miss by far more: the fit is what closes the gap.
      expect(Math.max(rel(plain.ttft, measured[c].ttft), rel(plain.tpot, measured[c].tpot))).toBeGreaterThan(0.2);
    }
  }, 120_000);

  it('a sweep directory is read through its points/, and explicit flags override the engine profile', async () => {
    const root = tmpDir();
    await level(join(root, 'sw', 'points', 'c3'), 3);
    const points = readCalibrationPoints([join(root, 'sw')]);
    expect(points.map((p) => [p.dir, p.concurrency, p.inputTokens, p.outputTokens])).toEqual([[join(root, 'sw', 'points', 'c3'), 3, 512, 64]]);
    expect(points[0].engine).toMatchObject({ gpu: 'a100-40gb', modelProfile: 'llama-3.1-8b' });
    const profile = join(root, 'p.yaml');
    writeFileSync(profile, 'gpu: a100-40gb\nmodel-profile: llama-3.1-8b\nstep-overhead-ms: 3\n');
    const out = join(root, 'run');
    const r = await runCli(registerSimulate, ['simulate', '--engine-profile', profile, '--gpu', 'h100', '--concurrency', '2', '--requests', '4', '--input-tokens', '64', '--output-tokens', '8', '--out', out, '--quiet']);
    expect(r.code).toBe(0);
    const run = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8'));
    expect(run.engine).toMatchObject({ gpu: 'h100', model_profile: 'llama-3.1-8b' });
    expect(existsSync(join(out, 'summary.json'))).toBe(true);
  });

  it('a run whose client was the bottleneck is fitted with a note naming it and its client-health reason', async () => {
    const root = tmpDir();
    for (const c of [1, 2]) await level(join(root, `c${c}`), c);
    const file = join(root, 'c2', 'summary.json');
    const summary = JSON.parse(readFileSync(file, 'utf8'));
    summary.client = { ...summary.client, client_bound: true, reasons: ['the client\u001b[2J event loop was blocked: p99 delay 40 ms > 10 ms'] };
    writeFileSync(file, JSON.stringify(summary));
    const res = await runCli(registerCalibrate, ['calibrate', join(root, 'c1'), join(root, 'c2'), '--out', join(root, 'p.yaml'), '--max-requests', '12']);
    expect(res.code).toBe(0);
    expect(res.err).toContain(`note: ${join(root, 'c2')}: the client was the bottleneck (the client[2J event loop was blocked: p99 delay 40 ms > 10 ms)`);
    expect(res.err).not.toContain(join(root, 'c1'));
    expect(res.err).not.toContain('\u001b');
  });

  it('bad input: a missing directory, an unknown profile key, a missing --out: one message each, exit 2, nothing written', async () => {
    const root = tmpDir();
    const missing = await runCli(registerCalibrate, ['calibrate', join(root, 'nope'), '--out', join(root, 'p.yaml')]);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain(`${join(root, 'nope')}: not a directory`);
    expect(existsSync(join(root, 'p.yaml'))).toBe(false);
    const noOut = await runCli(registerCalibrate, ['calibrate', root]);
    expect(noOut.code).toBe(2);
    expect(noOut.err).toContain('--out');
    const bad = join(root, 'bad.yaml');
    writeFileSync(bad, 'bw-effciency: 0.5\n');
    const sim = await runCli(registerSimulate, ['simulate', '--engine-profile', bad, '--requests', '1', '--out', join(root, 'r'), '--quiet']);
    expect(sim.code).toBe(2);
    expect(sim.err).toContain(`--engine-profile ${bad}: unknown key "bw-effciency"`);
    expect(existsSync(join(root, 'r', 'run.json'))).toBe(false);
  });
});
