// compare judges significance: per-request tests between runs, Welch across repeated runs, --fail-on METRIC=N%, strict mode, the noise floor.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { registerCompare } from '../src/cli/compare.js';
import { mannWhitney, sampleMean, sampleVariance, tCdf, tQuantile, welchTest } from '../src/metrics/inference/index.js';
import { percentile } from '../src/metrics/stats.js';
import { runSamples } from '../src/report/compare-samples.js';
import { runCli } from './fixtures/cli-harness.js';
import { recordsOf, ttftsAround, writeRepeatedRuns, writeRunDir } from './fixtures/run-dirs.js';
import { rec } from './fixtures/session-records.js';
import { tmpDir } from './helpers.js';
import { resolveSweepConfig } from '../src/sweep/config.js';
import { runSweep } from '../src/sweep/sweep.js';

type Row = { metric: string; delta: number; relative: number; test: string | null; p: number | null; ci95: [number, number] | null; verdict: string; regressed: boolean; beyond_threshold: boolean; threshold_pct: number; note?: string };
const rows = (doc: { comparisons: { points: { deltas: Row[] }[] }[] }): Record<string, Row> => Object.fromEntries(doc.comparisons[0].points[0].deltas.map((d) => [d.metric, d]));
const compare = async (...args: string[]) => runCli(registerCompare, ['compare', ...args, '--no-html']);
const p50 = (xs: readonly number[]) => percentile(Float64Array.from(xs).sort(), 50)!;

