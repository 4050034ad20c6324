// Sessions and turns in the summary: by_turn pooling, per-session figures, waits, and prefix reuse against the ceiling.
import { describe, it, expect } from 'vitest';
import { buildSummary } from '../src/metrics/summary.js';
import { percentile } from '../src/metrics/stats.js';
import { distStatsCi } from '../src/metrics/ci95.js';
import { TURN_POOL_FROM, turnKey } from '../src/metrics/sessions.js';
import { rec, sessionRecords as fixture } from './fixtures/session-records.js';
import { loadTrace } from '../src/dataset/trace/registry.js';
import { cacheCeiling, createCeilingCounter } from '../src/dataset/trace/ceiling.js';

const run = { model: 'm' };

describe('summary by_turn, sessions and prefix_reuse', () => {
  it('breaks TTFT/TPOT/E2E down by turn index, pooling turns from TURN_POOL_FROM on', () => {
    const recs = fixture();
    const s = buildSummary(recs, run);
    const keys = Object.keys(s.by_turn!);
    expect(keys).toEqual([...Array.from({ length: TURN_POOL_FROM }, (_, i) => String(i)), `${TURN_POOL_FROM}+`]);
    const measured = recs.filter((r) => !r.warmup);
    for (const k of keys) {
      const inTurn = measured.filter((r) => turnKey(r.turn!) === k);
      const ok = inTurn.filter((r) => r.status === 'ok');
      const b = s.by_turn![k];
      expect(b.requests).toBe(inTurn.length);
      expect(b.ok).toBe(ok.length);
      expect(b.ttft_ms).toEqual(distStatsCi(ok.map((r) => r.ttft_ms!)));
      expect(b.e2e_ms).toEqual(distStatsCi(ok.map((r) => r.e2e_ms!)));
      expect(b.tpot_ms.p50).toBeCloseTo(2, 9); // events 2 ms apart
    }
    // Turns 16..19 of session a pooled: TTFTs 26..29.
    expect(s.by_turn!['16+'].ttft_ms.min).toBe(26);
    expect(s.by_turn!['16+'].ttft_ms.max).toBe(29);
    expect(s.by_turn!['1'].requests).toBe(3); // a's turn 1, b's turn 1, b.sub1's failed turn 1
    expect(s.by_turn!['1'].ok).toBe(2);
  });

  it('gives per-session duration, turns, waits and subagents; warmup is left out', () => {
    const s = buildSummary(fixture(), run);
    const x = s.sessions!;
    expect(x.count).toBe(2);
    // a: first send 0, last end at 1900 + (10 + 19) + 3·2 + 1; b: first send 50, last end 400 + 5 (the timeout).
    const durA = 1900 + 29 + 6 + 1;
    const durB = 405 - 50;
    expect(x.duration_ms.max).toBe(durA);
    expect(x.duration_ms.min).toBe(durB);
    expect(x.duration_ms.p50).toBe(percentile([durB, durA], 50));
    expect(x.turns.max).toBe(20);
    expect(x.turns.min).toBe(2);
    expect(x.requests.min).toBe(4);
    expect(x.subagents).toBe(1);
    expect(x.sessions_with_subagents).toBe(1);
    expect(x.join_wait_ms.total_ms).toBe(75);
    expect(x.join_wait_ms.per_request.count).toBe(1);
    expect(x.tool_wait_ms.total_ms).toBe(25);
    expect(x.tool_wait_ms.per_request.max).toBe(20);
  });

  it('sets the cached tokens beside the ceiling, overall and per turn (ok requests only)', () => {
    const s = buildSummary(fixture(), run);
    const p = s.prefix_reuse!;
    const prompt = Array.from({ length: 20 }, (_, t) => 1000 + t).reduce((a, b) => a + b, 0) + 500 + 600 + 800;
    const ceiling = 19 * 900 + 400 + 500;
    const cached = 19 * 450 + 400 + 100;
    expect(p).toMatchObject({ requests: 23, prompt_tokens: prompt, ceiling_tokens: ceiling, cached_tokens: cached, cached_reported: 23 });
    expect(p.cached_vs_ceiling).toBeCloseTo(cached / ceiling, 12);
    expect(p.ceiling_share).toBeCloseTo(ceiling / prompt, 12);
    expect(p.by_turn['0']).toMatchObject({ requests: 3, ceiling_tokens: 400, cached_tokens: 400, cached_vs_ceiling: 1 });
    expect(p.by_turn['1'].cached_vs_ceiling).toBeCloseTo((450 + 100) / (900 + 500), 12);
    expect(p.by_turn['16+'].requests).toBe(4);
  });

  it('is absent without session fields, and the ratio is null when no server reported cached tokens', () => {
    const plain = buildSummary([rec({}), rec({ sent_at_ms: 5 })], run);
    expect(plain.by_turn).toBeUndefined();
    expect(plain.sessions).toBeUndefined();
    expect(plain.prefix_reuse).toBeUndefined();
    const noCache = buildSummary([rec({ session: 's', turn: 0, ceiling_tokens: 50 })], run);
    expect(noCache.prefix_reuse!.cached_vs_ceiling).toBeNull();
    expect(noCache.sessions!.join_wait_ms).toEqual({ total_ms: 0, per_request: distStatsCi([]) });
  });

  it('does not depend on record order', () => {
    const recs = fixture();
    const a = buildSummary(recs, run);
    const b = buildSummary([...recs].reverse(), run);
    expect({ t: b.by_turn, s: b.sessions, p: b.prefix_reuse }).toEqual({ t: a.by_turn, s: a.sessions, p: a.prefix_reuse });
  });

  it.each(['data/traces/mooncake-conversation-200.jsonl', 'test/fixtures/traces/mooncake-sessions.jsonl'])('%s: records carrying the replay\'s per-request ceiling sum to the trace\'s own ceiling (trace stats), overall and per turn', (file) => {
    const t = loadTrace(file);
    const bs = t.summary.blockSize!;
    const expected = cacheCeiling(t.requests, bs);
    // Arrival order, as the replay sends (a turn given only its delay keeps its file place), ceiling counted per request.
    let last = -Infinity;
    const at = new Map(t.requests.map((r) => [r, (last = r.atMs ?? last)]));
    const ordered = [...t.requests].sort((a, b) => at.get(a)! - at.get(b)! || a.index - b.index);
    const count = createCeilingCounter(bs);
    const recs = ordered.map((r) => {
      const ceiling = count(r);
      return rec({ input_tokens: r.inputLength, ceiling_tokens: ceiling, cached_tokens: Math.floor(ceiling / bs) * bs, turn: r.turn, ...(r.session ? { session: r.session } : {}) });
    });
    const p = buildSummary(recs, run).prefix_reuse!;
    expect(p.prompt_tokens).toBe(expected.prompt_tokens);
    expect(p.ceiling_tokens).toBe(expected.cached_tokens);
    expect(p.ceiling_share).toBeCloseTo(expected.ratio!, 12);
    // A server that caches whole blocks only reaches the ceiling less each request's partial last block.
    expect(p.cached_vs_ceiling).toBeGreaterThan(0);
    expect(p.cached_vs_ceiling).toBeLessThanOrEqual(1);
    for (const bt of expected.by_turn) {
      const mine = p.by_turn[turnKey(bt.turn)];
      if (bt.turn >= TURN_POOL_FROM) continue;
      expect([mine.requests, mine.prompt_tokens, mine.ceiling_tokens]).toEqual([bt.requests, bt.prompt_tokens, bt.cached_tokens]);
    }
  });
});
