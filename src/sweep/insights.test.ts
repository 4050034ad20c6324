import { describe, it, expect } from 'vitest';
import { findKnee, groupInsights, paretoFrontier, throughputAt } from './insights.js';
import type { SweepRow } from './row.js';

function row(load: number, tput: number, extra: Partial<SweepRow> = {}): SweepRow {
  return {
    name: `c${load}`, dir: `points/c${load}`, mode: 'concurrency', load, concurrency: load, rate: null, input_tokens: 256, output_tokens: 256,
    lengths: '256x256', input_tokens_mean: 256, output_tokens_mean: 256, status: 'done', error: null, client_bound: false,
    requests: 100, ok: 100, failed: 0, error_rate: 0, duration_s: 10, request_throughput: tput / 256, output_throughput: tput,
    total_token_throughput: tput * 2, ttft_mean_ms: 50 * load, ttft_p50_ms: 50 * load, ttft_p90_ms: 60 * load, ttft_p99_ms: 80 * load,
    tpot_mean_ms: 10, tpot_p50_ms: 10, tpot_p90_ms: 11, tpot_p99_ms: 12, itl_mean_ms: 10, itl_p50_ms: 10, itl_p90_ms: 11, itl_p99_ms: 12,
    e2e_mean_ms: 1000 + 100 * load, e2e_p50_ms: 1000 + 100 * load, e2e_p90_ms: 1100 + 100 * load, e2e_p99_ms: 1200 + 150 * load,
    output_speed_mean_tok_s: 100, output_speed_p50_tok_s: 100, tpot_cv: 0.1, e2e_cv: 0.1, concurrency_efficiency: tput / load,
    mean_in_flight: load, goodput_req_s: tput / 256, goodput_tok_s: tput, good_fraction: 1, slo_passed: null, slo_failed: [], ...extra,
  };
}

const plateau = [row(1, 250), row(2, 500), row(4, 1000), row(8, 1010), row(16, 1000)];

describe('findKnee', () => {
  it('finds where a saturating curve bends', () => {
    expect(findKnee(plateau)?.load).toBe(4);
    // Still concave but smooth: the knee is in the middle.
    expect(findKnee([row(1, 100), row(2, 190), row(4, 340), row(8, 480), row(16, 520), row(32, 530)])?.load).toBe(8);
  });
  it('reports none for a straight or still-growing curve, flat data or too few levels', () => {
    expect(findKnee([row(1, 100), row(2, 200), row(4, 400), row(8, 800)])).toBeNull();
    expect(findKnee([row(1, 100), row(2, 200), row(4, 300), row(8, 400)])).toBeNull();
    expect(findKnee([row(1, 100), row(2, 100), row(4, 100)])).toBeNull();
    expect(findKnee([row(1, 100), row(2, 200)])).toBeNull();
  });
  it('survives overload collapse after the peak', () => {
    expect(findKnee([row(1, 250), row(2, 500), row(4, 1000), row(8, 900), row(16, 500)])?.load).toBe(4);
  });
});

describe('groupInsights', () => {
  it('recommends 70% of the knee and states the findings', () => {
    const g = groupInsights(plateau, { hasSlo: false, maxErrorRate: 0.05 });
    expect(g.knee?.load).toBe(4);
    expect(g.peak).toEqual({ load: 8, output_throughput: 1010 });
    expect(g.headroom_load).toBe(2);
    expect(g.recommended?.load).toBe(2);
    expect(g.recommended?.expected_output_throughput).toBe(500);
    expect(g.max_load_meeting_slo).toBe(16);
    expect(g.statements.join('\n')).toMatch(/Knee at concurrency 4/);
    expect(g.statements.join('\n')).toMatch(/Recommended operating point: concurrency 2/);
  });
  it('caps the recommendation at the highest load meeting the SLOs', () => {
    const rows = plateau.map((r) => ({ ...r, slo_passed: r.load <= 1, slo_failed: r.load <= 1 ? [] : ['ttft_p99'] }));
    const g = groupInsights(rows, { hasSlo: true, maxErrorRate: 0.05 });
    expect(g.max_load_meeting_slo).toBe(1);
    expect(g.recommended?.load).toBe(1);
    const none = groupInsights(plateau.map((r) => ({ ...r, slo_passed: false, slo_failed: ['e2e_p99'] })), { hasSlo: true, maxErrorRate: 0.05 });
    expect(none.recommended).toBeNull();
    expect(none.statements.join('\n')).toMatch(/No tested level met the SLOs/);
  });
  it('picks the most stable level by TPOT and E2E variation', () => {
    const rows = plateau.map((r) => ({ ...r, tpot_cv: r.load === 2 ? 0.01 : 0.2, e2e_cv: r.load === 2 ? 0.02 : 0.2 }));
    expect(groupInsights(rows, { hasSlo: false, maxErrorRate: 0.05 }).most_stable?.load).toBe(2);
  });
});