describe('compare of two single runs: per-request tests', () => {
  it('reads the values the summary saw (no warmup, no failed requests) and tests p50 with Mann–Whitney', async () => {
    const a = ttftsAround(100, 20, 80, 1);
    const b = ttftsAround(100, 20, 80, 2);
    // A warmup request and a failed one on each side: the summary leaves them out, so the test must too.
    const extra = [rec({ ttft: 5000, warmup: true }), rec({ status: 'timeout', http_status: null, code: 'E_TIMEOUT', error: 'timed out' })];
    const da = writeRunDir(tmpDir(), [...recordsOf(a), ...extra]);
    const db = writeRunDir(tmpDir(), [...recordsOf(b), ...extra]);
    expect(runSamples(da)!.values.get('ttft_ms')!.length).toBe(80);
    expect(runSamples(da)!.errors.length).toBe(81);
    const r = await compare(da, db, '--json');
    expect(r.code).toBe(0);
    const by = rows(JSON.parse(r.out));
    // recordLine keeps µs, so the per-request values match the draws to 1e-3 ms.
    const mw = mannWhitney(runSamples(da)!.values.get('ttft_ms')!, runSamples(db)!.values.get('ttft_ms')!)!;
    expect(by.ttft_p50.test).toBe('mann-whitney');
    expect(by.ttft_p50.p).toBeCloseTo(mw.p, 12);
    expect(by.ttft_p50.delta).toBeCloseTo(p50(b) - p50(a), 2);
    expect(by.ttft_p50.ci95![0]).toBeLessThan(by.ttft_p50.delta);
    expect(by.ttft_p50.ci95![1]).toBeGreaterThan(by.ttft_p50.delta);
    expect(by.ttft_p99.test).toBe('bootstrap');
    expect(by.output_throughput).toMatchObject({ test: null, p: null, ci95: null });
    expect(by.output_throughput.note).toMatch(/no per-request sample/);
    expect(by.error_rate).toMatchObject({ test: 'mann-whitney', p: 1 });
    // The bootstrap is seeded: the same pair gives the same intervals and p-values on every call.
    expect(rows(JSON.parse((await compare(da, db, '--json')).out)).ttft_p99).toEqual(by.ttft_p99);
  });

  it('--fail-on METRIC=N%: beyond the threshold but not significant is "within noise" (exit 0); strict mode fails it (exit 1)', async () => {
    // Few, widely spread requests 8% apart: beyond 5%, but nowhere near significant.
    const da = writeRunDir(tmpDir(), recordsOf(ttftsAround(100, 40, 12, 3)));
    const db = writeRunDir(tmpDir(), recordsOf(ttftsAround(100, 40, 12, 3).map((x) => x * 1.08)));
    const soft = await compare(da, db, '--fail-on', 'ttft_p50=5%');
    expect(soft.code, soft.out).toBe(0);
    expect(soft.out).toMatch(/ttft_p50: \+8\.0% \(threshold 5%, p 0\.\d+\): within noise \(beyond the threshold, not significant\)/);
    const strict = await compare(da, db, '--fail-on', 'ttft_p50=5%', '--fail-on-mode', 'strict');
    expect(strict.code).toBe(1);
    expect(strict.out).toMatch(/ttft_p50: \+8\.0% .*REGRESSED/);
    // The same shift over many tightly spread requests is significant: exit 1 in the default mode too.
    const dc = writeRunDir(tmpDir(), recordsOf(ttftsAround(100, 5, 300, 4)));
    const dd = writeRunDir(tmpDir(), recordsOf(ttftsAround(100, 5, 300, 5).map((x) => x * 1.08)));
    const hard = await compare(dc, dd, '--fail-on', 'ttft_p50=5%', '--json');
    expect(hard.code).toBe(1);
    const doc = JSON.parse(hard.out);
    expect(doc).toMatchObject({ alpha: 0.05, fail_on_mode: 'significant', fail_on_thresholds: { ttft_p50: 5 } });
    expect(doc.gate).toEqual([expect.objectContaining({ metric: 'ttft_p50', verdict: 'regressed', failed: true, threshold_pct: 5 })]);
    expect(rows(doc).ttft_p50.p).toBeLessThan(1e-6);
    expect(rows(doc).ttft_p50.ci95![0]).toBeGreaterThan(0);
    expect((await compare(dc, dd, '--fail-on', 'ttft_p50=10%')).code).toBe(0);
    // --alpha moves the line: above the few-requests pair's p, its shift counts as significant.
    const softP = rows(JSON.parse((await compare(da, db, '--json')).out)).ttft_p50.p!;
    expect(softP).toBeGreaterThan(0.05);
    expect((await compare(da, db, '--fail-on', 'ttft_p50=5%', '--alpha', String(Math.min(0.99, softP + 0.01)))).code).toBe(1);
  });

  it('bad input is exit 2 naming the flag, with every problem at once', async () => {
    const d = writeRunDir(tmpDir(), recordsOf(ttftsAround(100, 5, 10, 6)));
    for (const [args, msg] of [
      [['--alpha', '0'], /--alpha: expected a significance level between 0 and 1/],
      [['--alpha', 'x'], /--alpha: .*got "x"/],
      [['--fail-on', 'ttft_p50=fast'], /--fail-on: "ttft_p50=fast": expected METRIC=N%/],
      [['--fail-on', 'all=5%'], /--fail-on: "all" takes no threshold/],
      [['--fail-on-mode', 'loose'], /--fail-on-mode: expected significant or strict, got "loose"/],
    ] as const) {
      const r = await compare(d, d, ...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err).toMatch(msg);
    }
    const both = await compare(d, d, '--alpha', '2', '--fail-on-mode', 'x');
    expect(both.err).toMatch(/--alpha[\s\S]*--fail-on-mode/);
    expect((await compare(d)).code).toBe(2);
  });
});

