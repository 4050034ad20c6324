// What a finished run holds of its results directory, handed to reporters (RunEndEvent.artifacts) and callers (RunResult.artifacts): records read from disk at most once.
import type { RequestRecord } from '../metrics/record.js';
import type { Summary } from '../metrics/summary-model.js';
import type { SloResult } from '../metrics/slo.js';
import { jsonText } from './registry.js';
import { readRecordsSorted } from './records.js';

/**
 * A run's results as the run holds them, so nothing after the run reads its files back to learn what it already
 * knew: report.html, the --slo verdict, a sweep's row and library callers read this, not requests.jsonl.
 */
export interface RunArtifacts {
  readonly outDir: string;
  /** run.json as written (a JSON round trip of the run's metadata: what a reader of the file would see). */
  readonly meta: Record<string, unknown>;
  /** summary.json as written (a JSON round trip, as above). */
  readonly summary: Summary;
  /** At most CHART_SAMPLE_MAX records (warmup included), sampled as they were kept, sorted by id then attempt; `total` kept in all. */
  readonly chartSample: { readonly records: RequestRecord[]; readonly total: number };
  /** The --slo verdict, counted as records were kept; undefined without --slo. */
  readonly slo?: { readonly text: string; readonly result: SloResult };
  /**
   * The timelines' chart samples (server_metrics.jsonl samples, gpu_metrics.jsonl lines; an even subset of at most
   * twice TIMELINE_CHART_SAMPLES each), taken in the one pass that derived the summary's server and gpu sections.
   */
  readonly timelines?: { readonly server: readonly object[]; readonly gpu: readonly object[] };
  /**
   * Every record, sorted by id then attempt: requests.jsonl is read on the first call only, and the same array is
   * returned after (memory then holds every record, for the caller that asked).
   */
  records(): RequestRecord[];
}

export interface RunArtifactsInput {
  outDir: string;
  meta: Readonly<Record<string, unknown>>;
  summary: Summary;
  chartSample: { records: RequestRecord[]; total: number };
  slo?: { text: string; result: SloResult };
  timelines?: { server: object[]; gpu: object[] };
}

/** How many timeline samples a report's charts draw (an even subset: at most twice this many). */
export const TIMELINE_CHART_SAMPLES = 2000;

export function runArtifacts(o: RunArtifactsInput): RunArtifacts {
  let records: RequestRecord[] | undefined;
  return {
    outDir: o.outDir,
    meta: JSON.parse(jsonText(o.meta)) as Record<string, unknown>,
    summary: JSON.parse(jsonText(o.summary)) as Summary,
    chartSample: o.chartSample,
    ...(o.slo ? { slo: o.slo } : {}),
    ...(o.timelines ? { timelines: o.timelines } : {}),
    records: () => (records ??= readRecordsSorted(o.outDir).records),
  };
}
