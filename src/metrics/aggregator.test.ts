// The incremental aggregator: order-independent, exact per-request metrics, ITL exact below its limit and within HDR precision above.
import { describe, it, expect } from 'vitest';
import { ItlStore, SummaryAggregator } from './aggregator.js';
import { buildSummary } from './summary.js';
import { distStats } from './stats.js';
import { distStatsCi } from './ci95.js';
import { toRecord } from './derive.js';
import { normalizeRaw } from './jsonl.js';
import { createRng } from '../util/rng.js';
import type { RawRequest, RequestRecord } from './record.js';
import { NO_CONNECTION } from './record.js';

/** A varied set of records: ok with jittery token gaps, retries, http errors with distinct messages, timeouts, cancels, warmup, two classes. */
function records(n: number, seed = 7): RequestRecord[] {
  const rng = createRng(seed);
  const out: RequestRecord[] = [];
  for (let id = 0; id < n; id++) {
    const sent = id * 3.3 + rng.next();
    const kind = id % 11 === 3 ? 'http_error' : id % 13 === 5 ? 'timeout' : id % 17 === 9 ? 'cancelled' : 'ok';
    const events = kind === 'ok' ? Array.from({ length: 5 + (id % 7) }, (_, k) => 10 + k * (1 + rng.next() * 4)) : [];
    const end = events.length ? events[events.length - 1] + rng.next() : 20 + rng.next() * 50;
    const raw: RawRequest = {
      ...NO_CONNECTION,
      id, attempt: 1, reconnected: false, warmup: id < 3, class: id % 2 ? 'a' : 'b', status: kind as RawRequest['status'],
      http_status: kind === 'http_error' ? 500 : kind === 'ok' ? 200 : null, error: kind === 'ok' ? null : `failure #${id}`,
      code: kind === 'ok' ? null : kind === 'cancelled' ? 'E_CANCELLED' : kind === 'http_error' ? 'E_HTTP_500' : 'E_TIMEOUT',
      scheduled_at_ms: sent - rng.next(), sent_at_ms: sent, headers_ms: 5, end_ms: end, streamed: true,
      event_times_ms: events, event_kinds: 'a'.repeat(events.length), reasoning_chars: 0, answer_chars: events.length * 4,
      input_tokens: kind === 'ok' ? 100 + id : null, output_tokens: kind === 'ok' ? events.length : null, reasoning_tokens: 0,
      cached_tokens: null, token_source: kind === 'ok' ? 'usage' : null, expected_input_tokens: 100 + id, max_tokens: 16,
      finish_reason: kind === 'ok' ? 'stop' : null, usage_rejected: null, events_after_done: 0,
    };
    out.push(toRecord(normalizeRaw(raw)));
    if (kind === 'http_error') out.push(toRecord(normalizeRaw({ ...raw, attempt: 2, status: 'ok', http_status: 200, error: null, event_times_ms: [4, 6], event_kinds: 'aa', end_ms: 7, input_tokens: 9, output_tokens: 2, token_source: 'usage' })));
  }
  return out;
}

const shuffled = <T>(xs: readonly T[], seed: number): T[] => {
  const rng = createRng(seed);
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
};

describe('SummaryAggregator', () => {
  it('gives the same summary whatever order the records arrive in (examples come from the lowest id, then attempt)', () => {
    const recs = records(400);
    const sorted = buildSummary(recs, { tool: 'test' }, 8);
    for (const seed of [1, 2, 3]) expect(buildSummary(shuffled(recs, seed), { tool: 'test' }, 8)).toEqual(sorted);
    const http = sorted.requests.errors.find((e) => e.kind === 'http_error')!;
    expect(http.example).toBe('failure #3');
    expect(sorted.by_class && Object.keys(sorted.by_class)).toEqual(['a', 'b']);
  });

  it('fed one record at a time equals the summary of the whole set, and counts every kind of outcome', () => {
    const recs = records(300);
    const agg = new SummaryAggregator();
    for (const r of recs) agg.add(r);
    const s = agg.summary({}, 4);
    expect(s).toEqual(buildSummary(recs, {}, 4));
    const measured = recs.filter((r) => !r.warmup);
    expect(s.requests.total).toBe(measured.length);
    expect(s.requests.warmup).toBe(recs.length - measured.length);
    expect(s.requests.ok).toBe(measured.filter((r) => r.status === 'ok').length);
    expect(s.requests.retries).toBe(measured.filter((r) => r.attempt > 1).length);
    const okTtft = measured.filter((r) => r.status === 'ok').map((r) => r.ttft_ms!);
    expect(s.ttft_ms).toEqual(distStatsCi(okTtft));
  });
});

