// Split evaluation (as OpenCompass splits it across workers): eval --shard I/N grades disjoint slices, merge gives one run's accuracy.
import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { registerEval } from '../src/cli/eval.js';
import { registerMerge } from '../src/cli/merge.js';
import { runCli } from './fixtures/cli-harness.js';
import { tmpDir } from './helpers.js';

const FAST = ['--sim-time-scale', '100', '--quiet', '--no-server-metrics'];
const evalCli = (args: string[]) => runCli(registerEval, ['eval', ...FAST, ...args]);
const json = (dir: string, f: string) => JSON.parse(readFileSync(join(dir, f), 'utf8'));
const ids = (dir: string) => readFileSync(join(dir, 'eval.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l).item_id as string);

describe('eval --shard I/N and merge', () => {
  it('three shards grade disjoint slices covering the set; merged, the same accuracy, slices and items as one run', async () => {
    const dir = tmpDir();
    const set = ['--set', 'gsm8k', '--limit', '30', '--shots', '2', '--concurrency', '4'];
    const whole = join(dir, 'whole');
    const shards = [0, 1, 2].map((i) => join(dir, `s${i}`));
    const runs = await Promise.all([evalCli([...set, '--out', whole]), ...shards.map((d, i) => evalCli([...set, '--shard', `${i}/3`, '--out', d]))]);
    for (const r of runs) expect(r.code, r.err).toBe(0);
    const parts = shards.map(ids);
    expect(parts.map((p) => p.length)).toEqual([10, 10, 10]);
    expect(new Set(parts.flat()).size).toBe(30);
    expect(new Set(parts.flat())).toEqual(new Set(ids(whole)));
    expect(json(shards[1], 'eval.json').shard).toEqual({ index: 1, count: 3, set_items: 30 });

    const merged = join(dir, 'merged');
    const m = await runCli(registerMerge, ['merge', ...shards, '--out', merged]);
    expect(m.code, m.err).toBe(0);
    expect(m.out).toContain('merged 3 eval shards');
    const one = json(whole, 'eval.json');
    const all = json(merged, 'eval.json');
    expect(all.items).toBe(30);
    expect(all.overall).toEqual(one.overall);
    expect(all.slices).toEqual(one.slices);
    // The oracle answers some items wrong: the equality is not of two perfect scores.
    expect(one.overall.correct).toBeLessThan(30);
  }, 120_000);

  it('a shard missing, or a bad --shard, is exit 2 naming it', async () => {
    const dir = tmpDir();
    const s0 = join(dir, 's0');
    expect((await evalCli(['--set', 'gsm8k', '--limit', '4', '--shard', '0/2', '--out', s0])).code).toBe(0);
    const m = await runCli(registerMerge, ['merge', s0, '--out', join(dir, 'm')]);
    expect(m.code).toBe(2);
    expect(m.err).toContain('shards 1/2 missing');
    const bad = await evalCli(['--set', 'gsm8k', '--limit', '4', '--shard', '2/2', '--out', join(dir, 'x')]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--shard: shard index 2 is not below the count 2');
  }, 60_000);
});
