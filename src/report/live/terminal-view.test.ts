// The live terminal view's layout: figures from the snapshot and the window, time left, escaping, and no line wider than the terminal.
import { describe, it, expect } from 'vitest';
import type { LiveSnapshot } from '../../metrics/live.js';
import type { RequestRecord } from '../../metrics/record.js';
import { liveViewLines, progressFraction, timeLeftS, type LiveView } from './terminal-view.js';
import { LatencyWindow, eraseBlock, percentiles, terminalViewReporter } from './terminal-view-reporter.js';
import type { RunStartEvent } from '../events.js';

const snap = (o: Partial<LiveSnapshot> = {}): LiveSnapshot => ({
  elapsedS: 30,
  done: 150,
  ok: 147,
  failed: 3,
  inFlight: 16,
  ttftP50Ms: 123.4,
  ttftP90Ms: 250.5,
  ttftP99Ms: 999.9,
  outputTokens: 12000,
  outputTokS: 812.3,
  requestsPerS: 5,
  ...o,
});
const view = (o: Partial<LiveView> = {}): LiveView => ({
  snapshot: snap(),
  total: 400,
  durationS: undefined,
  tpotMs: { p50: 12.5, p90: 15, p99: 20.25 },
  e2eMs: { p50: 1500, p90: 2500, p99: 4000 },
  errors: [{ kind: 'http_error 429', count: 2 }, { kind: 'timeout', count: 1 }],
  ...o,
});

describe('liveViewLines', () => {
  it('shows progress, time left, windowed rates, the three percentiles of TTFT/TPOT/E2E, errors by kind and in flight', () => {
    const text = liveViewLines(view()).join('\n');
    // (400 − 150) / 5 req/s = 50 s left; 150 of 400 = 37%.
    expect(text).toContain('~50s left');
    expect(text).toContain('37%');
    expect(text).toContain('done 150/400  ok 147  failed 3  in flight 16');
    expect(text).toContain('5.0 req/s  812 output tok/s');
    expect(text).toMatch(/TTFT ms\s+123\.4\s+250\.5\s+999\.9/);
    expect(text).toMatch(/TPOT ms\s+12\.50\s+15\.00\s+20\.25/);
    expect(text).toMatch(/E2E ms\s+1500\s+2500\s+4000/);
    expect(text).toContain('errors    http_error 429 2  timeout 1');
  });

  it('time left: --duration minus elapsed, else remaining requests at the windowed rate, else unknown', () => {
    expect(timeLeftS(view({ durationS: 120 }))).toBe(90);
    expect(progressFraction(view({ total: undefined, durationS: 120 }))).toBe(0.25);
    expect(timeLeftS(view())).toBe(50);
    expect(timeLeftS(view({ snapshot: snap({ requestsPerS: 0 }) }))).toBeNull();
    expect(timeLeftS(view({ total: undefined }))).toBeNull();
    expect(liveViewLines(view({ total: undefined })).join('\n')).not.toContain('left');
  });

  it('before anything finished: dashes, not NaN; no errors is "none"', () => {
    const text = liveViewLines(view({ snapshot: snap({ done: 0, ok: 0, failed: 0, ttftP50Ms: null, ttftP90Ms: null, ttftP99Ms: null, requestsPerS: 0 }), tpotMs: percentiles([]), e2eMs: percentiles([]), errors: [] })).join('\n');
    expect(text).not.toMatch(/NaN|null|undefined/);
    expect(text).toMatch(/TTFT ms\s+-\s+-\s+-/);
    expect(text).toContain('errors    none');
  });

  it('control characters in shown text are removed, and every line fits the width', () => {
    const lines = liveViewLines(view({ label: '\x1b]0;pwned\x07[1/3 c=4]', errors: [{ kind: 'x\x1b[2Jy', count: 1 }] }), 40);
    expect(lines.join('\n')).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(40);
  });
});

