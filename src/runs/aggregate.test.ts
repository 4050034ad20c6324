// The aggregate of repeated runs: the statistics per metric, the CV flag on a constructed unstable set, the registry's metrics.
import { describe, expect, it } from 'vitest';
import { aggregateMetric, aggregateRuns, CV_LIMITS, runMetrics, type RunMetric } from './aggregate.js';
import { registerMetric } from '../metrics/registry/index.js';

const tpotMean: RunMetric = { key: 'tpot_mean', label: 'TPOT mean', unit: 'ms', better: 'lower', kind: 'mean' };
const ttftP99: RunMetric = { key: 'ttft_p99', label: 'TTFT p99', unit: 'ms', better: 'lower', kind: 'percentile' };

describe('aggregateMetric', () => {
  it('n, mean, sd (n − 1), cv, min, max and the t-interval mean ± t(0.975, n − 1)·sd/√n', () => {
    const a = aggregateMetric(tpotMean, [10, 11, 12]);
    expect(a.n).toBe(3);
    expect(a.mean).toBeCloseTo(11, 12);
    expect(a.sd).toBeCloseTo(1, 12);
    expect(a.cv).toBeCloseTo(1 / 11, 12);
    // t(0.975, 2) = 4.302653: half-width 4.302653 / √3.
    const half = 4.302653 / Math.sqrt(3);
    expect(a.ci95![0]).toBeCloseTo(11 - half, 5);
    expect(a.ci95![1]).toBeCloseTo(11 + half, 5);
    expect([a.min, a.max]).toEqual([10, 12]);
    expect(a.values).toEqual([10, 11, 12]);
  });

  it('flags a constructed unstable set whose CV exceeds its kind\'s limit, and not a stable one', () => {
    // CV of [100, 130, 70] = 30 / 100 = 30% > 5% for a mean.
    const unstable = aggregateMetric(tpotMean, [100, 130, 70]);
    expect(unstable.cv).toBeCloseTo(0.3, 12);
    expect(unstable.unreliable).toBe(true);
    expect(unstable.reason).toMatch(/CV 30\.0% exceeds 5% \(the limit for means\)/);
    // 1% spread: under both limits.
    const stable = aggregateMetric(tpotMean, [100, 101, 99]);
    expect(stable.unreliable).toBe(false);
    expect(stable.reason).toBeNull();
    // 8% CV: over a mean's 5% limit, under a percentile's 10%.
    const eight = [92, 100, 108];
    expect(aggregateMetric(tpotMean, eight).unreliable).toBe(true);
    expect(aggregateMetric(ttftP99, eight).unreliable).toBe(false);
    expect(aggregateMetric(ttftP99, eight).cv_limit).toBe(CV_LIMITS.percentile);
  });

  it('a run without a value is left out of n but kept in values; one value gives no interval and is flagged', () => {
    const a = aggregateMetric(tpotMean, [null, 5]);
    expect(a.n).toBe(1);
    expect(a.values).toEqual([null, 5]);
    expect(a.ci95).toBeNull();
    expect(a.sd).toBeNull();
    expect(a.unreliable).toBe(true);
    expect(a.reason).toMatch(/only one run/);
  });

  it('the error rate (often 0 in every run) is reported, never flagged', () => {
    const er = runMetrics().find((m) => m.key === 'error_rate')!;
    const a = aggregateMetric(er, [0, 0, 0]);
    expect(a.cv).toBeNull();
    expect(a.unreliable).toBe(false);
    expect(a.ci95).toEqual([0, 0]);
  });
});

describe('runMetrics', () => {
  it("comes from the metric registry: compare's keys plus each compared metric's mean, throughputs first, error rate last", () => {
    const keys = runMetrics().map((m) => m.key);
    expect(keys.slice(0, 3)).toEqual(['output_throughput', 'request_throughput', 'total_token_throughput']);
    expect(keys.at(-1)).toBe('error_rate');
    for (const k of ['ttft_mean', 'ttft_p50', 'ttft_p99', 'tpot_mean', 'tpot_p50', 'e2e_p99']) expect(keys).toContain(k);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('a registered metric shown in compare gets rows too', () => {
    const remove = registerMetric({
      id: 'queue_ms',
      label: 'Queue (ms)',
      unit: 'ms',
      of: () => 1,
      aggregations: ['mean', 'percentiles'],
      shown: ['summary', 'compare'],
      compare: { key: 'queue', label: 'queue', unit: 'ms', better: 'lower', stats: ['p90'], sweepSuffix: 'ms' },
    });
    try {
      const keys = runMetrics().map((m) => m.key);
      expect(keys).toContain('queue_mean');
      expect(keys).toContain('queue_p90');
      const agg = aggregateRuns([{ queue_p90: 1 }, { queue_p90: 3 }]);
      expect(agg.queue_p90.mean).toBe(2);
      expect(agg.queue_p90.n).toBe(2);
    } finally {
      remove();
    }
    expect(runMetrics().map((m) => m.key)).not.toContain('queue_p90');
  });
});
