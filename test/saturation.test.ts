// Time slices, over-saturation and --warmup auto on the embedded sim: a hopeless rate stops early with exit 3, a light one is not saturated, the transient is trimmed and `report` agrees.
import { describe, it, expect } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import { EXIT_SATURATED } from '../src/config/statistics.js';
import { rebuildSummary } from '../src/cli/report.js';
import type { Summary } from '../src/metrics/summary.js';
import { capture } from './io-capture.js';
import { tmpDir } from './helpers.js';
import { checkPage, hasChromium, launch, NO_CHROMIUM } from './fixtures/browser.js';

async function cli(args: string[]): Promise<{ code: number; out: string; err: string; ms: number }> {
  const cap = capture();
  const t0 = performance.now();
  const code = await main(args, cap.io);
  return { code, out: cap.out, err: cap.err, ms: performance.now() - t0 };
}
const summaryOf = (dir: string): Summary => JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Summary;

describe('over-saturation on the embedded sim', () => {
  it('a rate far above what a 4-sequence L4 can serve stops early with exit 3 and writes every file', async () => {
    const out = tmpDir();
    // ~2 req/s of capacity (4 sequences of 32 tokens at ~67 ms per token) against 30 req/s: the queue grows ~28 a second.
    const r = await cli(['run', '--sim-gpu', 'l4', '--sim-max-num-seqs', '4', '--rate', '30', '--duration', '120', '--slice', '1s', '--stop-on-saturation', '--grace-period', '1', '--input-tokens', '64', '--output-tokens', '32', '--quiet', '--out', out]);
    expect(r.code).toBe(EXIT_SATURATED);
    expect(r.err).toMatch(/--stop-on-saturation: over-saturated: in-flight requests/);
    // Stopped after the 8 slices the test needs (plus the grace period), far from its 120 s; generous for a loaded machine.
    expect(r.ms).toBeLessThan(60_000);
    for (const f of ['requests.jsonl', 'run.json', 'summary.json', 'stats.csv', 'report.html']) expect(existsSync(join(out, f))).toBe(true);
    const s = summaryOf(out);
    expect(s.run.stopped_reason).toBe('saturated');
    expect(s.saturation).toMatchObject({ saturated: true, stopped: true });
    expect(s.saturation!.growing).toContain('in_flight');
    expect(s.duration_s).toBeLessThan(30);
    expect(s.slices!.slice_s).toBe(1);
    expect(s.slices!.series.length).toBeGreaterThanOrEqual(8);
    // In flight climbs slice after slice while the server is full.
    const inFlight = s.slices!.series.map((x) => x.mean_in_flight);
    expect(inFlight[6]).toBeGreaterThan(inFlight[1] * 2);
    expect(r.out).toMatch(/STOPPED EARLY: --stop-on-saturation/);
    // `report` rebuilds the same summary, verdict included (run.json keeps the verdict that stopped the run).
    expect(JSON.parse(JSON.stringify(rebuildSummary(out).summary))).toEqual(s);
    expect(r.out).toMatch(/time slices of 1\.00 s/);
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).toContain('Time slices');
    expect(html).toContain('c-slices-rate');
    if (!hasChromium) return console.warn(NO_CHROMIUM);
    // The slice charts draw offline without errors, beside the run's other charts.
    const browser = await launch();
    try {
      const page = await checkPage(browser, join(out, 'report.html'));
      expect(page.errors).toEqual([]);
      expect(page.network).toEqual([]);
      expect(page.text).toContain('over-saturation');
      expect(page.drawn).toBe(page.canvases);
    } finally {
      await browser.close();
    }
  });

  it('a light run is not saturated, runs its whole duration and carries a throughput interval around its rate', async () => {
    const out = tmpDir();
    const r = await cli(['run', '--rate', '4', '--duration', '10', '--slice', '1s', '--stop-on-saturation', '--input-tokens', '64', '--output-tokens', '32', '--json', '--quiet', '--out', out]);
    expect(r.code).toBe(0);
    const s = JSON.parse(r.out) as Summary;
    expect(s.run.stopped_reason).toBe('completed');
    expect(s.saturation).toMatchObject({ saturated: false, stopped: false, growing: [] });
    expect(s.slices!.series.length).toBeGreaterThanOrEqual(9);
    const ci = s.ci95!.request_throughput!;
    expect(ci[0]).toBeLessThan(ci[1]);
    expect(ci[0]).toBeGreaterThan(0);
    // 4 req/s offered and served: the interval is about that rate (wide: ~4 completions per 1 s slice).
    expect(ci[0]).toBeLessThan(4.5);
    expect(ci[1]).toBeGreaterThan(3.5);
    expect(s.ci95!.qpm![0]).toBeCloseTo(ci[0] * 60, 9);
  });
});

describe('--warmup auto on the embedded sim', () => {
  it('trims what MSER-5 calls the transient, says so, and `report` rebuilds the same summary', async () => {
    const out = tmpDir();
    const r = await cli(['run', '--warmup', 'auto', '--requests', '150', '--concurrency', '8', '--input-tokens', '64', '--output-tokens', '16', '--sim-time-scale', '10', '--quiet', '--out', out]);
    expect(r.code).toBe(0);
    const s = summaryOf(out);
    const st = s.steady_state!;
    expect(st.rule).toBe('MSER-5');
    expect(st.batches).toBe(30);
    expect(s.requests.total + st.trimmed_requests).toBe(150);
    expect(s.requests.warmup).toBe(st.trimmed_requests);
    // The trimmed requests are exactly those sent before trimmed_s.
    const records = readFileSync(join(out, 'requests.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { sent_at_ms: number });
    expect(records.filter((x) => x.sent_at_ms < st.trimmed_s * 1000)).toHaveLength(st.trimmed_requests);
    expect(r.out).toMatch(/steady state \(--warmup auto, MSER-5/);
    expect(JSON.parse(JSON.stringify(rebuildSummary(out).summary))).toEqual(s);
  });

  it('rejects a bad --warmup with one message naming the flag, exit 2, nothing sent', async () => {
    const out = tmpDir();
    const r = await cli(['run', '--warmup', 'soon', '--requests', '5', '--out', out]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--warmup: expected a number of requests \(0 or more\) or auto/);
    expect(existsSync(join(out, 'requests.jsonl'))).toBe(false);
  });
});