describe('LatencyWindow', () => {
  const rec = (o: Partial<RequestRecord>): RequestRecord => ({ warmup: false, status: 'ok', http_status: 200, tpot_ms: 10, e2e_ms: 100, ...o }) as RequestRecord;
  it('keeps measured ok records of the last 10 s, counts failures by kind (cancelled and warmup left out)', () => {
    const w = new LatencyWindow();
    w.add(rec({ tpot_ms: 50, e2e_ms: 900 }));
    w.add(rec({ warmup: true, tpot_ms: 1000 }));
    w.add(rec({ status: 'http_error', http_status: 503 }));
    w.add(rec({ status: 'cancelled' }));
    w.add(rec({ status: 'timeout' }));
    w.add(rec({ status: 'http_error', http_status: 503 }));
    expect(w.tick(1).tpotMs).toEqual({ p50: 50, p90: 50, p99: 50 });
    w.add(rec({ tpot_ms: 20, e2e_ms: 300 }));
    // Of 20 and 50, linear interpolation: p50 at 35, p90 at 20 + 0.9 · 30, p99 at 20 + 0.99 · 30.
    const two = w.tick(5).tpotMs;
    expect(two.p50).toBe(35);
    expect(two.p90).toBeCloseTo(47, 9);
    expect(two.p99).toBeCloseTo(49.7, 9);
    // At 10.5 s the bucket closed at 0 s (the first record) is older than the window; the one closed at 1 s is not.
    expect(w.tick(10.5).tpotMs).toEqual({ p50: 20, p90: 20, p99: 20 });
    expect(w.tick(30).e2eMs).toEqual({ p50: null, p90: null, p99: null });
    expect(w.errorList()).toEqual([{ kind: 'http_error 503', count: 2 }, { kind: 'timeout', count: 1 }]);
  });

  it('with --percentiles beyond p50/p90/p99, the reporter adds a column each (p99.9), linear interpolation over the window as in the summary; the default list adds none', () => {
    const draw = (percentiles: number[] | undefined) => {
      let text = '';
      const stream = { columns: 120, write: (x: string) => ((text = x), true) } as unknown as NodeJS.WriteStream;
      const rep = terminalViewReporter(stream);
      rep.runStart!({ total: 2000, meta: { config: percentiles ? { percentiles } : {} } } as unknown as RunStartEvent);
      // TTFT 1..2000 ms, rank p/100 · 1999: p95 is 1900.05, p99.9 1998.001; E2E (×10) p50 10005, p90 18001, p95 19000.5.
      for (let i = 1; i <= 2000; i++) rep.record!(rec({ ttft_ms: i, tpot_ms: i / 10, e2e_ms: i * 10 }));
      rep.snapshot!(snap({ elapsedS: 1 }));
      return text;
    };
    const text = draw([50, 90, 95, 99, 99.9]);
    expect(text).toMatch(/\s+p50\s+p90\s+p95\s+p99\s+p99\.9\n/);
    // p50/p90/p99 of TTFT are the snapshot's; p95 and p99.9 come from the reporter's window.
    expect(text).toMatch(/TTFT ms\s+123\.4\s+250\.5\s+1900\s+999\.9\s+1998\n/);
    expect(text).toMatch(/TPOT ms\s+100\.0\s+180\.0\s+190\.0\s+198\.0\s+199\.8\n/);
    expect(text).toMatch(/E2E ms\s+10005\s+18001\s+19001\s+19800\s+19980\n/);
    for (const plain of [draw(undefined), draw([50, 90, 95, 99])]) {
      expect(plain).toMatch(/\s+p50\s+p90\s+p99\n/);
      expect(plain).not.toMatch(/p95|p99\.9/);
    }
  });

  it('eraseBlock moves up to the first line of the block and clears below', () => {
    expect(eraseBlock(0)).toBe('');
    expect(eraseBlock(1)).toBe('\r\x1b[0J');
    expect(eraseBlock(7)).toBe('\r\x1b[6A\x1b[0J');
  });
});
