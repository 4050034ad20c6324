// Trace sessions replayed turn by turn (issue 27): spawn and join order, think and tool waits, --sessions N, --start-at-fraction, live answers, bad input.
import { describe, it, expect } from 'vitest';
import { execFile } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { simulate } from '../src/simulate.js';
import { run } from '../src/run.js';
import { createWorkload } from '../src/dataset/workload.js';
import { loadTokenizer } from '../src/dataset/tokenizer.js';
import { resolveRunConfig } from '../src/config/load.js';
import type { RunConfigInput } from '../src/config/schema.js';
import type { RequestSpec } from '../src/dataset/types.js';
import type { RequestRecord } from '../src/metrics/record.js';
import { createRng } from '../src/util/rng.js';
import { tmpDir } from './helpers.js';

const CLI = join(__dirname, '..', 'dist', 'bin', 'tokenflood.js');
const TRACELAB = join(__dirname, 'fixtures', 'traces', 'tracelab.jsonl');
const file = (name: string, text: string): string => {
  const f = join(tmpDir('tf-trace-sess-'), name);
  writeFileSync(f, text);
  return f;
};
const jsonl = (rows: object[]): string => rows.map((o) => JSON.stringify(o)).join('\n');
// Records keep times to the µs: the sum of two rounded times may pass the next send by a float ulp, so ends are taken 1 ns early.
const endOf = (r: RequestRecord): number => r.sent_at_ms + (r.end_ms ?? 0) - 1e-6;
const cli = (args: string[]): Promise<{ code: number | null; out: string; err: string }> =>
  new Promise((resolve) => execFile(process.execPath, [CLI, ...args], { timeout: 30_000 }, (e, out, err) => resolve({ code: e ? ((e as { code?: number }).code ?? 1) : 0, out, err })));

/**
 * A Weka session: main turns 0 (t 0), 1 (t 6 s), 2 (t 9 s, think 0.5 s). Subagents A (2 turns) and A2 (one long turn,
 * beside A) are spawned by turn 0 and joined by turn 1; subagent B (one long turn) is spawned by turn 1 and joined by turn 2; subagent C, after the last
 * turn, runs in the background.
 */
const WEKA = {
  id: 'sess-1',
  block_size: 64,
  requests: [
    { t: 0, type: 's', in: 200, out: 20, hash_ids: [1, 2, 3, 4] },
    { t: 1, type: 'subagent', agent_id: 'A', requests: [{ t: 0, type: 's', in: 64, out: 10, hash_ids: [1] }, { t: 2, type: 'n', in: 128, out: 10, hash_ids: [1, 7] }] },
    { t: 1.2, type: 'subagent', agent_id: 'A2', requests: [{ t: 0, type: 's', in: 64, out: 200, hash_ids: [20] }] },
    { t: 6, type: 's', in: 300, out: 20, hash_ids: [1, 2, 3, 4, 5] },
    { t: 6.5, type: 'subagent', agent_id: 'B', requests: [{ t: 0, type: 's', in: 64, out: 300, hash_ids: [9] }] },
    { t: 9, type: 's', in: 400, out: 20, hash_ids: [1, 2, 3, 4, 5, 6, 10], think_time: 0.5 },
    { t: 12, type: 'subagent', agent_id: 'C', requests: [{ t: 0, type: 's', in: 64, out: 400, hash_ids: [11] }] },
  ],
};

