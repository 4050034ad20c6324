// `tokenflood trace synth` through the built CLI: written, read back by `trace stats`, overwrite rules and bad flags (exit 2).
import { describe, it, expect } from 'vitest';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CLI = join(__dirname, '..', 'dist', 'bin', 'tokenflood.js');

function cli(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { timeout: 30_000 }, (e, out, err) => resolve({ code: e ? ((e as { code?: number }).code ?? 1) : 0, out, err }));
  });
}
const snapshot = (d: string): string => readdirSync(d).sort().map((f) => readFileSync(join(d, f), 'utf8')).join('');

describe('tokenflood trace synth', () => {
  it('writes the sessions asked for; trace stats reads them back (--json, --trace-block-size); --json summarizes', async () => {
    const root = mkdtempSync(join(tmpdir(), 'tf-synth-cli-'));
    const out = join(root, 'trace');
    const w = await cli(['trace', 'synth', '--sessions', '5', '--turns', 'uniform:3,6', '--system-tokens', '640', '--subagent-probability', '1', '--subagent-fanout', '1', '--rate', '1', '--seed', '7', '--out', out, '--json']);
    expect(w.err).toBe('');
    expect(w.code).toBe(0);
    const sum = JSON.parse(w.out);
    expect(sum).toMatchObject({ out, format: 'weka', files: 5, sessions: 5, block_size: 64, shared_prefix_blocks: 10, seed: 7 });
    expect(readdirSync(out)).toEqual(['session-00000.json', 'session-00001.json', 'session-00002.json', 'session-00003.json', 'session-00004.json']);
    const [json, small, text] = await Promise.all([
      cli(['trace', 'stats', out, '--json', '--trace-block-size', '64']),
      cli(['trace', 'stats', out, '--trace-block-size', '32']),
      cli(['trace', 'stats', out]),
    ]);
    expect(json.code).toBe(0);
    const s = JSON.parse(json.out);
    expect(s).toMatchObject({ format: 'weka', block_size: 64, sessions: 5, requests: sum.requests, skipped_bad_records: 0, warnings: [] });
    expect(s.turns_per_session.min).toBeGreaterThanOrEqual(3);
    expect(s.turns_per_session.max).toBeLessThanOrEqual(6);
    expect(s.subagents.count).toBe(sum.subagents);
    expect(s.subagents.count).toBeGreaterThanOrEqual(15);
    // Ten shared 64-token blocks: every turn-0 request but the first (sessions and subagents alike) finds them.
    expect(s.cache_ceiling.by_turn[0].cached_tokens).toBe((s.cache_ceiling.by_turn[0].requests - 1) * 640);
    expect(s.cache_ceiling.ratio).toBeGreaterThan(0);
    // 32-token blocks cannot be covered by ids written for 64: the flag is in force.
    expect(small.code).toBe(2);
    expect(small.err).toMatch(/hash_ids: \d+ blocks of 32 tokens cannot cover input_length/);
    expect(text.code).toBe(0);
    expect(text.out).toMatch(/^.*trace: weka .*64-token blocks\n\d+ requests: 5 sessions, 0 stand-alone/);
  });

  it('refuses to overwrite without --force (exit 2, the old trace kept); --force replaces a trace directory only', async () => {
    const root = mkdtempSync(join(tmpdir(), 'tf-synth-cli-'));
    const out = join(root, 'trace');
    const args = ['trace', 'synth', '--sessions', '2', '--turns', '2', '--out', out];
    expect((await cli(args)).code).toBe(0);
    const before = snapshot(out);
    const again = await cli([...args, '--seed', '9']);
    expect(again.code).toBe(2);
    expect(again.err).toBe(`tokenflood: --out ${out}: already exists (--force replaces it)\n`);
    expect(snapshot(out)).toBe(before);
    const forced = await cli([...args, '--seed', '9', '--force']);
    expect(forced.code).toBe(0);
    expect(snapshot(out)).not.toBe(before);
    expect(readdirSync(root)).toEqual(['trace']); // no temp or old directory left behind
    const other = join(root, 'notes');
    mkdirSync(other);
    writeFileSync(join(other, 'README.md'), 'mine');
    const refused = await cli(['trace', 'synth', '--sessions', '1', '--out', other, '--force']);
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/holds README.md, not only session files/);
    expect(readdirSync(other)).toEqual(['README.md']);
  });

  it('bad flag values exit 2 naming each flag, and nothing is written', async () => {
    const root = mkdtempSync(join(tmpdir(), 'tf-synth-cli-'));
    const out = join(root, 'trace');
    const [bad, file, missing, stats] = await Promise.all([
      cli(['trace', 'synth', '--sessions', 'ten', '--output-tokens', 'lognormal:300', '--rate', '-1', '--out', out]),
      cli(['trace', 'synth', '--sessions', '2', '--out', join(root, 'one.json')]),
      cli(['trace', 'synth', '--sessions', '2']),
      cli(['trace', 'stats', root, '--trace-block-size', '0']),
    ]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--sessions: expected an integer >= 1, got "ten"');
    expect(bad.err).toContain('--output-tokens: lognormal needs a number for sd in "lognormal:300"');
    expect(bad.err).toContain('--rate: expected a number in [0, ∞], got "-1"');
    expect(file.code).toBe(2);
    expect(file.err).toContain('a Weka session file holds one session; give a directory for --sessions 2');
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('--out: required');
    expect(stats.code).toBe(2);
    expect(stats.err).toBe('tokenflood: --trace-block-size: expected a positive integer, got "0"\n');
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(root)).toEqual([]);
    const one = join(root, 'one.json');
    const single = await cli(['trace', 'synth', '--sessions', '1', '--out', one, '--json']);
    expect(single.code).toBe(0);
    expect(JSON.parse(readFileSync(one, 'utf8')).requests.length).toBeGreaterThan(0);
  });
});