describe('groupInsights says what its findings rest on', () => {
  const smooth = [row(1, 100), row(2, 190), row(4, 340), row(8, 480), row(16, 520), row(32, 530)];
  it('says a recommendation on a level that was not measured is interpolated', () => {
    const g = groupInsights(smooth, { hasSlo: false, maxErrorRate: 0.05 });
    expect(g.knee?.load).toBe(8);
    expect(g.recommended).toMatchObject({ load: 5, interpolated: true });
    expect(g.recommended?.expected_output_throughput).toBeCloseTo(340 + 140 * (Math.log2(5) - 2));
    expect(g.statements.join('\n')).toMatch(/Recommended operating point: concurrency 5 \(interpolated: this level was not measured\)/);
    expect(groupInsights(plateau, { hasSlo: false, maxErrorRate: 0.05 }).recommended?.interpolated).toBe(false);
  });
  it('marks client-bound levels and the findings drawn from them', () => {
    const rows = smooth.map((r) => ({ ...r, client_bound: r.load === 8 }));
    const g = groupInsights(rows, { hasSlo: false, maxErrorRate: 0.05 });
    expect(g.client_bound_levels).toEqual([8]);
    const text = g.statements.join('\n');
    expect(text).toMatch(/CLIENT-BOUND at concurrency 8/);
    expect(text).toMatch(/Knee at concurrency 8 .*\[rests on client-bound point c8: may reflect the load generator/);
    expect(text).toMatch(/Recommended operating point: concurrency 5 .*\[rests on client-bound point c8:/);
    expect(g.knee?.client_bound_points).toEqual(['c8']);
    expect(g.recommended?.client_bound_points).toEqual(['c8']);
  });
  // Issue 25: c1 and c2 were flagged, the knee (elsewhere) was drawn against them and said nothing.
  it('marks every finding resting on a flagged point, in the statements and in the JSON fields', () => {
    const rows = smooth.map((r) => ({ ...r, client_bound: r.load <= 2 }));
    const g = groupInsights(rows, { hasSlo: false, maxErrorRate: 0.05 });
    expect(g.knee?.load).toBe(8);
    // Kneedle measures the bend against the chord from the lowest level: the knee rests on c1.
    expect(g.knee?.client_bound_points).toEqual(['c1']);
    const text = g.statements.join('\n');
    expect(text).toMatch(/Knee at concurrency 8 .*\[rests on client-bound point c1: may reflect the load generator, not the server\]/);
    expect(text).toMatch(/Recommended operating point: concurrency 5 .*\[rests on client-bound point c1:/);
    expect(g.recommended?.client_bound_points).toEqual(['c1']);
    expect(g.recommended_range?.client_bound_points).toEqual(['c1']);
    // An anomaly between two levels, one flagged: marked; one between unflagged levels: not.
    const drop = groupInsights(rows.map((r) => (r.load === 2 ? { ...r, output_throughput: 50 } : r)), { hasSlo: false, maxErrorRate: 0.05 });
    const a = drop.anomalies!.find((x) => x.kind === 'throughput_drop')!;
    expect(a.points).toEqual(['c1', 'c2']);
    expect(a.client_bound_points).toEqual(['c1', 'c2']);
    expect(drop.statements.join('\n')).toMatch(/Anomaly \(throughput drop\): .*\[rests on client-bound points c1, c2: .*\] \[points: c1, c2\]/);
    const clean = groupInsights(smooth.map((r) => (r.load === 16 ? { ...r, output_throughput: 300 } : r)), { hasSlo: false, maxErrorRate: 0.05 });
    expect(clean.anomalies!.every((x) => x.client_bound_points!.length === 0)).toBe(true);
    expect(clean.statements.join('\n')).not.toMatch(/rests on client-bound/);
  });
  it('with no SLO given, never claims a load "meeting SLOs"', () => {
    const g = groupInsights(plateau, { hasSlo: false, maxErrorRate: 0.05 });
    const text = g.statements.join('\n');
    expect(text).not.toMatch(/meeting/i);
    expect(text).toMatch(/Highest load with an error rate under 5% \(no SLO given\): concurrency 16/);
    const slo = groupInsights(plateau.map((r) => ({ ...r, slo_passed: true })), { hasSlo: true, maxErrorRate: 0.05 });
    expect(slo.statements.join('\n')).toMatch(/Highest load meeting the SLOs: concurrency 16/);
  });
  it('recommends nothing for an interrupted or incomplete sweep, and leaves failed levels out', () => {
    const i = groupInsights(plateau, { hasSlo: false, maxErrorRate: 0.05, incomplete: 'interrupted' });
    expect(i.recommended).toBeNull();
    expect(i.statements.join('\n')).toMatch(/Interrupted: no recommendation/);
    const f = groupInsights([...plateau.slice(0, 3), row(8, 0, { status: 'failed', error: 'cannot reach the server', ok: 0, requests: 0 })], {
      hasSlo: false, maxErrorRate: 0.05, incomplete: 'failed',
    });
    expect(f.failed_levels).toEqual([8]);
    expect(f.max_load_meeting_slo).toBe(4);
    expect(f.statements.join('\n')).toMatch(/Not measured: concurrency 8 \(cannot reach the server\)/);
  });
});

describe('paretoFrontier and throughputAt', () => {
  it('keeps only undominated levels', () => {
    // 16 has less throughput than 8 and more latency: dominated.
    expect(paretoFrontier(plateau).map((r) => r.load)).toEqual([1, 2, 4, 8]);
  });
  it('interpolates over log load', () => {
    expect(throughputAt(plateau, 3)).toBeCloseTo(500 + 500 * (Math.log2(3) - 1));
    expect(throughputAt(plateau, 64)).toBeNull();
  });
});

describe('groupInsights on levels that fail', () => {
  it('leaves levels above the error threshold out of knee, stability and Pareto, and marks them', () => {
    // c16 fails 80% of its requests; its few survivors look fast and steady, which must not make it "best".
    const rows = [...plateau.slice(0, 4), row(16, 1020, { error_rate: 0.8, ok: 20, failed: 80, tpot_cv: 0.01, e2e_cv: 0.01, e2e_p99_ms: 500 })];
    const g = groupInsights(rows, { hasSlo: false, maxErrorRate: 0.05 });
    expect(g.knee?.load).toBe(4);
    expect(g.most_stable?.load).not.toBe(16);
    expect(g.pareto).not.toContain(16);
    expect(g.statements.join('\n')).toMatch(/Knee at concurrency 4 .* to concurrency 8 /);
    expect(g.statements.join('\n')).toMatch(/Left out of .*: concurrency 16 \(error rate 80\.0%\), above the 5% error threshold/);
    // --max-error-rate 0.9 accepts it again.
    expect(groupInsights(rows, { hasSlo: false, maxErrorRate: 0.9 }).pareto).toContain(16);
  });
  it('says p99 TTFT falls (not "grows 0.2x") when it is lower at the last level', () => {
    const rows = [row(1, 250), row(2, 500), row(4, 1000), row(8, 1010, { ttft_p99_ms: 40 })];
    const s = groupInsights(rows, { hasSlo: false, maxErrorRate: 0.05 }).statements.join('\n');
    expect(s).toMatch(/while p99 TTFT falls \(320 ms to 40\.0 ms\)/);
    expect(s).not.toMatch(/grows 0\./);
  });
});

describe('the metric that defines the knee', () => {
  it('is the curve that bends at the lowest load: throughput, or a p99 latency that takes off first', () => {
    expect(groupInsights(plateau, { hasSlo: false, maxErrorRate: 0.05 }).knee).toMatchObject({ load: 4, metric: 'output_throughput', point: 'c4' });
    // Throughput still grows steadily (no bend) but p99 TPOT takes off after concurrency 4.
    const tpot = [1, 2, 4, 8, 16].map((l) => row(l, 100 * l, { ttft_p99_ms: 80, e2e_p99_ms: 1000, tpot_p99_ms: l <= 4 ? 10 : 10 * (l - 3) }));
    const g = groupInsights(tpot, { hasSlo: false, maxErrorRate: 0.05 });
    expect(g.knee).toMatchObject({ load: 4, metric: 'tpot_p99_ms' });
    expect(g.knees?.map((k) => k.metric)).toEqual(['tpot_p99_ms']);
    expect(g.statements.join('\n')).toMatch(/The knee is defined by p99 TPOT taking off, the first curve to bend .*; no other curve bends \[point: c4\]/);
  });
  it('a flat, noisy latency curve does not bend (it must at least double)', () => {
    const noisy = [1, 2, 4, 8, 16].map((l) => row(l, 100 * l, { ttft_p99_ms: 80, e2e_p99_ms: 1000, tpot_p99_ms: [10, 10.5, 14, 10.2, 12][Math.log2(l)] }));
    expect(groupInsights(noisy, { hasSlo: false, maxErrorRate: 0.05 }).knee).toBeNull();
  });
});

describe('recommended range', () => {
  // SLO use grows with load: worst ratio 0.2, 0.4, 0.7, 0.95, 1.4 at 1, 2, 4, 8, 16.
  const slo = (ratios: number[]) =>
    plateau.map((r, i) => ({ ...r, slo_passed: ratios[i] <= 1, slo_failed: ratios[i] <= 1 ? [] : ['ttft_p99'], slo_worst_metric: 'ttft_p99', slo_worst_ratio: ratios[i] }));
  it('runs from the highest load with comfortable margin (grade A/B) to the knee, and names its points', () => {
    const g = groupInsights(slo([0.2, 0.4, 0.6, 0.95, 1.4]), { hasSlo: true, maxErrorRate: 0.05 });
    expect(g.grades?.map((x) => x.grade)).toEqual(['A', 'A', 'B', 'D', 'F']);
    expect(g.recommended_range).toEqual({ low: 4, high: 4, low_reason: expect.stringMatching(/grade B: ttft_p99 at 60%/), high_reason: 'the knee (output throughput levelling off)', interpolated: false, points: ['c4'], client_bound_points: [] });
    const text = g.statements.join('\n');
    expect(text).toMatch(/Grades from SLO margins .*: c1 A \(ttft_p99 at 20% of its limit\), c2 A .*, c8 D \(ttft_p99 at 95% of its limit\), c16 F/);
    expect(text).toMatch(/Recommended range: concurrency 4 alone — from the highest load with comfortable SLO margin/);
    const wide = groupInsights(slo([0.2, 0.6, 0.8, 0.95, 1.4]), { hasSlo: true, maxErrorRate: 0.05 });
    expect(wide.recommended_range).toMatchObject({ low: 2, high: 4, points: ['c2', 'c4'] });
    expect(wide.statements.join('\n')).toMatch(/Recommended range: concurrency 2 to concurrency 4 — .* \[points: c2, c4\]\./);
  });
  it('caps the high end at the highest load meeting the SLOs, and gives none without comfortable margin', () => {
    const capped = groupInsights(slo([0.3, 0.9, 1.2, 1.3, 1.4]), { hasSlo: true, maxErrorRate: 0.05 });
    expect(capped.recommended_range).toMatchObject({ low: 1, high: 2, high_reason: expect.stringMatching(/highest load meeting the SLOs \(the knee, concurrency 4, does not\)/) });
    const tight = groupInsights(slo([0.8, 0.9, 0.95, 1.3, 1.4]), { hasSlo: true, maxErrorRate: 0.05 });
    expect(tight.recommended_range).toBeNull();
    expect(tight.statements.join('\n')).toMatch(/No recommended range: no level up to concurrency 4 had comfortable SLO margin/);
  });
  it('without SLOs runs from 70% of the knee, saying when that level was interpolated', () => {
    const smooth = [row(1, 100), row(2, 190), row(4, 340), row(8, 480), row(16, 520), row(32, 530)];
    const g = groupInsights(smooth, { hasSlo: false, maxErrorRate: 0.05 });
    expect(g.grades).toEqual([]);
    expect(g.recommended_range).toMatchObject({ low: 5, high: 8, interpolated: true, points: ['c8', 'c4'] });
    expect(g.statements.join('\n')).toMatch(/Recommended range: concurrency 5 \(interpolated: this level was not measured\) to concurrency 8/);
    expect(groupInsights(plateau, { hasSlo: false, maxErrorRate: 0.05, incomplete: 'failed' }).recommended_range).toBeNull();
  });
});

describe('anomalies', () => {
  const kinds = (rows: SweepRow[]) => groupInsights(rows, { hasSlo: false, maxErrorRate: 0.5 }).anomalies?.map((a) => [a.kind, a.load, a.points]);
  it('throughput that drops with more load', () => {
    expect(kinds([row(1, 250), row(2, 500), row(4, 1000), row(8, 850), row(16, 840)])).toEqual([['throughput_drop', 8, ['c4', 'c8']]]);
    // A 5% dip is noise.
    expect(kinds([row(1, 250), row(2, 500), row(4, 1000), row(8, 950)])).toEqual([]);
    expect(groupInsights([row(1, 250), row(2, 500), row(4, 1000), row(8, 850)], { hasSlo: false, maxErrorRate: 0.05 }).statements.join('\n')).toMatch(
      /Anomaly \(throughput drop\): output throughput falls 15% from concurrency 4 \(1,000 tok\/s\) to concurrency 8 \(850 tok\/s\) with more load \[points: c4, c8\]\./,
    );
  });
  it('a variance spike against the slice median', () => {
    expect(kinds(plateau.map((r) => ({ ...r, tpot_cv: r.load === 4 ? 0.6 : 0.1, e2e_cv: 0.1 })))).toEqual([['variance_spike', 4, ['c4']]]);
    // Twice the median but tiny in absolute terms: not a spike.
    expect(kinds(plateau.map((r) => ({ ...r, tpot_cv: r.load === 4 ? 0.05 : 0.02, e2e_cv: 0.02 })))).toEqual([]);
  });
  it('an error burst that does not grow with load, and client-bound levels', () => {
    const burst = plateau.map((r) => (r.load === 2 ? { ...r, failed: 12, ok: 88, error_rate: 0.12 } : r.load === 16 ? { ...r, failed: 1, ok: 99, error_rate: 0.01 } : r));
    expect(kinds(burst)).toEqual([['error_burst', 2, ['c2', 'c4']]]);
    // Errors that start at the top level and grow with load are the limit, not a burst.
    expect(kinds(plateau.map((r) => (r.load >= 8 ? { ...r, failed: r.load, ok: 100 - r.load, error_rate: r.load / 100 } : r)))).toEqual([]);
    expect(kinds(plateau.map((r) => ({ ...r, client_bound: r.load === 16 })))).toEqual([['client_bound', 16, ['c16']]]);
  });
});

describe('every statement names the points it rests on', () => {
  it('each statement about a level carries [point: …] or [points: …]', () => {
    const rows = [
      ...plateau.map((r) => ({ ...r, slo_passed: r.load <= 8, slo_failed: r.load <= 8 ? [] : ['ttft_p99'], slo_worst_metric: 'ttft_p99', slo_worst_ratio: r.load / 10 })),
      row(32, 700, { status: 'done', failed: 40, ok: 60, error_rate: 0.4, slo_passed: false, slo_failed: ['error_rate'], client_bound: true }),
    ];
    const g = groupInsights(rows, { hasSlo: true, maxErrorRate: 0.05 });
    const about = g.statements.filter((s) => /concurrency \d/.test(s));
    expect(about.length).toBeGreaterThan(8);
    for (const s of about) expect(s).toMatch(/\[points?: c\d+(, c\d+)*\]/);
  });
});
