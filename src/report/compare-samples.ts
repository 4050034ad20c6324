// compare's per-request samples of one run: the values each summary distribution was computed from, read back from requests.jsonl.
import { SummaryAggregator } from '../metrics/aggregator.js';
import { eachRecord, requestsFile } from '../artifacts/records.js';
import { ARTIFACTS, hasArtifact } from '../artifacts/registry.js';

/** One run's per-request values by summary id (`ttft_ms`), and its error indicator sample. */
export interface RunSamples {
  /** Each metric's values over the records its summary distribution covers (measured, ok, headline phase). */
  values: Map<string, Float64Array>;
  /** One value per measured, not cancelled request: 1 failed, 0 ok (its mean is the summary's error_rate). */
  errors: Float64Array;
}

const cache = new Map<string, RunSamples | null>();

/**
 * The samples of the run in `dir`, or null without requests.jsonl. The records go through the summary's own
 * aggregator (same warmup, phase and status selection), kept exact: ITL never moves to its histogram here.
 */
export function runSamples(dir: string): RunSamples | null {
  if (cache.has(dir)) return cache.get(dir)!;
  let out: RunSamples | null = null;
  if (hasArtifact(dir, ARTIFACTS.requests)) {
    const agg = new SummaryAggregator(Infinity);
    eachRecord(requestsFile(dir), (r) => agg.add(r));
    const req = agg.metrics().requests;
    const n = req.total - req.cancelled;
    const errors = new Float64Array(n);
    errors.fill(1, 0, req.failed);
    out = { values: agg.metricValues(), errors };
  }
  cache.set(dir, out);
  return out;
}
