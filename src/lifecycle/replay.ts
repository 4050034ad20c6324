// A run's end replayed over records already on disk (`tokenflood merge`): the lifecycle's own file reporters, in its order.
import type { Summary } from '../metrics/summary.js';
import type { Reporter } from '../report/events.js';
import { FileLedger } from './files.js';
import { CHART_SAMPLE_MAX, sampleRecords } from '../artifacts/records.js';
import { runArtifacts } from '../artifacts/run-artifacts.js';

/**
 * Call each reporter's runEnd as the lifecycle does after a run, with `meta` as run.json and `summary` as built from
 * the records; returns the ledger of what was written. A file that could not be written is thrown, naming it.
 */
export async function replayRunEnd(e: { meta: Record<string, unknown>; summary: Summary; outDir: string }, reporters: readonly Reporter[]): Promise<FileLedger> {
  const files = new FileLedger(e.outDir);
  // The chart sample as a run keeps it, here read from the records on disk (a replay has no other source).
  const sample = sampleRecords(e.outDir, CHART_SAMPLE_MAX);
  const artifacts = runArtifacts({ ...e, chartSample: { records: sample.records, total: sample.total } });
  for (const r of reporters) await r.runEnd?.({ ...e, files, artifacts });
  if (files.failures.length) throw files.failures[0];
  return files;
}
