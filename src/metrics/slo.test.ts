import { describe, it, expect } from 'vitest';
import { describeSloChecks, evaluateSlo, isGoodRequest, parseSlo } from './slo.js';
import { toRecord } from './derive.js';
import { computeMetrics } from './summary.js';
import type { RawRequest, RequestRecord } from './record.js';
import { UsageError } from '../errors.js';

/** A streamed ok request: sent at `sent`, first token at `ttft`, then `n − 1` more tokens `gap` ms apart. */
function rec(id: number, sent: number, ttft: number, gap: number, n = 5, status: RawRequest['status'] = 'ok'): RequestRecord {
  const times = [0, ...Array.from({ length: n }, (_, i) => ttft + i * gap)];
  const raw = {
    id, attempt: 1, warmup: false, class: undefined, status, http_status: status === 'ok' ? 200 : 500, error: status === 'ok' ? null : 'boom',
    scheduled_at_ms: sent, sent_at_ms: sent, headers_ms: 1, end_ms: times[times.length - 1] + 1, streamed: true,
    event_times_ms: status === 'ok' ? times : [], event_kinds: status === 'ok' ? 'r' + 'a'.repeat(n) : '',
    reasoning_chars: 0, answer_chars: n, input_tokens: 10, output_tokens: status === 'ok' ? n : null, reasoning_tokens: 0,
    cached_tokens: 0, token_source: 'usage', expected_input_tokens: 10, max_tokens: n, finish_reason: 'length',
  } as RawRequest;
  return toRecord(raw);
}

describe('parseSlo', () => {
  it('parses units and canonicalises', () => {
    const s = parseSlo('ttft_p99=2s, tpot_p99=50ms,e2e_p99=0.5m,error_rate=1%,output_speed_p50=20');
    expect(s.objectives).toHaveLength(5);
    expect(s.text).toBe('ttft_p99=2000ms,tpot_p99=50ms,e2e_p99=30000ms,error_rate=1%,output_speed_p50=20');
    expect(parseSlo('error_rate=0.02').objectives[0]).toMatchObject({ kind: 'error_rate', limit: 0.02 });
    expect(parseSlo('itl_max=300').objectives[0]).toMatchObject({ kind: 'latency', metric: 'itl', stat: 'max', limit: 300 });
  });
  it('reports every bad item at once', () => {
    try {
      parseSlo('ttft_p98=1s,tpot_p99=fast,error_rate=200%,nonsense');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(UsageError);
      expect((e as UsageError).problems).toHaveLength(4);
    }
  });
});

describe('evaluateSlo', () => {
  const records = [rec(0, 0, 100, 10), rec(1, 0, 300, 10), rec(2, 0, 100, 60), rec(3, 0, 0, 0, 1, 'http_error')];
  const summary = computeMetrics(records);
  it('checks run-level statistics and counts goodput per request', () => {
    const res = evaluateSlo(summary, records, parseSlo('ttft_p99=200ms,tpot_p99=50ms,error_rate=30%'));
    expect(res.checks.map((c) => [c.name, c.passed])).toEqual([
      ['ttft_p99', false],
      ['tpot_p99', false],
      ['error_rate', true],
    ]);
    expect(res.passed).toBe(false);
    // Only request 0 meets ttft ≤ 200 and tpot ≤ 50.
    expect(res.good_requests).toBe(1);
    expect(res.good_fraction).toBeCloseTo(0.25);
    expect(res.goodput_req_s).toBeCloseTo(1 / summary.duration_s);
    expect(res.goodput_tok_s).toBeCloseTo(5 / summary.duration_s);
    expect(describeSloChecks(res)[0]).toMatch(/^ttft_p99 .* <= 200 ms {2}FAILED$/);
  });
  it('without objectives every successful request is good', () => {
    const res = evaluateSlo(summary, records, undefined);
    expect(res.passed).toBe(true);
    expect(res.good_requests).toBe(3);
    expect(isGoodRequest(records[3], undefined)).toBe(false);
  });
});
