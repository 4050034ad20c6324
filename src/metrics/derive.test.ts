// toRecord: raw facts then derived metrics, the same keys, order and values as `{ ...raw, ...deriveMetrics(raw) }`.
import { describe, expect, it } from 'vitest';
import { deriveMetrics, toRecord } from './derive.js';
import { NO_CONNECTION, type RawRequest } from './record.js';

const raw = (extra: Partial<RawRequest>): RawRequest => ({
  ...NO_CONNECTION,
  id: 7, attempt: 1, warmup: false, class: undefined, status: 'ok', http_status: 200, error: null, scheduled_at_ms: 1, sent_at_ms: 1.5,
  headers_ms: 2, end_ms: 90, streamed: true, event_times_ms: [3, 20, 41, 62, 90], event_kinds: 'raaau', reasoning_chars: 0, answer_chars: 8,
  input_tokens: 8, output_tokens: 3, reasoning_tokens: 0, cached_tokens: null, token_source: 'usage', expected_input_tokens: 8, max_tokens: 3, finish_reason: 'stop',
  reconnected: false, code: null, usage_rejected: null, events_after_done: 0,
  ...extra,
});

describe('toRecord', () => {
  it('is the spread of raw and its derived metrics: same keys in the same order, same values', () => {
    for (const r of [raw({}), raw({ served_by: 'gpu-1', model: 'm', stage: 2 }), raw({ status: 'network_error', end_ms: null, event_kinds: '', event_times_ms: [] })]) {
      const rec = toRecord(r);
      const spread = { ...r, ...deriveMetrics(r) };
      expect(Object.keys(rec)).toEqual(Object.keys(spread));
      expect(rec).toEqual(spread);
      expect(JSON.stringify(rec)).toBe(JSON.stringify(spread));
    }
    expect(toRecord(raw({})).itl_ms).toEqual([21, 21]);
    expect(toRecord(raw({})).ttft_ms).toBe(20);
  });
});
