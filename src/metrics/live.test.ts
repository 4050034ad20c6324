import { describe, it, expect } from 'vitest';
import { LiveAggregator, WINDOW_MS, contentEvents } from './live.js';
import type { RequestRecord } from './record.js';

const rec = (over: Partial<RequestRecord>): RequestRecord =>
  ({ warmup: false, status: 'ok', ttft_ms: 100, output_tokens: 10, event_kinds: 'raaaaaaaaaaud', ...over }) as RequestRecord;

describe('LiveAggregator', () => {
  it('counts requests and outcomes', () => {
    let t = 0;
    const agg = new LiveAggregator(() => t);
    for (let i = 0; i < 10; i++) {
      agg.started();
      t += 250;
      agg.finished(rec({ ttft_ms: 100 + i }));
      agg.snapshot();
    }
    agg.started();
    agg.finished(rec({ status: 'timeout', ttft_ms: null }));
    agg.started();
    t += 250;
    const s = agg.snapshot();
    expect(s.done).toBe(11);
    expect(s.ok).toBe(10);
    expect(s.failed).toBe(1);
    expect(s.inFlight).toBe(1);
    // Linear interpolation over 100..109, rank p/100 · 9: p50 at 4.5, p90 at 8.1, p99 at 8.91.
    expect(s.ttftP50Ms).toBe(104.5);
    expect(s.ttftP90Ms).toBeCloseTo(108.1, 9);
    expect(s.ttftP99Ms).toBeCloseTo(108.91, 9);
    // Without an event counter, tokens count when requests finish: 100 tokens over 2.75 s.
    expect(s.outputTokS).toBeCloseTo(100 / 2.75, 6);
    expect(s.requestsPerS).toBeCloseTo(11 / 2.75, 6);
  });

  it('takes TTFT at the first token when the sender notes it, and does not count those requests again when they end', () => {
    let t = 0;
    let noted: number[] = [];
    const agg = new LiveAggregator(() => t, () => 0, () => {
      const out = noted;
      noted = [];
      return out;
    });
    agg.started();
    agg.started();
    expect(agg.snapshot().ttftP50Ms).toBeNull();
    noted = [40, 60];
    t += 100;
    const before = agg.snapshot();
    expect(before.done).toBe(0);
    // Of 40 and 60: p50 halfway, p99 at 40 + 0.99 · 20.
    expect(before.ttftP50Ms).toBe(50);
    expect(before.ttftP99Ms).toBeCloseTo(59.8, 9);
    // Both end: streamed (content events), so already counted; a non-streamed one (no events) counts at its end.
    agg.finished(rec({ ttft_ms: 40 }));
    agg.finished(rec({ ttft_ms: 60 }));
    agg.started();
    agg.finished(rec({ ttft_ms: 500, event_kinds: '' }));
    const after = agg.snapshot();
    expect(after.done).toBe(3);
    // Of 40, 60, 500: p99 at rank 1.98, 60 + 0.98 · 440.
    expect(after.ttftP50Ms).toBe(60);
    expect(after.ttftP99Ms).toBeCloseTo(491.2, 9);
  });

  it('ignores warmup requests', () => {
    const agg = new LiveAggregator(() => 0);
    agg.started();
    agg.finished(rec({ warmup: true }));
    expect(agg.snapshot().done).toBe(0);
  });

  it('counts output tokens as their events arrive, not when the request completes', () => {
    let t = 0;
    let events = 0;
    const agg = new LiveAggregator(() => t, () => events);
    agg.started();
    // One long stream: 20 content events per second for 5 s, nothing finished yet.
    const rates: number[] = [];
    for (let i = 0; i < 5; i++) {
      t += 1000;
      events += 20;
      rates.push(agg.snapshot().outputTokS);
    }
    for (const r of rates) expect(r).toBeCloseTo(20, 6);
    expect(agg.snapshot().done).toBe(0);
    // It ends with 100 events but the server's usage says 120 tokens (some chunks carried two): the total becomes exact.
    t += 1000;
    agg.finished(rec({ output_tokens: 120, event_kinds: 'r' + 'a'.repeat(100) + 'ud' }));
    const end = agg.snapshot();
    expect(end.outputTokS).toBeCloseTo(120 / 6, 6);
    expect(end.outputTokens).toBe(120);
  });

  it("takes back the events of a request that failed or was warmup, so the total is measured ok requests' tokens", () => {
    let t = 0;
    let events = 0;
    const agg = new LiveAggregator(() => t, () => events);
    agg.started();
    agg.started();
    t += 1000;
    events += 30;
    expect(agg.snapshot().outputTokS).toBeCloseTo(30, 6);
    agg.finished(rec({ status: 'network_error', output_tokens: null, event_kinds: 'r' + 'a'.repeat(20) }));
    agg.finished(rec({ warmup: true, event_kinds: 'r' + 'a'.repeat(10) + 'ud' }));
    t += 1000;
    const s = agg.snapshot();
    expect(s.outputTokS).toBe(0); // 30 arrived, 30 taken back: never negative
  });

  it('rates and the TTFT median describe the last 10 s, not the whole run', () => {
    let t = 0;
    const agg = new LiveAggregator(() => t);
    const step = (seconds: number, perS: number, ttft: number) => {
      for (let s = 0; s < seconds; s++) {
        for (let i = 0; i < perS; i++) {
          agg.started();
          agg.finished(rec({ ttft_ms: ttft }));
        }
        t += 1000;
        agg.snapshot();
      }
    };
    step(30, 10, 100); // 300 fast requests
    step(12, 2, 500); // then the server slows down: 24 slow ones
    const s = agg.snapshot();
    expect(WINDOW_MS).toBe(10_000);
    expect(s.ttftP50Ms).toBe(500); // the whole run's median would still be 100
    expect(s.requestsPerS).toBeCloseTo(2, 6);
    expect(s.outputTokS).toBeCloseTo(20, 6);
    expect(s.done).toBe(324);
  });

  it('contentEvents counts answer and reasoning chunks only', () => {
    expect(contentEvents({ event_kinds: 'rRRaacaud' })).toBe(5); // R R a a a; not role, comment, usage, done
  });
});
