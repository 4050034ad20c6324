// --short-baseline: a short-only run at the same load first, then the mixed run, and the slowdown long requests cause.
import { describe, it, expect } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import { ShortValues, shortSlowdown } from '../src/metrics/short-slowdown.js';
import type { RequestRecord } from '../src/metrics/record.js';
import { capture } from './io-capture.js';
import { tmpDir } from './helpers.js';

const MIX = 'short: 70% in 256 out 32; long: 30% in 12000 out 32';
const SIM = ['--sim-time-scale', '10', '--no-server-metrics'];
const recordsOf = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));

const rec = (inTok: number, ttft: number): RequestRecord => ({ warmup: false, status: 'ok', expected_input_tokens: inTok, input_tokens: inTok, ttft_ms: ttft, tpot_ms: 1, e2e_ms: ttft + 10 }) as unknown as RequestRecord;

describe('short-vs-long baseline', () => {
  it('the slowdown: mixed − baseline means with Welch\'s interval, ratios; long requests only counted', () => {
    const base = new ShortValues(1000);
    const mixed = new ShortValues(1000);
    for (const t of [10, 12, 11, 9, 10]) base.add(rec(100, t));
    for (const t of [20, 22, 21, 19, 20]) mixed.add(rec(100, t));
    mixed.add(rec(5000, 500));
    const s = shortSlowdown(base, mixed, 1000, 'b');
    expect([s.mixed_short_requests, s.mixed_long_requests, s.baseline_requests]).toEqual([5, 1, 5]);
    expect(s.rows.ttft_ms.difference_ms).toBeCloseTo(10, 9);
    expect(s.rows.ttft_ms.ratio).toBeCloseTo(20.4 / 10.4, 9);
    const [lo, hi] = s.rows.ttft_ms.difference_ci95!;
    expect(lo).toBeGreaterThan(7);
    expect(hi).toBeLessThan(13);
    expect(s.rows.tpot_ms.difference_ms).toBe(0);
  });

  it('requests below the first value id (warmup and the first wave) are counted but give no values', () => {
    const v = new ShortValues(1000, 2);
    for (const id of [0, 1, 2, 3]) v.add({ ...rec(100, 10 * (id + 1)), id });
    v.add({ ...rec(5000, 1), id: 1 });
    expect([v.short, v.long]).toEqual([4, 1]);
    expect(v.values.ttft_ms).toEqual([30, 40]);
  });

  it('on the sim: the baseline holds only short requests, and long requests in the mixed run slow the short ones', async () => {
    const out = join(tmpDir(), 'mixed');
    const c = capture();
    const args = ['run', '--mix', MIX, '--short-baseline', '4k', '--requests', '40', '--concurrency', '8', '--dataset-seed', '5'];
    expect(await main([...args, '--sim-time-scale', '10', '--no-server-metrics', '--out', out], c.io), c.err).toBe(0);
    const base = readFileSync(join(out, 'short-baseline', 'requests.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    expect(base.length).toBe(40);
    expect(base.every((r) => r.expected_input_tokens < 4096)).toBe(true);
    const s = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')).short_baseline;
    expect(s.threshold_tokens).toBe(4096);
    // Asked for: the mixed run's size, and no automatic line.
    expect(s.automatic).toBe(false);
    expect(s.size_rule).toMatch(/the mixed run's size/);
    expect(c.err).not.toMatch(/mixed lengths:/);
    expect(s.mixed_short_requests + s.mixed_long_requests).toBe(40);
    expect(s.mixed_long_requests).toBeGreaterThan(0);
    // 12k-token prefills share the engine's steps with the short requests' decodes: their TPOT and E2E grow.
    expect(s.rows.tpot_ms.ratio).toBeGreaterThan(1.2);
    expect(s.rows.e2e_ms.difference_ms).toBeGreaterThan(0);
    expect(c.out).toMatch(/short-vs-long baseline \(prompts under 4096 tokens are short\)/);
    expect(c.out).toMatch(/TPOT \(ms\)\s+[\d.]+\s+[\d.]+\s+\+[\d.]+\s+\[/);
  }, 90_000);

  it('needs --out, refuses --runs, and a bad token count exits 2 naming the flag', async () => {
    const a = capture();
    expect(await main(['run', '--short-baseline', '4k', '--requests', '2'], a.io)).toBe(2);
    expect(a.err).toMatch(/--short-baseline: give --out DIR/);
    const b = capture();
    expect(await main(['run', '--short-baseline', 'four', '--requests', '2', '--out', join(tmpDir(), 'x')], b.io)).toBe(2);
    expect(b.err).toMatch(/--short-baseline: bad bound "four"/);
    // Where a baseline cannot run, the flag refuses (the automatic one only notes it); nothing is written.
    const out = join(tmpDir(), 'r');
    const r = capture();
    expect(await main(['run', '--short-baseline', '4k', '--runs', '2', '--requests', '2', '--out', out], r.io)).toBe(2);
    expect(r.err).toMatch(/--short-baseline: not with --runs, --eval-under-load or --shard\/--start-at/);
    expect(existsSync(out)).toBe(false);
  });

});