describe('compare of repeated runs (run-1/, run-2/, …): Welch on run-level values', () => {
  // Each run's p50 sits at its own centre (tight within the run), so the run-level values are the centres.
  const repeated = (centres: readonly number[], seed: number) => writeRepeatedRuns(centres.map((c, k) => ttftsAround(c, 1, 40, seed + k)));
  const runP50s = (centres: readonly number[], seed: number) => centres.map((c, k) => p50(ttftsAround(c, 1, 40, seed + k).map((x) => Math.round(x * 1000) / 1000)));

  it('both sides repeated: diff, interval and p are Welch\'s of the runs\' p50s; a shift inside the run-to-run spread is within noise', async () => {
    const [A, B, C] = [[100, 104, 97], [101, 106, 99], [110, 112, 109]];
    const [da, db, dc] = [repeated(A, 10), repeated(B, 20), repeated(C, 30)];
    const near = await compare(da, db, '--fail-on', 'ttft_p50=1%', '--json');
    expect(near.code, near.out).toBe(0);
    const w = welchTest(runP50s(A, 10), runP50s(B, 20))!;
    const by = rows(JSON.parse(near.out));
    expect(by.ttft_p50).toMatchObject({ test: 'welch', verdict: 'within noise', beyond_threshold: true });
    expect(by.ttft_p50.p).toBeCloseTo(w.p, 10);
    expect(by.ttft_p50.delta).toBeCloseTo(w.diff, 6);
    expect(by.ttft_p50.ci95![0]).toBeCloseTo(w.ci![0], 6);
    // Rates have run-level values too: tested across repeated runs.
    expect(by.output_throughput.test).toBe('welch');
    const far = await compare(da, dc, '--fail-on', 'ttft_p50=5%');
    expect(far.code).toBe(1);
    expect(far.out).toMatch(/ttft_p50: \+\d+\.\d% \(threshold 5%, p 0\.0\d+\): REGRESSED/);
    expect(far.out).toMatch(/^baseline  \S+ \(3 runs: their mean\)$/m);
    expect(JSON.parse(near.out).comparisons[0]).toMatchObject({ baseline_runs: 3, candidate_runs: 3 });
  });

  it('one single run against repeated runs: the one-run t-test (the repeated side\'s run-to-run deviation), either way round', async () => {
    const A = [100, 104, 97, 102];
    const da = repeated(A, 40);
    const single = writeRunDir(tmpDir(), recordsOf(ttftsAround(112, 1, 40, 50)));
    const x = p50(ttftsAround(112, 1, 40, 50).map((v) => Math.round(v * 1000) / 1000));
    const runs = runP50s(A, 40);
    const m = sampleMean(runs);
    const se = Math.sqrt(sampleVariance(runs, m)) * Math.sqrt(1 + 1 / runs.length);
    const p = 2 * tCdf(-Math.abs((x - m) / se), runs.length - 1);
    const r = await compare(da, single, '--json');
    const by = rows(JSON.parse(r.out));
    expect(by.ttft_p50.test).toBe('one-run-t');
    expect(by.ttft_p50.p).toBeCloseTo(p, 10);
    expect(by.ttft_p50.ci95![1] - by.ttft_p50.ci95![0]).toBeCloseTo(2 * tQuantile(0.975, runs.length - 1) * se, 6);
    const back = rows(JSON.parse((await compare(single, da, '--json')).out));
    expect(back.ttft_p50.p).toBeCloseTo(p, 10);
    expect(back.ttft_p50.delta).toBeCloseTo(-by.ttft_p50.delta, 6);
  });
});