describe('SummaryAggregator with ramps', () => {
  /** The records of a run whose first 60 ids ramp up and last 40 ramp down (warmup ones included). */
  const ramped = (): RequestRecord[] => records(240).map((r) => ({ ...r, phase: r.id < 60 ? 'ramp-up' : r.id >= 200 ? 'ramp-down' : 'steady' }));

  it('summarizes the steady phase only, says so, and counts each phase', () => {
    const all = ramped();
    const s = buildSummary(shuffled(all, 3), { tool: 'test' }, 4);
    // The headline (and by_class) are those of the steady and warmup records alone, as if the ramps had not been there.
    const steadyOnly = buildSummary(all.filter((r) => r.warmup || r.phase === 'steady'), { tool: 'test' }, 4);
    const { phases, ...rest } = s;
    expect(rest).toEqual(steadyOnly);
    const measured = all.filter((r) => !r.warmup);
    expect(phases).toEqual({
      steady: measured.filter((r) => r.phase === 'steady').length,
      ramp_up: measured.filter((r) => r.phase === 'ramp-up').length,
      ramp_down: measured.filter((r) => r.phase === 'ramp-down').length,
      summarized: 'steady',
    });
    expect(s.requests.total).toBe(phases!.steady);
    expect(s.requests.warmup).toBe(all.filter((r) => r.warmup).length);
    // The throughput window is the steady requests': from the first steady send to the last steady end.
    const steady = measured.filter((r) => r.phase === 'steady');
    const window = Math.max(...steady.map((r) => r.sent_at_ms + (r.end_ms ?? 0))) - Math.min(...steady.map((r) => r.sent_at_ms));
    expect(s.duration_s).toBeCloseTo(window / 1000, 9);
    expect(Object.keys(s).slice(0, 3)).toEqual(['schema_version', 'run', 'phases']);
  });

  it('without ramps the summary has no phases block and is what it always was; a run of nothing but ramps summarizes all', () => {
    const plain = records(120);
    const explicit = plain.map((r) => ({ ...r, phase: 'steady' as const }));
    expect(JSON.stringify(buildSummary(explicit, {}))).toBe(JSON.stringify(buildSummary(plain, {})));
    expect('phases' in buildSummary(plain, {})).toBe(false);
    const up = plain.map((r) => ({ ...r, phase: 'ramp-up' as const }));
    const s = buildSummary(up, {});
    expect(s.phases).toEqual({ steady: 0, ramp_up: plain.filter((r) => !r.warmup).length, ramp_down: 0, summarized: 'all' });
    const { phases: _, ...rest } = s;
    expect(rest).toEqual(buildSummary(plain, {}));
  });
});

describe('ItlStore', () => {
  const gaps = (n: number) => {
    const rng = createRng(11);
    // Long-tailed gaps at µs resolution, like stored ITLs: mostly 5-15 ms, 1% stalls up to 2 s.
    return Array.from({ length: n }, () => Math.round((rng.next() < 0.01 ? 100 + rng.next() * 1900 : 5 + rng.next() * 10) * 1000) / 1000);
  };

  it('is exact (numpy-linear percentiles) up to its limit', () => {
    const xs = gaps(5000);
    const s = new ItlStore(5000);
    for (const x of xs) s.add(x);
    expect(s.exactMode).toBe(true);
    expect(s.stats()).toEqual(distStatsCi(xs));
  });

  it('beyond its limit moves to a histogram: count, min, max and mean exact, percentiles within 0.1% (+1 µs)', () => {
    const xs = gaps(20_000);
    const s = new ItlStore(1000);
    for (const x of xs) s.add(x);
    expect(s.exactMode).toBe(false);
    const exact = distStats(xs);
    const h = s.stats();
    expect(h.count).toBe(exact.count);
    expect(h.min).toBe(exact.min);
    expect(h.max).toBe(exact.max);
    expect(h.mean!).toBeCloseTo(exact.mean!, 9);
    expect(Math.abs(h.stdev! - exact.stdev!)).toBeLessThan(exact.stdev! * 1e-6);
    for (const p of ['p50', 'p90', 'p95', 'p99'] as const) {
      // The histogram reports a recorded value's bucket; the exact figure interpolates between neighbours.
      expect(Math.abs(h[p]! - exact[p]!)).toBeLessThanOrEqual(exact[p]! * 1e-3 + 0.002);
    }
  });

  it('gives the percentiles --percentiles asks for from the histogram too (p99.9 as p99_9)', () => {
    const xs = gaps(20_000);
    const s = new ItlStore(1000);
    for (const x of xs) s.add(x);
    const h = s.stats([50, 99.9]);
    const exact = distStats(xs, [99.9]);
    const sorted = [...xs].sort((a, b) => a - b);
    const rank = 0.999 * (xs.length - 1);
    // The histogram reports a recorded value near the rank; the exact figure interpolates between its two neighbours.
    const spread = sorted[Math.ceil(rank)] - sorted[Math.floor(rank)];
    expect(Math.abs(h.p99_9! - exact.p99_9!)).toBeLessThanOrEqual(spread + exact.p99_9! * 1e-3 + 0.002);
    expect(Object.keys(h)).toContain('p99_9');
  });
});