describe('trace sessions on simulate (virtual clock)', () => {
  it('keeps spawn and join order; join turns carry join_wait_ms, a background subagent blocks nothing; records carry session, turn, agent, source', async () => {
    const f = file('session.json', JSON.stringify(WEKA));
    const res = await simulate({ replay: f, endpoint: 'completions', replaySpeed: 10, out: tmpDir() });
    const recs = res.records;
    expect(res.summary.run.executor).toMatchObject({ kind: 'sessions', max_vus: null });
    expect(recs).toHaveLength(8);
    const by = (agent: string | undefined, turn: number) => recs.find((r) => r.agent === agent && r.turn === turn)!;
    const m0 = by(undefined, 0), m1 = by(undefined, 1), m2 = by(undefined, 2);
    const a0 = by('A', 0), a1 = by('A', 1), a2 = by('A2', 0), b0 = by('B', 0), c0 = by('C', 0);
    for (const r of recs) expect(r).toMatchObject({ session: 'sess-1', status: 'ok' });
    expect(a0.source).toBe(`${f} session sess-1 requests[1].requests[0]`);
    expect(m1.source).toBe(`${f} session sess-1 requests[3]`);
    // Spawn: a subagent's first send comes after its spawning turn ended, at the recorded spacing (1 s / 10) when faster.
    expect(a0.sent_at_ms).toBeGreaterThanOrEqual(endOf(m0));
    expect(a0.sent_at_ms).toBeCloseTo(Math.max(endOf(m0), 100), 0);
    expect(b0.sent_at_ms).toBeGreaterThanOrEqual(endOf(m1));
    expect(c0.sent_at_ms).toBeGreaterThanOrEqual(endOf(m2));
    expect(a1.sent_at_ms).toBeGreaterThanOrEqual(endOf(a0));
    // Join: turn 1 waits for A's last turn, turn 2 for B (B's 300 output tokens outlast the recorded 0.5 s think time).
    expect(m1.sent_at_ms).toBeGreaterThanOrEqual(endOf(a1));
    expect(m1.sent_at_ms).toBeGreaterThanOrEqual(endOf(a2));
    expect(a2.sent_at_ms).toBeGreaterThanOrEqual(endOf(m0));
    expect(m2.sent_at_ms).toBeCloseTo(endOf(b0), 3);
    expect(m2.join_wait_ms).toBeGreaterThan(0);
    // join_wait_ms = the join's send − when it was due without the subagents (its predecessor's end + think 500 ms / 10).
    expect(m2.join_wait_ms!).toBeCloseTo(m2.sent_at_ms - (endOf(m1) + 50), 1);
    expect(m1.join_wait_ms).toBeGreaterThanOrEqual(0);
    expect(m0.join_wait_ms).toBeUndefined();
    // The background subagent C: nothing waits for it; it may still run after the main agent's last turn ended.
    expect(c0.join_wait_ms).toBeUndefined();
    expect(endOf(c0)).toBeGreaterThan(endOf(m2));
    // The prompts are exact: completions send input_length tokens.
    expect(recs.map((r) => r.input_tokens).sort((x, y) => (x ?? 0) - (y ?? 0))).toEqual([64, 64, 64, 64, 128, 200, 300, 400]);
    // --concurrency 1 caps requests in flight (none by default: above, A's and A2's turns overlap).
    const overlaps = (rs: RequestRecord[]) => rs.some((x) => rs.some((y) => x !== y && x.sent_at_ms <= y.sent_at_ms && y.sent_at_ms < endOf(x) - 0.01));
    expect(overlaps(recs)).toBe(true);
    const one = await simulate({ replay: f, endpoint: 'completions', replaySpeed: 10, concurrency: 1, out: tmpDir() });
    expect(one.records).toHaveLength(8);
    expect(overlaps(one.records)).toBe(false);
    expect(one.summary.run.executor).toMatchObject({ kind: 'sessions', max_vus: 1 });
  });

  it('the engine serves the trace\'s shared blocks on chat as on completions: cached prompt tokens near the ceiling, never above it', async () => {
    const f = file('session.json', JSON.stringify(WEKA));
    const sum = (recs: RequestRecord[], k: 'cached_tokens' | 'ceiling_tokens') => recs.reduce((s, r) => s + ((r[k] as number | null | undefined) ?? 0), 0);
    for (const endpoint of ['chat', 'completions'] as const) {
      const recs = (await simulate({ replay: f, endpoint, replaySpeed: 10, out: tmpDir() })).records;
      const ceiling = sum(recs, 'ceiling_tokens');
      expect(ceiling, endpoint).toBeGreaterThan(500);
      // The engine caches whole 16-token blocks only; the ceiling counts tokens, so it may sit a partial block below.
      expect(sum(recs, 'cached_tokens'), endpoint).toBeGreaterThanOrEqual(0.8 * ceiling);
      expect(sum(recs, 'cached_tokens'), endpoint).toBeLessThanOrEqual(ceiling);
    }
  });

  it('--max-model-len: a turn over it is not sent and counted; its session goes on (the next turns and the join)', async () => {
    const f = file('session.json', JSON.stringify(WEKA));
    const res = await simulate({ replay: f, endpoint: 'completions', replaySpeed: 10, maxModelLen: 410, maxTokens: 20, out: tmpDir() });
    // With max_tokens 20 the last main turn (400 in + 20) is over 410; the other 7 requests go out, the background
    // subagent C (spawned by that skipped turn) included.
    expect(res.records).toHaveLength(7);
    expect(res.records.some((r) => r.agent === undefined && r.turn === 2)).toBe(false);
    expect(res.records.some((r) => r.agent === 'C')).toBe(true);
    expect(res.summary.run.workload).toMatchObject({ max_model_len: 410, skipped_over_max_model_len: 1, warnings: [expect.stringContaining('1 turns skipped')] });
  });

  it('think waits (Mooncake delay, gap, none, --max-idle-gap) and tool waits (TraceLab) hold on the run clock', async () => {
    const f = file('mc.jsonl', jsonl([
      { session_id: 'a', timestamp: 0, input_length: 600, output_length: 10, hash_ids: [1, 2] },
      { session_id: 'b', timestamp: 1000, input_length: 300, output_length: 10, hash_ids: [5] },
      { session_id: 'a', delay: 3000, input_length: 1100, output_length: 10, hash_ids: [1, 2, 3] },
      { session_id: 'a', timestamp: 20000, input_length: 1600, output_length: 10, hash_ids: [1, 2, 3, 4] },
    ]));
    const go = (extra: object) => simulate({ replay: f, endpoint: 'completions', replaySpeed: 10, out: tmpDir(), ...extra });
    const [rec, gap, none, capped] = await Promise.all([go({}), go({ thinkTime: 'gap' }), go({ thinkTime: 'none' }), go({ maxIdleGap: '0.1s' })]);
    const turns = (res: typeof rec) => [0, 1, 2].map((t) => res.records.find((r) => r.session === 'a' && r.turn === t)!);
    // Session b starts at its recorded time / 10.
    expect(rec.records.find((r) => r.session === 'b')!.sent_at_ms).toBeCloseTo(100, 3);
    // recorded: turn 1 waits its delay / 10 after turn 0's end; turn 2 (no delay) keeps the recorded spacing of sends.
    let [t0, t1, t2] = turns(rec);
    expect(t1.sent_at_ms - endOf(t0)).toBeCloseTo(300, 1);
    // turn 1 has no timestamp of its own (delay only): turn 2's gap is then 0.
    expect(t2.sent_at_ms - endOf(t1)).toBeCloseTo(0, 1);
    [t0, t1, t2] = turns(none);
    expect(t1.sent_at_ms - endOf(t0)).toBeCloseTo(0, 1);
    [t0, t1] = turns(capped);
    expect(t1.sent_at_ms - endOf(t0)).toBeCloseTo(100, 1);
    // gap: a request with a timestamp after one with a delay only has no recorded spacing; a delay is not a gap.
    [t0, t1] = turns(gap);
    expect(t1.sent_at_ms - endOf(t0)).toBeCloseTo(0, 1);
    expect(rec.summary.run.workload).toMatchObject({ kind: 'replay', format: 'mooncake', replay: 'sessions', sessions: 2, turns: 4, think_time: 'recorded' });

    // Bailian: a follow-up chat joins its root's session; each turn leaves at max(previous end, previous send + recorded spacing / 10).
    const bl = await simulate({ replay: join(__dirname, 'fixtures', 'traces', 'bailian.jsonl'), endpoint: 'completions', replaySpeed: 10, out: tmpDir() });
    const b159 = bl.records.filter((r) => r.session === '159').sort((x, y) => x.turn! - y.turn!);
    expect(b159.map((r) => r.turn)).toEqual([0, 1, 2]);
    const at = [61.114, 62.5];
    expect(b159[1].sent_at_ms).toBeCloseTo(Math.max(endOf(b159[0]), b159[0].sent_at_ms + ((at[1] - at[0]) * 1000) / 10), 1);
    expect(b159[2].sent_at_ms).toBeGreaterThanOrEqual(endOf(b159[1]) - 0.01);

    // TraceLab round 0 made tool calls (860 + … ms recorded): round 1 waits that tool time / 10 before it goes.
    const tl = await simulate({ replay: TRACELAB, endpoint: 'completions', replaySpeed: 10, thinkTime: 'none', out: tmpDir() });
    const r0 = tl.records.find((r) => r.session === 'claude:92ee5b8a' && r.turn === 0)!;
    const r1 = tl.records.find((r) => r.session === 'claude:92ee5b8a' && r.turn === 1)!;
    expect(r1.tool_wait_ms).toBeGreaterThan(0);
    expect(r1.sent_at_ms - endOf(r0)).toBeCloseTo(r1.tool_wait_ms!, 1);
    expect(r0.tool_wait_ms).toBeUndefined();
  });

  it('--sessions N: a closed loop of N sessions in flight, recycled with ids <id>#<n> until --requests', async () => {
    const f = file('mc.jsonl', jsonl([
      { session_id: 's1', timestamp: 0, input_length: 600, output_length: 20, hash_ids: [1, 2] },
      { session_id: 's2', timestamp: 0, input_length: 300, output_length: 20, hash_ids: [5] },
      { session_id: 's1', timestamp: 100, input_length: 1100, output_length: 20, hash_ids: [1, 2, 3] },
      { session_id: 's3', timestamp: 50, input_length: 700, output_length: 20, hash_ids: [8, 9] },
    ]));
    const res = await simulate({ replay: f, endpoint: 'completions', sessions: 2, requests: 11, thinkTime: 'none', out: tmpDir() });
    const recs = res.records;
    expect(recs).toHaveLength(11);
    const ids = [...new Set(recs.map((r) => r.session))];
    expect(ids.slice(0, 5)).toEqual(['s1', 's2', 's3', 's1#1', 's2#1']);
    // At most 2 sessions in flight: at any send, the sessions begun and not yet ended number at most 2.
    const span = new Map<string, [number, number]>();
    for (const r of recs) {
      const s = span.get(r.session!) ?? [Infinity, -Infinity];
      span.set(r.session!, [Math.min(s[0], r.sent_at_ms), Math.max(s[1], endOf(r))]);
    }
    for (const r of recs) expect([...span.values()].filter(([a, b]) => a <= r.sent_at_ms && r.sent_at_ms < b - 0.01).length).toBeLessThanOrEqual(2);
    expect(res.summary.run.workload).toMatchObject({ replay: 'sessions-closed-loop', sessions_in_flight: 2 });
    expect((res.summary.run.workload as { passes: number }).passes).toBeGreaterThanOrEqual(3);
    // A new pass has its own cache-bust marker: s1#1's first prompt (the same hash ids as s1's) finds nothing cached,
    // and its ceiling counts from an empty cache; with --no-cache-bust the blocks repeat and hit the engine's cache.
    const again = recs.find((r) => r.session === 's1#1' && r.turn === 0)!;
    expect(again.ceiling_tokens).toBe(0);
    expect(again.cached_tokens).toBe(0);
    const same = await simulate({ replay: f, endpoint: 'completions', sessions: 2, requests: 11, thinkTime: 'none', cacheBust: false, datasetSeed: 1, out: tmpDir() });
    expect(same.records.find((r) => r.session === 's1#1' && r.turn === 0)!.cached_tokens).toBeGreaterThan(500);
  });

  it('--start-at-fraction: each session starts partway after a warmup (the earlier turn, max_tokens 1), recorded as warmup and excluded', async () => {
    const f = file('mc.jsonl', jsonl([0, 1, 2, 3].flatMap((t) => [
      { session_id: 'x', timestamp: t * 100, input_length: 512 * (t + 1), output_length: 20, hash_ids: Array.from({ length: t + 1 }, (_, i) => i + 1) },
      { session_id: 'y', timestamp: t * 100 + 10, input_length: 512 * (t + 1), output_length: 20, hash_ids: Array.from({ length: t + 1 }, (_, i) => i + 100) },
    ])));
    const res = await simulate({ replay: f, endpoint: 'completions', startAtFraction: 0.5, replaySpeed: 10, out: tmpDir() });
    const recs = res.records;
    const warm = recs.filter((r) => r.warmup);
    expect(warm.map((r) => [r.session, r.turn, r.output_tokens]).sort()).toEqual([['x', 1, 1], ['y', 1, 1]]);
    const measured = recs.filter((r) => !r.warmup);
    expect(measured.map((r) => `${r.session}${r.turn}`).sort()).toEqual(['x2', 'x3', 'y2', 'y3']);
    for (const s of ['x', 'y']) {
      const w = warm.find((r) => r.session === s)!;
      expect(measured.find((r) => r.session === s && r.turn === 2)!.sent_at_ms).toBeGreaterThanOrEqual(endOf(w));
    }
    expect(res.summary.requests).toMatchObject({ total: 4 });
    expect(res.summary.run.workload).toMatchObject({ warmup_requests: 2, skipped_turns: 4, start_at_fraction: 0.5 });
  });
});

