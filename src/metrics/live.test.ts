import { describe, it, expect } from 'vitest';
import { LiveAggregator } from './live.js';
import type { RequestRecord } from './record.js';

const rec = (over: Partial<RequestRecord>): RequestRecord => ({ warmup: false, status: 'ok', ttft_ms: 100, output_tokens: 10, ...over }) as RequestRecord;

describe('LiveAggregator', () => {
  it('counts, keeps a live TTFT median and a windowed output rate', () => {
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
    t += 250;
    const s = agg.snapshot();
    expect(s.done).toBe(11);
    expect(s.ok).toBe(10);
    expect(s.failed).toBe(1);
    expect(s.inFlight).toBe(0);
    expect(s.ttftP50Ms).toBeGreaterThan(103);
    expect(s.ttftP50Ms).toBeLessThan(106);
    // 100 tokens over 2.75 s
    expect(s.outputTokS).toBeCloseTo(100 / 2.75, 1);
  });
  it('ignores warmup requests', () => {
    const agg = new LiveAggregator(() => 0);
    agg.started();
    agg.finished(rec({ warmup: true }));
    expect(agg.snapshot().done).toBe(0);
  });
});
