// Sessions and turns on the terminal and in --json: a real multi-turn dataset on simulate, and trace-replay record fixtures.
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import { readRecords } from '../src/metrics/jsonl.js';
import { distStatsCi } from '../src/metrics/ci95.js';
import { buildSummary } from '../src/metrics/summary.js';
import { renderSummary } from '../src/report/terminal.js';
import { fmt, pct } from '../src/report/format.js';
import { capture } from './io-capture.js';
import { tmpDir } from './helpers.js';
import { sessionRecords } from './fixtures/session-records.js';

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const cap = capture();
  const code = await main(args, cap.io);
  return { code, out: cap.out, err: cap.err };
}

/** `convs` ShareGPT conversations of `turns` turns each, prompts growing with the turn. */
function multiTurn(dir: string, convs: number, turns: number): string {
  const data = Array.from({ length: convs }, (_, c) => ({
    conversations: Array.from({ length: turns }, (_, t) => [{ from: 'human', value: `conv ${c} turn ${t} ${'word '.repeat(40 + 30 * t)}` }, { from: 'gpt', value: 'ok' }]).flat(),
  }));
  const f = join(dir, 'multi.json');
  writeFileSync(f, JSON.stringify(data));
  return f;
}

describe('sessions and turns: terminal and --json', () => {
  it('simulate on a multi-turn dataset: --json carries by_turn and sessions, matching the records; the terminal shows the per-turn table', async () => {
    const dir = tmpDir();
    const f = multiTurn(dir, 6, 3);
    const out = join(dir, 'r');
    const j = await cli(['simulate', '--dataset', f, '--dataset-mode', 'once', '--concurrency', '3', '--quiet', '--json', '--out', out]);
    expect(j.code, j.err).toBe(0);
    const s = JSON.parse(j.out);
    const { records } = readRecords(join(out, 'requests.jsonl'));
    expect(Object.keys(s.by_turn)).toEqual(['0', '1', '2']);
    for (const k of ['0', '1', '2']) {
      const turn = records.filter((r) => !r.warmup && r.turn === Number(k) && r.status === 'ok');
      expect(turn).toHaveLength(6);
      expect(s.by_turn[k].ttft_ms).toEqual(JSON.parse(JSON.stringify(distStatsCi(turn.map((r) => r.ttft_ms!)))));
    }
    // Later turns carry longer prompts (history + a longer message): their TTFT is higher on the engine model.
    expect(s.by_turn['2'].ttft_ms.p50).toBeGreaterThan(s.by_turn['0'].ttft_ms.p50);
    expect(s.sessions.count).toBe(6);
    expect(s.sessions.turns.min).toBe(3);
    expect(s.sessions.turns.max).toBe(3);
    expect(s.sessions.duration_ms.min).toBeGreaterThan(0);
    expect(s.prefix_reuse).toBeUndefined(); // no ceiling without a trace

    const t = await cli(['simulate', '--dataset', f, '--dataset-mode', 'once', '--concurrency', '3', '--out', join(dir, 't')]);
    expect(t.code, t.err).toBe(0);
    const lines = t.out.split('\n');
    const at = lines.findIndex((l) => l.startsWith('by turn'));
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toMatch(/^turn\s+requests\s+ok\s+TTFT p50/);
    expect(lines.slice(at + 3, at + 6).map((l) => l.split(/\s+/).slice(0, 3))).toEqual([['0', '6', '6'], ['1', '6', '6'], ['2', '6', '6']]);
    expect(t.out).toMatch(/^sessions: 6, duration p50 [\d.]+ s/m);
    // --percentiles sets the columns, as in the other breakdown tables.
    const p = await cli(['simulate', '--dataset', f, '--dataset-mode', 'once', '--concurrency', '3', '--percentiles', '50,99,99.9', '--out', join(dir, 'p')]);
    expect(p.out).toMatch(/^turn\s+requests\s+ok\s+TTFT p50\s+TTFT p99\s+TTFT p99\.9\s+TPOT p50\s+E2E p99\s+E2E p99\.9$/m);
  }, 30_000);

  it('a session trace with subagents replayed on simulate: sessions, joins and the ceiling match the records and the trace\'s own stats', async () => {
    const dir = tmpDir();
    const trace = 'test/fixtures/traces/weka';
    const j = await cli(['simulate', '--replay', trace, '--endpoint', 'completions', '--replay-speed', '20', '--quiet', '--json', '--out', dir]);
    expect(j.code, j.err).toBe(0);
    const s = JSON.parse(j.out);
    const { records } = readRecords(join(dir, 'requests.jsonl'));
    const measured = records.filter((r) => !r.warmup);
    expect(s.sessions.count).toBe(new Set(measured.map((r) => r.session)).size);
    expect(s.sessions.subagents).toBe(new Set(measured.filter((r) => r.agent).map((r) => `${r.session}/${r.agent}`)).size);
    expect(s.sessions.subagents).toBeGreaterThan(0);
    const joins = measured.filter((r) => r.join_wait_ms !== undefined);
    expect(joins.length).toBeGreaterThan(0);
    expect(s.sessions.join_wait_ms.total_ms).toBeCloseTo(joins.reduce((a, r) => a + r.join_wait_ms!, 0), 6);
    const st = await cli(['trace', 'stats', trace, '--json']);
    const ceiling = JSON.parse(st.out).cache_ceiling;
    expect(s.prefix_reuse.ceiling_tokens).toBe(ceiling.cached_tokens);
    expect(s.prefix_reuse.prompt_tokens).toBe(ceiling.prompt_tokens);
    // The embedded engine's prefix cache is large here: it serves the ceiling, within its block rounding.
    expect(s.prefix_reuse.cached_vs_ceiling).toBeGreaterThan(0.9);
    expect(s.prefix_reuse.cached_vs_ceiling).toBeLessThanOrEqual(1);
  }, 30_000);

  it('open-loop trace records (a ceiling, no session or turn): only the prefix-reuse line', () => {
    const recs = sessionRecords().map((r) => ({ ...r, session: undefined, turn: undefined, agent: undefined }));
    const txt = renderSummary(buildSummary(recs, { model: 'm' }));
    expect(txt).not.toContain('by turn');
    expect(txt).not.toMatch(/^sessions:/m);
    expect(txt).toMatch(/\n\nprefix reuse: \d+ cached of \d+ ceiling tokens/);
  });

  it('trace-replay records: the per-turn table gains ceiling and cached shares; sessions and prefix reuse lines give the sums', () => {
    const s = buildSummary(sessionRecords(), { model: 'm' });
    const txt = renderSummary(s);
    expect(txt).toMatch(/^turn\s+requests\s+ok\s+TTFT p50\s+TTFT p99\s+TPOT p50\s+E2E p99\s+ceiling\s+cached$/m);
    // Turn 1: TTFTs 11 (a), 60 (b); ceiling 1400 of 1801 prompt tokens, cached 550.
    const t1 = txt.split('\n').find((l) => l.startsWith('1 '))!.trim().split(/\s+/);
    expect(t1).toEqual(['1', '3', '2', fmt(s.by_turn!['1'].ttft_ms.p50), fmt(s.by_turn!['1'].ttft_ms.p99), fmt(s.by_turn!['1'].tpot_ms.p50), fmt(s.by_turn!['1'].e2e_ms.p99), pct(1400 / 1801), pct(550 / 1801)]);
    expect(txt).toMatch(/^16\+\s+4\s+4\s/m);
    const p = s.prefix_reuse!;
    expect(txt).toContain(`prefix reuse: ${p.cached_tokens} cached of ${p.ceiling_tokens} ceiling tokens (${((p.cached_tokens / p.ceiling_tokens) * 100).toFixed(1)}% of the ceiling)`);
    expect(txt).toMatch(/sessions: 2, .*1 subagent in 1 session; join wait 0\.07\d? s in all over 1 turn .*; tool wait 0\.03\d? s in all over 2 turns/);
  });
});
