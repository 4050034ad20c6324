// Time slices: requests land in the slice they completed in, in-flight is time-weighted, the throughput interval is a t-interval over full slices.
import { describe, it, expect } from 'vitest';
import { batchSeconds, saturationPoints, sliceSeries, SliceColumns, sliceSections, throughputCi95 } from './slices.js';
import { tQuantile } from './inference/index.js';
import type { RequestRecord } from './record.js';

const rec = (sent: number, end: number, o: Partial<RequestRecord> = {}): RequestRecord =>
  ({ id: 0, attempt: 1, warmup: false, status: 'ok', sent_at_ms: sent, end_ms: end, ttft_ms: end / 2, tpot_ms: 1, e2e_ms: end, input_tokens: 100, output_tokens: 10, ...o }) as RequestRecord;

const cols = (rs: RequestRecord[]) => {
  const c = new SliceColumns();
  for (const r of rs) c.add(r);
  return c;
};

describe('sliceSeries', () => {
  it('counts a request in the slice it completed in and spreads its time in flight over the slices it spans', () => {
    const c = cols([
      rec(0, 500), // done at 0.5 s: slice 0
      rec(200, 1600, { ttft_ms: 300 }), // done at 1.8 s: slice 1; in flight 0.2–1.8 s
      rec(1000, 1000, { status: 'timeout', ttft_ms: null }), // failed at 2.0 s: the last slice, [2 s, 2.5 s)
      rec(2100, 400), // done at 2.5 s, the end of the span
      rec(0, 100, { warmup: true }), // warmup: in no slice
    ]);
    const { slices, full } = sliceSeries(c, 1);
    expect(slices.map((s) => [s.start_s, s.end_s])).toEqual([[0, 1], [1, 2], [2, 2.5]]);
    expect(full).toEqual([true, true, false]);
    expect(slices.map((s) => [s.completed, s.ok, s.failed])).toEqual([[1, 1, 0], [1, 1, 0], [2, 1, 1]]);
    // Slice 0: 0.5 s of request 1 + 0.8 s of request 2 = 1.3 request·s over 1 s.
    expect(slices[0].mean_in_flight).toBeCloseTo(1.3, 12);
    // Slice 1: request 2 0.8 s + request 3 1 s = 1.8.
    expect(slices[1].mean_in_flight).toBeCloseTo(1.8, 12);
    // The last slice is 0.5 s long: request 4 for 0.4 s → 0.8, and its rates divide by 0.5 s.
    expect(slices[2].mean_in_flight).toBeCloseTo(0.8, 12);
    expect(slices[2].request_throughput).toBeCloseTo(2, 12);
    expect(slices[2].output_throughput).toBeCloseTo(20, 12);
    expect(slices[1].ttft_ms).toEqual({ mean: 300, p50: 300, p90: 300, p99: 300 });
    expect(slices[2].e2e_ms.mean).toBe(400);
  });

  it('is empty without measured requests', () => {
    expect(sliceSeries(cols([rec(0, 10, { warmup: true })]), 1).slices).toEqual([]);
  });
});

describe('throughput interval (batch means)', () => {
  it('is mean ± t(0.975, k−1)·s/√k over the full slices, computed by hand', () => {
    // 6 full 1 s slices with 2, 4, 3, 5, 2, 2 completions, then a 0.5 s slice that does not count.
    const per = [2, 4, 3, 5, 2, 2];
    const rs = per.flatMap((n, k) => Array.from({ length: n }, (_, j) => rec(k * 1000, 100 + j * 10)));
    rs.push(rec(6000, 500));
    const series = sliceSeries(cols(rs), 1);
    expect(series.full.filter(Boolean)).toHaveLength(6);
    const ci = throughputCi95(series);
    const mean = per.reduce((s, v) => s + v, 0) / 6;
    const sd = Math.sqrt(per.reduce((s, v) => s + (v - mean) ** 2, 0) / 5);
    const half = tQuantile(0.975, 5) * (sd / Math.sqrt(6));
    expect(ci.request_throughput![0]).toBeCloseTo(mean - half, 9);
    expect(ci.request_throughput![1]).toBeCloseTo(mean + half, 9);
    expect(ci.qpm![1]).toBeCloseTo((mean + half) * 60, 9);
    expect(ci.output_throughput![0]).toBeCloseTo((mean - half) * 10, 9);
    expect(ci.total_token_throughput![1]).toBeCloseTo((mean + half) * 110, 9);
  });

  it('defaults to 20 equal batches of the span, fewer with few requests or long ones, none below 5 batches', () => {
    const many = cols(Array.from({ length: 400 }, (_, i) => rec(i * 10, 50)));
    const span = many.span()!;
    expect(batchSeconds(many, undefined)).toBeCloseTo((span[1] - span[0]) / 1000 / 20, 12);
    expect(batchSeconds(many, 2)).toBe(2);
    const some = cols(Array.from({ length: 30 }, (_, i) => rec(i * 10, 5)));
    expect(batchSeconds(some, undefined)).toBeCloseTo((some.span()![1] - some.span()![0]) / 1000 / 6, 12);
    expect(batchSeconds(cols(Array.from({ length: 24 }, (_, i) => rec(i * 10, 5))), undefined)).toBeNull();
    // Requests of 1 s over a 5 s span: batches must be ≥ 2 s, so only 2 of them: no interval.
    expect(batchSeconds(cols(Array.from({ length: 400 }, (_, i) => rec(i * 10, 1000))), undefined)).toBeNull();
    const sections = sliceSections(many, { config: {} });
    expect(sections.slices).toBeUndefined();
    expect(sections.ci95!.request_throughput).not.toBeNull();
    // The headline's own rate (ok ÷ span) lies inside: equal batches tile the span exactly.
    const rate = 400 / ((span[1] - span[0]) / 1000);
    expect(sections.ci95!.request_throughput![0]).toBeLessThan(rate);
    expect(sections.ci95!.request_throughput![1]).toBeGreaterThan(rate);
    expect(sliceSections(many, { config: { slice: 0.5 } }).slices!.series.length).toBe(9); // 4.04 s of span in 0.5 s slices
  });

  it('gives the saturation test one point per full slice', () => {
    const series = sliceSeries(cols(Array.from({ length: 100 }, (_, i) => rec(i * 100, 50))), 1);
    const pts = saturationPoints(series);
    expect(pts.length).toBe(series.full.filter(Boolean).length);
    expect(pts[0].t).toBeCloseTo(0.5, 12);
  });
});

describe('order', () => {
  it('gives the same slices, interval and verdict whatever order the records arrive in', () => {
    const rs = Array.from({ length: 300 }, (_, i) => rec(i * 7.3, 20 + ((i * 37) % 101) * 1.7, { ttft_ms: 3 + ((i * 13) % 17) * 0.31, input_tokens: 50 + (i % 9) }));
    const reversed = [...rs].reverse();
    const a = sliceSections(cols(rs), { config: { slice: 0.2 } });
    const b = sliceSections(cols(reversed), { config: { slice: 0.2 } });
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    expect(JSON.stringify(sliceSections(cols(reversed), { config: {} }))).toBe(JSON.stringify(sliceSections(cols(rs), { config: {} })));
  });
});
