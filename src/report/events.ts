// What the run lifecycle emits (runStart, record, snapshot, runEnd), what a sweep adds around its runs (sweepStart,
// pointStart, pointEnd, sweepEnd), and what a reporter listening to them implements.
import type { RequestRecord } from '../metrics/record.js';
import type { LiveSnapshot } from '../metrics/live.js';
import type { Summary } from '../metrics/summary.js';
import type { WriteError } from '../errors.js';
import type { EvalSummary } from '../eval/summary.js';
import type { LoadControl } from '../scheduler/load-control.js';
import type { TimelineSample } from '../telemetry/source.js';
import type { SweepDoc, SweepRow } from './sweep-model.js';
import type { RunArtifacts } from '../artifacts/run-artifacts.js';

export interface RunStartEvent {
  /** The target as shown (redacted); for a simulation, the engine it models. */
  baseUrl: string;
  embedded: boolean;
  /** The model id as shown and stored (redacted). */
  model: string;
  outDir: string;
  /** Measured requests the run will send, when known in advance. */
  total: number | undefined;
  workload: Record<string, unknown>;
  /** run.json as it stands at the start (reporters must not change it). */
  meta: Readonly<Record<string, unknown>>;
  /** True on the virtual driver (simulate): times are virtual ms, no wall clock passes between events. */
  virtual: boolean;
  /** Changes the load live (LifecycleOptions.liveLoad and an executor that allows it: constant-vus, constant-arrival-rate). */
  control?: LoadControl;
}

/** Counts, windowed rates and percentiles and the requests in flight, at least once a second of run time. */
export type SnapshotEvent = LiveSnapshot;

/** Results files written whole (temp file + rename) or not at all; what failed is collected, not thrown. */
export interface ResultFiles {
  readonly outDir: string;
  /** Names of the files written in full so far (reporters run in order, so a later one sees the earlier ones'). */
  readonly written: readonly string[];
  /** Write `name` in outDir from `data()`; a WriteError is collected, anything else is thrown. */
  save(name: string, data: () => string): void;
  /** Mark a file a reporter wrote by its own means as written in full. */
  wrote(name: string): void;
  failed(e: WriteError): void;
}

export interface RunEndEvent {
  /** run.json as finally written: how the run ended, client health, final workload counts. */
  meta: Readonly<Record<string, unknown>>;
  /** The summary, built as records arrived (or rebuilt from requests.jsonl if a record could not be written). */
  summary: Summary;
  outDir: string;
  files: ResultFiles;
  /** What the run holds of its files (summary, run.json, a chart sample, the --slo verdict; every record read once, on demand): read this, not the files. */
  artifacts: RunArtifacts;
}

export interface SweepStartEvent {
  /** The target as shown (redacted); for a simulated sweep, the engine it models. */
  baseUrl: string;
  embedded: boolean;
  /** True for `sweep --simulate`: every point runs on the virtual driver. */
  simulated: boolean;
  outDir: string;
  /** Points of the grid; undefined for an --auto search (it chooses them as it goes). */
  points: number | undefined;
}

export interface PointStartEvent {
  /** The point's directory name under points/ (unique in the sweep), e.g. "c8-in256-out256". */
  name: string;
  /** 0-based position among the points run so far. */
  index: number;
  /** Points of the grid; undefined for an --auto search. */
  total: number | undefined;
  mode: 'concurrency' | 'rate';
  load: number;
  inputTokens: number;
  outputTokens: number;
}

export interface PointEndEvent {
  /** The point's row of sweep.json/sweep.csv (status `failed` when it could not run). */
  row: SweepRow;
  /** The point's results directory. */
  outDir: string;
  /** The point's summary, as its lifecycle built it; undefined when it could not run. */
  summary?: Summary;
  /** Files of the point's directory written in full. */
  written?: readonly string[];
}

export interface SweepEndEvent {
  /** sweep.json as written. */
  doc: SweepDoc;
  outDir: string;
  /** The sweep directory's own files (sweep.json, sweep.csv, report.html) as for a run. */
  files: ResultFiles;
  /** --eval-under-load: the accuracy per level against the idle baseline, as eval.json holds it (written before report.html). */
  eval?: EvalSummary;
}

/**
 * An output of a run. Every method is optional. `record` runs on the measuring thread for every finished request,
 * so it must be cheap (buffer, count); file writing belongs in `runEnd`. Reporters are called in the order given,
 * after the results files of the run itself (requests.jsonl, run.json, summary.json, report.html).
 */
export interface Reporter {
  readonly name: string;
  /** How often this reporter wants snapshots (ms of run time); the lifecycle uses the smallest asked for, default 1000. */
  readonly snapshotEveryMs?: number;
  /** The target is open (the embedded server started), before the validation ladder and the run's other start-up. */
  targetOpen?(e: Pick<RunStartEvent, 'baseUrl' | 'embedded'>): void;
  runStart?(e: RunStartEvent): void;
  record?(r: RequestRecord): void;
  snapshot?(s: SnapshotEvent): void;
  /** Each timeline sample (server /metrics, GPU) as it is taken, real driver only; cheap, like `record`. */
  sample?(s: TimelineSample): void;
  runEnd?(e: RunEndEvent): void | Promise<void>;
  /** A sweep is a sequence of runs: before its first point. A sweep's reporters also get each point's run events. */
  sweepStart?(e: SweepStartEvent): void;
  /** Before a point's run starts (before its runStart). */
  pointStart?(e: PointStartEvent): void;
  /** After a point's run ended (after its runEnd), or when it could not run. */
  pointEnd?(e: PointEndEvent): void;
  /** Once, after the last point, with sweep.json as written; after the sweep's own files. */
  sweepEnd?(e: SweepEndEvent): void | Promise<void>;
}
