// Summary: the whole run's metrics computed from request records alone (the same code serves `report`).
import type { RequestRecord } from './record.js';
import { SummaryAggregator } from './aggregator.js';
import type { MetricsBlock, Summary } from './summary-model.js';

export { DISTRIBUTION_METRICS, type ErrorCount, type MetricsBlock, type Summary } from './summary-model.js';

/** The metrics block over the measured (non-warmup) records: the aggregator fed with all of them (formulas in aggregator.ts). */
export function computeMetrics(all: readonly RequestRecord[], concurrency?: number): MetricsBlock {
  const agg = new SummaryAggregator();
  for (const r of all) agg.add(r);
  return agg.metrics(concurrency);
}

/** The summary of records already in memory; a run or `report` feeds the aggregator record by record instead. */
export function buildSummary(records: readonly RequestRecord[], run: Record<string, unknown>, concurrency?: number): Summary {
  const agg = SummaryAggregator.forConfig(run.config);
  for (const r of records) agg.add(r);
  return agg.summary(run, concurrency);
}
