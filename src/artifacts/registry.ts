// The artifact registry: every file a results directory holds, with its schema version, writer and reader; the one place that names them.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../util/atomic-write.js';
import { LineAppender, type AppenderOptions } from '../util/line-appender.js';

export type ArtifactFormat = 'json' | 'jsonl' | 'csv' | 'html' | 'txt';

/** One kind of file in a results directory (docs/architecture.md#the-aggregator-and-the-results-directory, docs/output-format.md). */
export interface Artifact {
  /** The file's name inside its directory. */
  readonly file: string;
  readonly format: ArtifactFormat;
  /** The `schema_version` the file carries (a reader refuses another), when it has one. */
  readonly schemaVersion?: number;
  /** Which directory holds it: a run's (a sweep point's too), a sweep's, a repeated run's (--runs), or wherever `compare` is pointed. */
  readonly dir: 'run' | 'sweep' | 'runs' | 'compare';
  /** Who writes it, and with what. */
  readonly writer: string;
  /** Who reads it back, and with what. */
  readonly reader: string;
}

/**
 * Every file of a results directory. Code names a file only through this table (test/results-files.test.ts fails on
 * a file name literal anywhere else in src/); JSONL files are appended with `appendArtifact` (the one appender),
 * JSON files written whole with `writeJsonArtifact` (temp + rename).
 */
export const ARTIFACTS = {
  run: { file: 'run.json', format: 'json', dir: 'run', writer: 'lifecycle/files.ts runJsonReporter (at the start and the end); merge', reader: 'artifacts/run-files.ts readRunMeta' },
  requests: { file: 'requests.jsonl', format: 'jsonl', dir: 'run', writer: 'lifecycle/files.ts RequestsJsonlReporter (metrics/jsonl.ts RecordWriter, appended); merge', reader: 'artifacts/records.ts eachRecord, recordsOf, sampleRecords (metrics/jsonl.ts RecordLineParser)' },
  summary: { file: 'summary.json', format: 'json', schemaVersion: 1, dir: 'run', writer: 'lifecycle/files.ts summaryJsonReporter; report (rewrites); merge', reader: 'artifacts/run-files.ts readSummaryJson (schema 1), else replayed (report/results-dir.ts replaySummary)' },
  stats: { file: 'stats.csv', format: 'csv', dir: 'run', writer: 'lifecycle/files.ts statsCsvReporter (report/stats-csv.ts); report (rewrites)', reader: 'none (for spreadsheets)' },
  report: { file: 'report.html', format: 'html', dir: 'run', writer: 'lifecycle/files.ts reportHtmlReporter (report/html/run-report.ts); merge, eval under load; a sweep writes its own', reader: 'none (for browsers)' },
  serverMetrics: { file: 'server_metrics.jsonl', format: 'jsonl', dir: 'run', writer: 'telemetry/server-source.ts (telemetry/sample-writer.ts SampleWriter, appended)', reader: 'telemetry/sample-writer.ts forEachServerSample, readServerSamples' },
  gpuMetrics: { file: 'gpu_metrics.jsonl', format: 'jsonl', dir: 'run', writer: 'telemetry/gpu-source.ts (appended); drivers/virtual-gpu.ts (sweep --simulate, the engine model\'s GPUs)', reader: 'telemetry/gpu-source.ts forEachGpuLine, readGpuLines' },
  vllmResult: { file: 'vllm-result.json', format: 'json', dir: 'run', writer: 'report/compat/vllm-result.ts vllmResultReporter (--result-format vllm)', reader: 'report/compat/vllm-read.ts (compare)' },
  eval: { file: 'eval.json', format: 'json', dir: 'run', writer: 'eval-run/files.ts saveEvalFiles, saveUnderLoadFiles (through the run\'s ledger: cli/eval-under-load.ts; the sweep\'s: sweep/sweep.ts)', reader: 'report/html/eval-section.ts readEvalData; eval/compare.ts' },
  evalAnswers: { file: 'eval.jsonl', format: 'jsonl', dir: 'run', writer: 'eval-run/files.ts saveEvalFiles, saveUnderLoadFiles (written whole, sorted by request id)', reader: 'report/html/eval-section.ts readEvalData; eval/compare.ts' },
  sweep: { file: 'sweep.json', format: 'json', schemaVersion: 1, dir: 'sweep', writer: 'sweep/files.ts sweepJsonReporter', reader: 'report/html/sweep-report.ts readSweepDoc; cli/report.ts readSweepJson; report/compare.ts' },
  sweepCsv: { file: 'sweep.csv', format: 'csv', dir: 'sweep', writer: 'sweep/files.ts sweepCsvReporter (sweep/row.ts sweepCsv)', reader: 'none (for spreadsheets)' },
  runs: { file: 'runs.json', format: 'json', schemaVersion: 1, dir: 'runs', writer: 'runs/files.ts writeRunsFiles (run --runs N; each sweep point with sweep --runs N)', reader: 'runs/files.ts readRunsDoc' },
  runsText: { file: 'runs.txt', format: 'txt', dir: 'runs', writer: 'runs/files.ts writeRunsFiles (the aggregate table as the terminal shows it)', reader: 'none (for people)' },
  compare: { file: 'compare.html', format: 'html', dir: 'compare', writer: 'cli/compare.ts (report/html/compare-report.ts), unless --html names another file', reader: 'none (for browsers)' },
} as const satisfies Record<string, Artifact>;

