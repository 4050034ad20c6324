// The measurement plan read from records: send order, warmup, cache hits, first-wave stagger, refill gaps, retries.
import { describe, expect, it } from 'vitest';
import { recordFromJson } from '../metrics/jsonl.js';
import { planFromRecords, planFromSummary, refillGap } from './trace.js';

const rec = (id: number, sent: number, end: number, o: Record<string, unknown> = {}) =>
  recordFromJson({ id, attempt: 1, status: 'ok', warmup: false, scheduled_at_ms: sent, sent_at_ms: sent, end_ms: end - sent, input_tokens: 100 + id, output_tokens: 10, cached_tokens: 0, ...o });

describe('planFromRecords', () => {
  it('closed loop: requests in id order, the first wave offsets and the k-th send after it − the k-th end, scaled', () => {
    const records = [
      rec(3, 52, 90, { cached_tokens: 64 }),
      rec(0, 10, 50, { warmup: true }),
      rec(1, 11, 40),
      rec(2, 41, 80),
      rec(4, 60, 100, { status: 'http_error', http_status: 503 }),
    ];
    const plan = planFromRecords(records, { scale: 2, concurrency: 2, openLoop: false })!;
    expect(plan.source).toBe('records');
    expect(plan.requests.map((r) => [r.promptTokens, r.warmup, r.cachedTokens])).toEqual([[100, true, 0], [101, false, 0], [102, false, 0], [103, false, 64]]);
    expect(plan.startMs).toEqual([0, 2]);
    // sends 41, 52, 60 after the ends 40, 50, 80: gaps 1, 2, 0 (a send before its pair's end counts 0), ×2.
    expect(plan.refillGapsMs).toEqual([2, 4, 0]);
    expect(refillGap(plan)!(7)).toBe(2);
  });

  it('takes the last attempt of a retried request, leaves cancelled ones out; open loop keeps the schedule', () => {
    const records = [rec(0, 0, 5, { attempt: 1, status: 'http_error' }), rec(0, 7, 20, { attempt: 2 }), rec(1, 30, 40), rec(2, 50, 60, { status: 'cancelled' })];
    const plan = planFromRecords(records, { scale: 1, openLoop: true })!;
    expect(plan.requests).toHaveLength(2);
    expect(plan.arrivalsMs).toEqual([0, 23]);
    expect(planFromRecords([rec(0, 0, 5, { status: 'timeout' })], { scale: 1, openLoop: false })).toBeUndefined();
  });

  it('without records: warmup then measured requests alike', () => {
    const plan = planFromSummary({ inputTokens: 500, outputTokens: 50, cachedTokens: 200.4, warmup: 1, requests: 2 });
    expect(plan.requests).toEqual([
      { promptTokens: 500, outputTokens: 50, cachedTokens: 200, warmup: true },
      { promptTokens: 500, outputTokens: 50, cachedTokens: 200, warmup: false },
      { promptTokens: 500, outputTokens: 50, cachedTokens: 200, warmup: false },
    ]);
    expect(refillGap(plan)).toBeUndefined();
  });
});