describe('compare --baseline: the noise floor of a setup', () => {
  it('per metric: CV, largest pair difference, smallest significant difference and false alarms of the per-request test', async () => {
    const centres = [100, 103, 98];
    const dirs = centres.map((c, k) => writeRunDir(tmpDir(), recordsOf(ttftsAround(c, 1, 60, 60 + k))));
    const r = await runCli(registerCompare, ['compare', '--baseline', ...dirs, '--json']);
    expect(r.code, r.err).toBe(0);
    const nf = JSON.parse(r.out).noise_floor;
    expect(nf.runs).toEqual(dirs);
    const t = nf.metrics.find((m: { metric: string }) => m.metric === 'ttft_p50');
    const xs = centres.map((c, k) => p50(ttftsAround(c, 1, 60, 60 + k).map((v) => Math.round(v * 1000) / 1000)));
    const mean = sampleMean(xs);
    const sd = Math.sqrt(sampleVariance(xs, mean));
    expect(t.runs).toBe(3);
    expect(t.cv).toBeCloseTo(sd / mean, 10);
    expect(t.max_pairwise_pct).toBeCloseTo((100 * (Math.max(...xs) - Math.min(...xs))) / mean, 8);
    expect(t.min_significant_pct).toBeCloseTo((100 * tQuantile(0.975, 4) * sd * Math.sqrt(2 / 3)) / mean, 8);
    // Runs 2–5% apart with 1 ms spread inside each: the per-request test calls every pair different.
    expect(t).toMatchObject({ pairs: 3, pairs_significant: 3 });
    expect(t.suggested_threshold_pct).toBe(Math.ceil(t.max_pairwise_pct * 2) / 2);
    const text = await runCli(registerCompare, ['compare', '--baseline', ...dirs]);
    expect(text.out).toMatch(/noise floor over 3 runs of one setup/);
    expect(text.out).toMatch(/TTFT p50 \(ms\)\s+3\s/);
    // A repeated-run directory counts as its runs.
    const rep = writeRepeatedRuns(centres.map((c, k) => ttftsAround(c, 1, 60, 60 + k)));
    const again = JSON.parse((await runCli(registerCompare, ['compare', '--baseline', rep, '--json'])).out).noise_floor;
    expect(again.runs).toEqual([1, 2, 3].map((k) => join(rep, `run-${k}`)));
    expect(again.metrics.find((m: { metric: string }) => m.metric === 'ttft_p50').max_pairwise_pct).toBeCloseTo(t.max_pairwise_pct, 10);
    const mixed = await runCli(registerCompare, ['compare', '--baseline', ...dirs, '--fail-on', 'ttft_p50']);
    expect(mixed.code).toBe(2);
    expect(mixed.err).toMatch(/--fail-on: not with --baseline/);
    const one = await runCli(registerCompare, ['compare', '--baseline', dirs[0]]);
    expect(one.code).toBe(2);
    expect(one.err).toMatch(/--baseline: the noise floor needs at least 2 runs/);
  });
});

describe('compare of two sweeps: per-request tests point by point', () => {
  it('tests each matched point from its own requests.jsonl', async () => {
    // simulate: a virtual clock, so the points are deterministic and the test has no timing at stake.
    const sweep = async (gpu: string) => {
      const out = tmpDir();
      await runSweep(resolveSweepConfig({ flags: { concurrency: '1,4', requests: '8', out, simulate: true, quiet: true }, runFlags: { inputTokens: '256', outputTokens: '32' }, engineFlags: { gpu } }));
      return out;
    };
    const [a, b] = [await sweep('h100'), await sweep('a100-40gb')];
    const r = await compare(a, b, '--fail-on', 'e2e_p50=5%', '--json');
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.out);
    const points = doc.comparisons[0].points as { point: string; deltas: Row[] }[];
    expect(points).toHaveLength(2);
    for (const p of points) {
      const e2e = p.deltas.find((d) => d.metric === 'e2e_p50')!;
      expect(e2e, p.point).toMatchObject({ test: 'mann-whitney', verdict: 'regressed' });
      expect(e2e.p!).toBeLessThan(0.01);
      expect(e2e.ci95![0]).toBeGreaterThan(0);
      expect(p.deltas.find((d) => d.metric === 'output_throughput')!.test).toBeNull();
    }
    expect(doc.gate.map((g: { point: string; failed: boolean }) => [g.point, g.failed])).toEqual(points.map((p) => [p.point, true]));
    // A sweep against itself: identical samples, Mann–Whitney's p is 1.
    const same = JSON.parse((await compare(a, a, '--json')).out);
    for (const p of same.comparisons[0].points as { deltas: Row[] }[]) expect(p.deltas.find((d) => d.metric === 'e2e_p50')!.p).toBe(1);
  }, 60_000);
});