describe('trace sessions: live answers and bad input', () => {
  const tok = loadTokenizer('cl100k_base');
  const config = (flags: RunConfigInput) => resolveRunConfig({ flags: flags as Record<string, unknown> }).config;

  it('--session-answers live: the next turn is the prior prompt + the server\'s answer + the turn\'s new tokens, counted with the tokenizer', async () => {
    const f = file('mc.jsonl', jsonl([
      { session_id: 'a', timestamp: 0, input_length: 600, output_length: 30, hash_ids: [1, 2] },
      { session_id: 'a', timestamp: 10, input_length: 1100, output_length: 10, hash_ids: [1, 2, 3] },
    ]));
    for (const mode of ['recorded', 'live'] as const) {
      const w = createWorkload(config({ replay: f, endpoint: 'completions', sessionAnswers: mode, thinkTime: 'none' }), tok, createRng(1), undefined);
      let t = 0;
      w.schedule!.begin(() => t, () => {});
      w.schedule!.take(0);
      const s0 = w.next(0) as RequestSpec;
      expect(w.schedule!.peek()).toBeUndefined();
      t = 40;
      w.complete!({ spec: s0, ok: true, answerText: ' ANSWER-TEXT', reasoningText: '', record: { sent_at_ms: 0, end_ms: 40 } as RequestRecord });
      expect(w.schedule!.peek()).toMatchObject({ atMs: 40, warmup: false });
      w.schedule!.take(1);
      const s1 = w.next(1) as RequestSpec;
      expect(w.schedule!.done()).toBe(false);
      if (mode === 'recorded') {
        expect(s1.inputTokens).toBe(1100);
        expect(s1.prompt).not.toContain('ANSWER-TEXT');
      } else {
        expect(s1.prompt.startsWith(s0.prompt + ' ANSWER-TEXT')).toBe(true);
        expect(s1.inputTokens).toBe(tok.count(s1.prompt));
        // The new tokens: the recorded prompt past the previous prompt and its recorded output (1100 − 630).
        expect(s1.inputTokens).toBeGreaterThan(600 + 470);
      }
    }
    // Live on the embedded server: with --max-tokens 5 the real answer is 5 tokens, not the recorded 30, so the second
    // turn's prompt is about 600 + 5 + 470 tokens (the recorded prompt would be 1100).
    const res = await run({ replay: f, endpoint: 'completions', sessionAnswers: 'live', thinkTime: 'none', maxTokens: 5, out: tmpDir(), quiet: true, simTimeScale: 20 });
    const [r0, r1] = [0, 1].map((k) => res.records.find((r) => r.turn === k)!);
    expect(r0.status).toBe('ok');
    expect(r1.status).toBe('ok');
    expect(r1.sent_at_ms).toBeGreaterThanOrEqual(endOf(r0) - 1);
    expect(r0.output_tokens).toBe(5);
    expect(r1.input_tokens).toBeGreaterThanOrEqual(1070);
    expect(r1.input_tokens).toBeLessThanOrEqual(1080);
  });

  it('a bad session trace exits 2 naming file and field, nothing sent; --shard refuses trace sessions', async () => {
    const bad = file('bad.json', JSON.stringify({ id: 'z', requests: [{ t: 0, in: 64, out: 1, hash_ids: [1] }, { t: 1, type: 'subagent', requests: [] }] }));
    const out = join(tmpDir(), 'never');
    const good = file('ok.jsonl', jsonl([{ session_id: 'a', timestamp: 0, input_length: 100, output_length: 5 }]));
    const [a, b] = await Promise.all([
      cli(['simulate', '--replay', bad, '--out', out]),
      cli(['run', '--replay', good, '--shard', '0/2', '--base-url', 'http://127.0.0.1:9', '--out', join(tmpDir(), 'never2')]),
    ]);
    expect(a.code).toBe(2);
    expect(a.err).toContain(`${bad} session z requests[1]: agent_id`);
    expect(existsSync(out)).toBe(false);
    expect(b.code).toBe(2);
    expect(b.err).toMatch(/--shard: trace sessions .* cannot be split over shards/);
  });
});
