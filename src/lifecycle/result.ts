// What a run returns (summary, results directory, files written), the write failure it may end with, and its hooks.
import { WriteError } from '../errors.js';
import type { LiveAggregator } from '../metrics/live.js';
import type { RequestRecord } from '../metrics/record.js';
import type { Summary } from '../metrics/summary.js';
import type { RunArtifacts } from '../artifacts/run-artifacts.js';

/** The older way to listen to a run (kept for callers and tests); a Reporter (events.ts) sees the same moments. */
export interface RunHooks {
  /** Called once the target is known, before the first request. */
  onStart?(info: { baseUrl: string; embedded: boolean; model: string; outDir: string; total: number | undefined; workload: Record<string, unknown> }): void;
  onRecord?(r: RequestRecord): void;
  /** The live aggregator, for progress displays. */
  onAggregator?(agg: LiveAggregator): void;
}

export interface RunResult {
  summary: Summary;
  /**
   * Every record written, sorted by id then attempt: read back from requests.jsonl on first access (the run itself
   * keeps none in memory, and the summary does not depend on them), so memory grows with the run only for callers that read it.
   */
  readonly records: RequestRecord[];
  outDir: string;
  /** Names of the files in outDir that were written in full (only these may be announced). */
  written: string[];
  /** The run's results as it holds them (RunEndEvent.artifacts): the chart sample, the --slo verdict, the records read once. */
  artifacts: RunArtifacts;
}

/** A results file could not be written: sending stopped; `result` holds what was measured and saved, if anything. */
export class RunWriteError extends WriteError {
  constructor(
    first: WriteError,
    readonly result: RunResult,
    readonly notWritten: string[],
  ) {
    super(first.file, first.reason, [first.detail, notWritten.length > 1 ? `also not written: ${notWritten.slice(1).join(', ')}` : ''].filter(Boolean).join('; '));
    this.name = 'RunWriteError';
  }
}

/** A RunResult whose `records` are its artifacts' (read back from outDir/requests.jsonl on first access, then kept). */
export function lazyRecords<T extends Omit<RunResult, 'records'>>(r: T): T & RunResult {
  return Object.defineProperty(r, 'records', { get: () => r.artifacts.records(), enumerable: true }) as T & RunResult;
}
