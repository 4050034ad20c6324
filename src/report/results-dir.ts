// A results directory's summary replayed from its files (requests.jsonl, run.json, the telemetry timelines); the files themselves are named, written and read in src/artifacts/.
import { SummaryAggregator } from '../metrics/aggregator.js';
import { steadySummary, wantsSteadyState } from '../metrics/steady-state.js';
import type { Summary } from '../metrics/summary-model.js';
import type { Percentiles } from '../metrics/stats.js';
import { WindowTracker } from '../telemetry/window.js';
import { withServerSection } from '../telemetry/server-section.js';
import { withGpuSection } from '../telemetry/gpu-source.js';
import { ARTIFACTS } from '../artifacts/registry.js';
import { eachRecord, requestsFile } from '../artifacts/records.js';
import { readRunMeta, readSummaryJson } from '../artifacts/run-files.js';

// The readers and writers live in src/artifacts/; re-exported for the callers that import them from here.
export { byIdThenAttempt, CHART_SAMPLE_MAX, eachRecord, readRecordsSorted, recordsOf, requestsFile, sampleRecords } from '../artifacts/records.js';
export { readRunMeta, readSummaryJson, writeJsonFile } from '../artifacts/run-files.js';

/** The registry's names (src/artifacts/registry.ts), under the names older callers use. */
export const RUN_JSON = ARTIFACTS.run.file;
export const REQUESTS_JSONL = ARTIFACTS.requests.file;
export const SUMMARY_JSON = ARTIFACTS.summary.file;

/** The concurrency a run was configured with (the summary's concurrency_efficiency divides by it). */
export const runConcurrency = (run: Record<string, unknown>): number | undefined => (run.config as { concurrency?: number } | undefined)?.concurrency;

/**
 * Rebuild the summary from requests.jsonl (streamed through the same aggregator the run used) and run.json,
 * so `report` and the run's own summary.json are equal by construction.
 */
export function replaySummary(dir: string, who?: string, percentiles?: Percentiles): { summary: Summary; warnings: string[] } {
  const file = requestsFile(dir, who);
  const metaWarnings: string[] = [];
  const run = readRunMeta(dir, metaWarnings);
  const agg = SummaryAggregator.forConfig(run.config);
  const windows = new WindowTracker();
  const warnings = [...eachRecord(file, (r) => (agg.add(r), windows.add(r))), ...metaWarnings];
  // --warmup auto: the same rule, and a second pass with the transient marked warmup, as the run did.
  const base = wantsSteadyState(run.config) ? steadySummary(agg, (each) => eachRecord(file, each), run, runConcurrency(run), percentiles) : agg.summary(run, runConcurrency(run), percentiles);
  // The server section is re-derived from server_metrics.jsonl, as the run derived it.
  // The percentiles are run.json's (--percentiles), unless `report --percentiles` asks for others.
  return { summary: withGpuSection(dir, withServerSection(dir, base, windows)), warnings };
}

/** The run's summary: summary.json when readable, else replayed from requests.jsonl. */
export function readRunSummary(dir: string): { summary: Summary; warnings: string[] } {
  const warnings: string[] = [];
  const s = readSummaryJson(dir, warnings);
  if (s) return { summary: s, warnings };
  const r = replaySummary(dir);
  return { summary: r.summary, warnings: [...warnings, ...r.warnings] };
}
