// compare shows TTFT per turn index for runs with turns, as information: it never counts as a regression.
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { registerCompare } from '../src/cli/compare.js';
import { recordLine } from '../src/metrics/jsonl.js';
import type { RequestRecord } from '../src/metrics/record.js';
import { runCli } from './fixtures/cli-harness.js';
import { tmpDir } from './helpers.js';
import { sessionRecords } from './fixtures/session-records.js';

/** A results directory holding `recs` (the summary is rebuilt from requests.jsonl). */
function runDir(recs: readonly RequestRecord[]): string {
  const dir = tmpDir();
  writeFileSync(join(dir, 'requests.jsonl'), recs.map((r) => recordLine(r)).join(''));
  writeFileSync(join(dir, 'run.json'), JSON.stringify({ model: 'm', target_url: 'http://127.0.0.1:1' }));
  return dir;
}

/** The same records with turn `turn`'s token events `ms` later (its TTFT grows by exactly that). */
const slowerTurn = (recs: readonly RequestRecord[], turn: number, ms: number): RequestRecord[] =>
  recs.map((r) => (r.turn === turn && r.status === 'ok' ? { ...r, event_times_ms: r.event_times_ms.map((t) => t + ms), end_ms: (r.end_ms ?? 0) + ms } : r));

describe('compare: TTFT by turn index', () => {
  it('--json carries per-turn TTFT deltas; the terminal shows them as informational; --fail-on never names them', async () => {
    const base = runDir(sessionRecords());
    const cand = runDir(slowerTurn(sessionRecords(), 3, 40));
    const j = await runCli(registerCompare, ['compare', base, cand, '--json', '--no-html', '--fail-on', 'all']);
    const res = JSON.parse(j.out);
    const turns = res.comparisons[0].by_turn as { turn: string; ttft_p50: { baseline: number; candidate: number; delta: number; relative: number } }[];
    expect(turns.map((t) => t.turn)).toEqual([...Array.from({ length: 16 }, (_, i) => String(i)), '16+']);
    const t3 = turns.find((t) => t.turn === '3')!;
    expect(t3.ttft_p50.baseline).toBe(13); // session a's turn 3: TTFT 10 + 3
    expect(t3.ttft_p50.delta).toBeCloseTo(40, 6);
    expect(t3.ttft_p50.relative).toBeCloseTo(40 / 13, 6);
    expect(turns.filter((t) => t.turn !== '3').every((t) => t.ttft_p50.delta === 0)).toBe(true);
    expect(res.comparisons[0].regressions.map((r: { metric: string }) => r.metric).some((m: string) => m.includes('turn'))).toBe(false);

    const h = await runCli(registerCompare, ['compare', base, cand, '--html', join(cand, 'cmp.html')]);
    expect(h.code, h.err).toBe(0);
    const html = readFileSync(join(cand, 'cmp.html'), 'utf8');
    expect(html).toContain('<h3>TTFT by turn index</h3>');
    expect(html).toContain('<tr><td>3</td><td>1/1</td><td>13.00</td><td>53.00</td><td>+307.7%</td>');

    const t = await runCli(registerCompare, ['compare', base, cand, '--no-html']);
    expect(t.out).toContain('TTFT by turn index (informational: not a regression check):');
    expect(t.out).toMatch(/^3\s+1\/1\s+13\.00\s+53\.00\s+\+40\.00\s+\+307\.7%/m);
  });

  it('runs without turns have no by_turn', async () => {
    const plain = sessionRecords().map((r) => ({ ...r, session: undefined, turn: undefined, agent: undefined, ceiling_tokens: undefined }));
    const j = await runCli(registerCompare, ['compare', runDir(plain), runDir(plain), '--json', '--no-html']);
    expect(JSON.parse(j.out).comparisons[0].by_turn).toBeUndefined();
  });
});
