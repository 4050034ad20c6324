// The automatic short-only baseline of a mixed-length run: when it runs, its size, its notes, where it is skipped.
// Files and notes only, no wall-clock figure: not in the serial list (the slowdown itself is in short-baseline.test.ts).
import { describe, it, expect } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import { capture } from './io-capture.js';
import { tmpDir } from './helpers.js';
import { resolveRunConfig } from '../src/config/load.js';
import { runLengthPlan } from '../src/cli/short-baseline-auto.js';

const MIX = 'short: 70% in 256 out 32; long: 30% in 12000 out 32';
const SIM = ['--sim-time-scale', '10', '--no-server-metrics'];
const recordsOf = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));


describe('automatic short-only baseline', () => {
  it('automatic on a --mix run: a bounded short-only baseline first, said on stderr, in summary.json and --json', async () => {
    const out = join(tmpDir(), 'auto');
    const c = capture();
    const args = ['run', '--mix', MIX, '--requests', '100', '--concurrency', '8', '--dataset-seed', '5', ...SIM, '--out', out, '--json'];
    expect(await main(args, c.io), c.err).toBe(0);
    // The line says why and what, before the baseline starts.
    const line = /tokenflood: mixed lengths: (\d+)% under 4k, (\d+)% over; measuring a short-only baseline of 33 requests first \(--no-short-baseline to skip\)/.exec(c.err);
    expect(line, c.err).not.toBeNull();
    expect(Number(line![1]) + Number(line![2])).toBe(100);
    expect(c.err.indexOf(line![0])).toBeLessThan(c.err.indexOf(`results in ${join(out, 'short-baseline')}`));
    // A quarter of the 100 requests plus the first wave of 8 (--concurrency), all short.
    const base = recordsOf(join(out, 'short-baseline', 'requests.jsonl'));
    expect(base.length).toBe(33);
    expect(base.every((r) => r.expected_input_tokens < 4096)).toBe(true);
    const mixed = recordsOf(join(out, 'requests.jsonl'));
    expect(mixed.length).toBe(100);
    const s = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')).short_baseline;
    expect(s).toMatchObject({ automatic: true, threshold_tokens: 4096, baseline_requests: 33, first_wave_excluded: 8, baseline_dir: join(out, 'short-baseline') });
    expect(s.size_rule).toMatch(/a quarter of the mixed run's 100 requests, at least 20, at most 200 plus the first wave of 8, no more than the mixed run: 33 requests/);
    expect(s.mixed_short_requests + s.mixed_long_requests).toBe(100);
    // The first wave (ids 0-7) gives no values, in either run.
    expect(s.rows.tpot_ms.baseline.count).toBe(25);
    expect(s.rows.tpot_ms.mixed.count).toBe(mixed.filter((r) => r.id >= 8 && r.expected_input_tokens < 4096).length);
    // --json's one document carries the comparison too.
    expect(JSON.parse(c.out).short_baseline).toEqual(s);
    // The plan read before the run is the run's own draws, in order (same seed, lengths only).
    const planned = runLengthPlan(resolveRunConfig({ flags: { mix: MIX, requests: 100, datasetSeed: 5 } }).config).lengths;
    expect(mixed.sort((a, b) => a.id - b.id).map((r) => r.expected_input_tokens)).toEqual(planned);
  }, 90_000);

  it('without --out both runs take default directories and the baseline ends inside the mixed one', async () => {
    const cwd = process.cwd();
    const dir = tmpDir();
    process.chdir(dir);
    try {
      const c = capture();
      expect(await main(['run', '--input-tokens', 'lognormal:mean=4000,sd=3000', '--requests', '40', '--concurrency', '8', ...SIM, '--json'], c.io), c.err).toBe(0);
      expect(c.err).toMatch(/mixed lengths: \d+% under 4k, \d+% over; measuring a short-only baseline of 28 requests first/);
      const s = JSON.parse(c.out).short_baseline;
      expect(s.baseline_dir).toMatch(/^results[/\\][^/\\]+[/\\]short-baseline$/);
      expect(recordsOf(join(dir, s.baseline_dir, 'requests.jsonl')).length).toBe(28);
      expect(JSON.parse(readFileSync(join(dir, s.baseline_dir, '..', 'summary.json'), 'utf8')).short_baseline.baseline_dir).toBe(s.baseline_dir);
    } finally {
      process.chdir(cwd);
    }
  }, 90_000);

  it('one prompt length: no baseline and no note', async () => {
    const out = join(tmpDir(), 'single');
    const c = capture();
    expect(await main(['run', '--input-tokens', '8000', '--requests', '12', '--concurrency', '4', ...SIM, '--out', out, '--json'], c.io), c.err).toBe(0);
    expect(c.err).not.toMatch(/baseline|mixed lengths/);
    expect(existsSync(join(out, 'short-baseline'))).toBe(false);
    expect(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')).short_baseline).toBeUndefined();
    expect(recordsOf(join(out, 'requests.jsonl')).length).toBe(12);
  }, 60_000);

  it('--no-short-baseline, or auto-short-baseline: false in a config file, skips it', async () => {
    for (const how of ['flag', 'config'] as const) {
      const dir = tmpDir();
      const out = join(dir, 'off');
      const extra = how === 'flag' ? ['--no-short-baseline'] : ['--config', join(dir, 'c.yaml')];
      if (how === 'config') writeFileSync(join(dir, 'c.yaml'), 'auto-short-baseline: false\n');
      const c = capture();
      expect(await main(['run', '--mix', MIX, '--requests', '30', '--concurrency', '8', ...SIM, ...extra, '--out', out, '--json'], c.io), c.err).toBe(0);
      expect(c.err).not.toMatch(/mixed lengths/);
      expect(existsSync(join(out, 'short-baseline'))).toBe(false);
      expect(JSON.parse(c.out).short_baseline).toBeUndefined();
      expect(recordsOf(join(out, 'requests.jsonl')).length).toBe(30);
    }
  }, 90_000);

  it('an --out holding a run is refused before the baseline sends anything; too few requests past the first wave: a note, no baseline', async () => {
    const out = join(tmpDir(), 'held');
    expect(await main(['run', '--mix', MIX, '--requests', '8', '--concurrency', '4', ...SIM, '--no-short-baseline', '--no-validate', '--out', out, '--quiet'], capture().io)).toBe(0);
    const c = capture();
    expect(await main(['run', '--mix', MIX, '--requests', '30', '--concurrency', '8', ...SIM, '--no-validate', '--out', out, '--quiet'], c.io)).toBe(2);
    expect(c.err).toContain('already holds a run');
    expect(existsSync(join(out, 'short-baseline'))).toBe(false);

    const few = join(tmpDir(), 'few');
    const c2 = capture();
    expect(await main(['run', '--mix', MIX, '--requests', '30', '--concurrency', '16', ...SIM, '--no-validate', '--out', few, '--json'], c2.io), c2.err).toBe(0);
    expect(c2.err).toMatch(/mixed lengths: .*no automatic short-only baseline: 30 requests leave fewer than 20 after the first wave of 16/);
    expect(existsSync(join(few, 'short-baseline'))).toBe(false);
    expect(recordsOf(join(few, 'requests.jsonl')).length).toBe(30);
  }, 90_000);

  it('a run that cannot take one (--runs 2) says so in one line and runs as asked', async () => {
    const out = join(tmpDir(), 'runs');
    const c = capture();
    expect(await main(['run', '--mix', MIX, '--requests', '20', '--concurrency', '8', '--runs', '2', ...SIM, '--out', out, '--json'], c.io), c.err).toBe(0);
    const notes = c.err.split('\n').filter((l) => l.includes('mixed lengths'));
    expect(notes).toEqual([expect.stringMatching(/^tokenflood: mixed lengths: \d+% under 4k, \d+% over; no automatic short-only baseline with --runs/)]);
    expect(existsSync(join(out, 'short-baseline'))).toBe(false);
    for (const k of [1, 2]) expect(recordsOf(join(out, `run-${k}`, 'requests.jsonl')).length).toBe(20);
  }, 90_000);
});
