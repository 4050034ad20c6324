import { describe, it, expect } from 'vitest';
import { cdf, histogram, itlStalls, overTime, sample } from './run-data.js';
import { toRecord } from '../../metrics/derive.js';
import type { RawRequest } from '../../metrics/record.js';

/** ok request sent at `sent` with token events at `times` (ms since send). */
function rec(id: number, sent: number, times: number[]) {
  return toRecord({
    id, attempt: 1, warmup: false, class: undefined, status: 'ok', http_status: 200, error: null, scheduled_at_ms: sent, sent_at_ms: sent,
    headers_ms: 1, end_ms: times[times.length - 1] + 1, streamed: true, event_times_ms: [0, ...times], event_kinds: 'r' + 'a'.repeat(times.length),
    reasoning_chars: 0, answer_chars: times.length, input_tokens: 4, output_tokens: times.length, reasoning_tokens: 0, cached_tokens: 0,
    token_source: 'usage', expected_input_tokens: 4, max_tokens: times.length, finish_reason: 'length',
  } as RawRequest);
}

describe('run chart data', () => {
  it('histogram puts the tail beyond p99 in the last bin', () => {
    const h = histogram([...Array.from({ length: 99 }, (_, i) => i), 10_000], 10)!;
    expect(h.counts.reduce((a, b) => a + b, 0)).toBe(100);
    expect(h.edges[0]).toBe(0);
    expect(h.counts[9]).toBeGreaterThanOrEqual(1);
    expect(histogram([])).toBeNull();
    expect(histogram([5, 5, 5])!.counts).toEqual([3]);
  });
  it('cdf ends at 100% and is thinned', () => {
    const c = cdf(Array.from({ length: 1000 }, (_, i) => i), 100);
    expect(c.length).toBeLessThanOrEqual(101);
    expect(c[c.length - 1]).toEqual([999, 100]);
    expect(sample([1, 2, 3, 4], 2)).toEqual([1, 3]);
  });
  it('over time: tokens/s and in-flight follow the requests', () => {
    // Two requests fully overlapping for 100 ms, 10 tokens each.
    const times = Array.from({ length: 10 }, (_, i) => 10 + i * 10);
    const ot = overTime([rec(0, 0, times), rec(1, 0, times)], 4);
    expect(ot.in_flight[1]).toBeCloseTo(2, 5);
    const tokens = ot.output_tok_s.reduce((a, b) => a + b, 0) * ot.bucket_s;
    expect(tokens).toBeCloseTo(20, 6);
  });
  it('stalls are gaps above 5x the median gap', () => {
    const st = itlStalls([rec(0, 0, [10, 20, 30, 40, 300, 310]), rec(1, 100, [10, 20, 30])]);
    expect(st.median_itl_ms).toBe(10);
    expect(st.count).toBe(1);
    expect(st.points[0][1]).toBe(260);
    expect(st.points[0][0]).toBeCloseTo(0.3);
  });
});
