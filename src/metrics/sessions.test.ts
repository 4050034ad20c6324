// Sessions and turns in the summary: by_turn pooling, per-session figures, waits, and prefix reuse against the ceiling.
import { describe, it, expect } from 'vitest';
import { buildSummary } from './summary.js';
import { distStats, percentile } from './stats.js';
import { toRecord } from './derive.js';
import { normalizeRaw } from './jsonl.js';
import { NO_CONNECTION, type RawRequest, type RequestRecord } from './record.js';
import { TURN_POOL_FROM, turnKey } from './sessions.js';

let nextId = 0;
/** One streamed record: first token at `ttft`, then `gaps` token events 2 ms apart; session fields as given. */
function rec(o: Partial<RawRequest> & { ttft?: number; tokens?: number }): RequestRecord {
  const ttft = o.ttft ?? 10;
  const n = o.tokens ?? 4;
  const events = Array.from({ length: n }, (_, k) => ttft + k * 2);
  const ok = (o.status ?? 'ok') === 'ok';
  const raw: RawRequest = {
    ...NO_CONNECTION,
    id: nextId++, attempt: 1, reconnected: false, warmup: false, class: undefined, status: 'ok', http_status: 200, error: null, code: null,
    scheduled_at_ms: o.sent_at_ms ?? 0, sent_at_ms: 0, headers_ms: 1, end_ms: ok ? events[n - 1] + 1 : 5, streamed: true,
    event_times_ms: ok ? events : [], event_kinds: ok ? 'a'.repeat(n) : '', reasoning_chars: 0, answer_chars: 4 * n,
    input_tokens: 100, output_tokens: ok ? n : null, reasoning_tokens: 0, cached_tokens: null, token_source: 'usage',
    expected_input_tokens: 100, max_tokens: 16, finish_reason: 'stop', usage_rejected: null, events_after_done: 0,
    ...o,
  };
  delete (raw as { ttft?: number }).ttft;
  delete (raw as { tokens?: number }).tokens;
  return toRecord(normalizeRaw(raw));
}

/** Session "a": 20 main-agent turns (turn t: TTFT 10 + t, sent at 100·t); session "b": 2 turns and a subagent with join and tool waits. */
function fixture(): RequestRecord[] {
  const out: RequestRecord[] = [];
  for (let t = 0; t < 20; t++) out.push(rec({ session: 'a', turn: t, sent_at_ms: 100 * t, ttft: 10 + t, input_tokens: 1000 + t, ceiling_tokens: t === 0 ? 0 : 900, cached_tokens: t === 0 ? 0 : 450 }));
  out.push(rec({ session: 'b', turn: 0, sent_at_ms: 50, ttft: 40, input_tokens: 500, ceiling_tokens: 0, cached_tokens: 0 }));
  out.push(rec({ session: 'b', turn: 0, agent: 'b.sub1', sent_at_ms: 120, ttft: 30, input_tokens: 600, ceiling_tokens: 400, cached_tokens: 400 }));
  out.push(rec({ session: 'b', turn: 1, sent_at_ms: 300, ttft: 60, input_tokens: 800, ceiling_tokens: 500, cached_tokens: 100, join_wait_ms: 75, tool_wait_ms: 20 }));
  out.push(rec({ session: 'b', turn: 1, agent: 'b.sub1', sent_at_ms: 400, status: 'timeout', http_status: null, code: 'E_TIMEOUT', error: 'timed out', tool_wait_ms: 5, ceiling_tokens: 300 }));
  out.push(rec({ session: 'b', turn: 0, sent_at_ms: 0, warmup: true, join_wait_ms: 9999 })); // warmup: left out everywhere
  return out;
}

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
      expect(b.ttft_ms).toEqual(distStats(ok.map((r) => r.ttft_ms!)));
      expect(b.e2e_ms).toEqual(distStats(ok.map((r) => r.e2e_ms!)));
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
    expect(noCache.sessions!.join_wait_ms).toEqual({ total_ms: 0, per_request: distStats([]) });
  });

  it('does not depend on record order', () => {
    const recs = fixture();
    const a = buildSummary(recs, run);
    const b = buildSummary([...recs].reverse(), run);
    expect({ t: b.by_turn, s: b.sessions, p: b.prefix_reuse }).toEqual({ t: a.by_turn, s: a.sessions, p: a.prefix_reuse });
  });
});