export type ArtifactId = keyof typeof ARTIFACTS;

/** The files of a run whose presence means "this directory holds a run" (an earlier run is not overwritten by accident). */
export const RUN_MARKERS: readonly Artifact[] = [ARTIFACTS.requests, ARTIFACTS.summary, ARTIFACTS.run];

/** The sweep points' directories under a sweep directory: `points/<name>/`. */
export const POINTS_DIR = 'points';

/** The runs of a repeated run (--runs N) under its directory: `run-1/`, `run-2/`, … each a complete run directory. */
export const RUN_DIR_PREFIX = 'run-';
export const repeatedRunDir = (k: number): string => `${RUN_DIR_PREFIX}${k}`;

/** --eval-under-load's idle baseline: a run directory of its own inside the run's (or the sweep's) directory. */
export const EVAL_BASELINE_DIR = 'eval-baseline';

/** Anything naming a file of the registry (an Artifact, or `{ file }` from ResultFiles.save). */
type Named = Pick<Artifact, 'file'>;

export const artifactPath = (dir: string, a: Named): string => join(dir, a.file);

export const hasArtifact = (dir: string, a: Named): boolean => existsSync(artifactPath(dir, a));

/** Write a whole artifact (temp + rename): never a half-written file under its name. Returns the path. */
export function writeArtifact(dir: string, a: Named, text: string): string {
  const path = artifactPath(dir, a);
  writeFileAtomic(path, text);
  return path;
}

/** The one JSON layout of every JSON artifact: pretty-printed with two spaces and a final newline. */
export const jsonText = (value: unknown): string => JSON.stringify(value, null, 2) + '\n';

export const writeJsonArtifact = (dir: string, a: Named, value: unknown): string => writeArtifact(dir, a, jsonText(value));

/** The artifact's text; undefined when absent. */
export function readArtifactText(dir: string, a: Named): string | undefined {
  const path = artifactPath(dir, a);
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}

/**
 * The one JSONL appender for an artifact (util/line-appender.ts: batches written off the measuring thread, a failed
 * write cut back to the last complete line, everything accepted written at close and at exit). The file starts empty.
 */
export function appendArtifact(dir: string, a: Artifact & { format: 'jsonl' }, opts: Omit<AppenderOptions, 'truncate'> = {}): LineAppender {
  return new LineAppender(artifactPath(dir, a), { ...opts, truncate: true });
}
