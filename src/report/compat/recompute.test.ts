// The definitions table applied to hand-built records: each tool's start, first chunk, end, TPOT, ITL and window rule.
import { describe, expect, it } from 'vitest';
import type { RawRequest } from '../../metrics/record.js';
import { toRecord } from '../../metrics/derive.js';
import { DEFINITIONS, differenceText } from './definitions.js';
import { RunRecompute, toolRequest } from './recompute.js';

/** A streamed ok request: role chunk at 10, answers at 30/40/50, finish chunk at 55, usage at 56, [DONE] at 57; end 60. */
function raw(over: Partial<RawRequest> = {}): RawRequest {
  return {
    id: 1, attempt: 1, reconnected: false, warmup: false, class: undefined, status: 'ok', http_status: 200, error: null, code: null,
    scheduled_at_ms: 100, sent_at_ms: 103, connection_reused: true, blocked_ms: 1, connecting_ms: 0, tls_ms: null, sending_ms: 0.5,
    headers_ms: 5, end_ms: 60, streamed: true,
    event_times_ms: [10, 30, 40, 50, 55, 56, 57], event_kinds: 'raaarud',
    reasoning_chars: 0, answer_chars: 9, input_tokens: 16, output_tokens: 3, reasoning_tokens: null, cached_tokens: null, token_source: 'usage',
    expected_input_tokens: 16, max_tokens: 3, finish_reason: 'length', usage_rejected: null, events_after_done: 0,
    ...over,
  };
}

describe('toolRequest', () => {
  it('tokenflood: the definitions of derive.ts', () => {
    const r = raw();
    const t = toolRequest(r, DEFINITIONS.tokenflood)!;
    const d = toRecord(r);
    expect(t.ttft_ms).toBe(d.ttft_ms);
    expect(t.e2e_ms).toBe(d.e2e_ms);
    expect(t.tpot_ms).toBe(d.tpot_ms);
    expect(t.gaps_ms).toEqual(d.itl_ms);
    expect(t.speed_tok_s).toBe(d.output_speed_tok_s);
  });

  it('vLLM: from the hand-off, first and last chunk with choices, TPOT = (E2EL − TTFT) / (n − 1)', () => {
    const t = toolRequest(raw(), DEFINITIONS.vllm)!;
    expect(t.start_ms).toBe(101.5);
    expect(t.ttft_ms).toBe(11.5);
    expect(t.e2e_ms).toBe(56.5);
    expect(t.tpot_ms).toBe((56.5 - 11.5) / 2);
    expect(t.gaps_ms).toEqual([20, 10, 10, 5]);
  });

  it('SGLang: first answer text; E2E at the last line read, [DONE] included', () => {
    const t = toolRequest(raw(), DEFINITIONS.sglang)!;
    expect(t.ttft_ms).toBe(31.5);
    expect(t.e2e_ms).toBe(58.5);
    expect(t.tpot_ms).toBe((58.5 - 31.5) / 2);
    expect(t.gaps_ms).toEqual([10, 10]);
  });

  it('GuideLLM: TPOT includes TTFT ((last − start) / n), ITL = (last − first) / (n − 1), E2E at [DONE]', () => {
    const t = toolRequest(raw(), DEFINITIONS.guidellm)!;
    expect(t.ttft_ms).toBe(31.5);
    expect(t.e2e_ms).toBe(58.5);
    expect(t.tpot_ms).toBe(51.5 / 3);
    expect(t.itl_ms).toBe(20 / 2);
    expect(t.speed_tok_s).toBe(3 / (58.5 / 1000));
  });

  it('AIPerf: ITL = (latency − TTFT) / (n − 1) to the last content response; per-user throughput = 1000 / ITL', () => {
    const t = toolRequest(raw(), DEFINITIONS.aiperf)!;
    expect(t.ttft_ms).toBe(31.5);
    expect(t.e2e_ms).toBe(51.5);
    expect(t.tpot_ms).toBeNull();
    expect(t.itl_ms).toBe(10);
    expect(t.speed_tok_s).toBe(100);
  });

  it('a failed request has no latencies; a non-streamed one has TTFT = E2E', () => {
    expect(toolRequest(raw({ status: 'http_error' }), DEFINITIONS.vllm)).toBeNull();
    const t = toolRequest(raw({ streamed: false, event_times_ms: [], event_kinds: '' }), DEFINITIONS.vllm)!;
    expect(t.ttft_ms).toBe(61.5);
    expect(t.e2e_ms).toBe(61.5);
    const e = toolRequest(raw({ streamed: false, event_times_ms: [], event_kinds: '', samples: 4 }), DEFINITIONS.tokenflood)!;
    expect(e.ttft_ms).toBe(toRecord(raw({ streamed: false, event_times_ms: [], event_kinds: '', samples: 4 })).ttft_ms);
    expect(e.e2e_ms).toBe(60);
  });
});

describe('RunRecompute', () => {
  it('throughput windows: vLLM from the first request due, tokenflood from the first sent; warmup and cancelled left out', () => {
    const rc = new RunRecompute([DEFINITIONS.tokenflood, DEFINITIONS.vllm]);
    rc.add(raw({ id: 1, warmup: true, scheduled_at_ms: 0, sent_at_ms: 0 }));
    rc.add(raw({ id: 2 }));
    rc.add(raw({ id: 3, scheduled_at_ms: 150, sent_at_ms: 160, end_ms: 100 }));
    rc.add(raw({ id: 4, status: 'cancelled', scheduled_at_ms: 150, sent_at_ms: 150, end_ms: 10 }));
    rc.add(raw({ id: 5, status: 'timeout', scheduled_at_ms: 150, sent_at_ms: 150, end_ms: 20 }));
    const [ours, vllm] = rc.views();
    expect(ours.duration_s).toBeCloseTo((260 - 103) / 1000, 12);
    expect(vllm.duration_s).toBeCloseTo((260 - 100) / 1000, 12);
    expect(vllm.ok).toBe(2);
    expect(vllm.failed).toBe(1);
    expect(vllm.output_throughput).toBeCloseTo(6 / vllm.duration_s, 9);
  });

  it('with ramps only the steady requests count', () => {
    const rc = new RunRecompute([DEFINITIONS.vllm]);
    rc.add(raw({ id: 1, phase: 'ramp-up', output_tokens: 100 }));
    rc.add(raw({ id: 2, phase: 'steady' }));
    expect(rc.views()[0].total_output_tokens).toBe(3);
  });
});

describe('differenceText', () => {
  it('one line per metric; the same definition says so', () => {
    expect(differenceText(DEFINITIONS.vllm, 'ttft')).toMatch(/^vLLM bench serve: from the hand-off .* to the first event with a non-empty choices list .*; tokenflood: from the last request byte/);
    expect(differenceText(DEFINITIONS.aiperf, 'tpot')).toBe('NVIDIA AIPerf has no such metric');
    expect(differenceText(DEFINITIONS.sglang, 'itl')).toMatch(/answer text \(reasoning not counted\)/);
    expect(differenceText(DEFINITIONS.tokenflood, 'e2e')).toBe('same definition');
  });
});
