// The results directory of one run: run.json, requests.jsonl and summary.json, written and read in one place.
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { EvenSample } from '../util/even-sample.js';
import { fileLines } from '../dataset/formats/lines.js';
import { RecordLineParser } from '../metrics/jsonl.js';
import { SummaryAggregator } from '../metrics/aggregator.js';
import type { RequestRecord } from '../metrics/record.js';
import type { Summary } from '../metrics/summary-model.js';
import type { Percentiles } from '../metrics/stats.js';
import { WindowTracker } from '../telemetry/window.js';
import { withServerSection } from '../telemetry/server-section.js';
import { withGpuSection } from '../telemetry/gpu-source.js';

export const RUN_JSON = 'run.json';
export const REQUESTS_JSONL = 'requests.jsonl';
export const SUMMARY_JSON = 'summary.json';

/** Longest requests.jsonl line read back: a record with every event time of a very long answer stays well under it. */
const MAX_RECORD_LINE_BYTES = 256 * 1024 * 1024;

/** Records the HTML reports read from one requests.jsonl for their charts at most (docs/report.md). */
export const CHART_SAMPLE_MAX = 10_000;

/** The one order of records everywhere (reports, RunResult.records, charts): by id, then attempt. */
export const byIdThenAttempt = (a: RequestRecord, b: RequestRecord): number => a.id - b.id || a.attempt - b.attempt;

/** Write one JSON file of a results directory whole (temp + rename), pretty-printed with a final newline. */
export function writeJsonFile(dir: string, name: string, value: unknown): void {
  writeFileAtomic(join(dir, name), JSON.stringify(value, null, 2) + '\n');
}

/** requests.jsonl of `dir`; a missing file is a UsageError naming it (`who` prefixes the message, e.g. "report"). */
export function requestsFile(dir: string, who?: string): string {
  const file = join(dir, REQUESTS_JSONL);
  if (!existsSync(file)) throw new UsageError([`${who ? `${who}: ` : ''}${file} not found (is ${dir} a tokenflood results directory?)`]);
  return file;
}

/** Stream every record of requests.jsonl, in file order, to `onRecord`, one line in memory at a time; returns the warnings. */
export function eachRecord(file: string, onRecord: (r: RequestRecord) => void): string[] {
  const parser = new RecordLineParser(file, onRecord);
  const fd = openSync(file, 'r');
  try {
    for (const { n, text } of fileLines(fd, file, MAX_RECORD_LINE_BYTES)) parser.line(n, text);
  } finally {
    closeSync(fd);
  }
  return parser.warnings();
}

/** The records of requests.jsonl as an iterable, in file order, streamed (warnings are dropped: eachRecord reports them). */
export function* recordsOf(file: string): Generator<RequestRecord> {
  const buf: RequestRecord[] = [];
  const parser = new RecordLineParser(file, (r) => buf.push(r));
  const fd = openSync(file, 'r');
  try {
    for (const { n, text } of fileLines(fd, file, MAX_RECORD_LINE_BYTES)) {
      parser.line(n, text);
      while (buf.length) yield buf.shift()!;
    }
  } finally {
    closeSync(fd);
  }
}

/** Every record of a run directory in memory, sorted by id then attempt (memory grows with the run: for library callers). */
export function readRecordsSorted(dir: string): { records: RequestRecord[]; warnings: string[] } {
  const records: RequestRecord[] = [];
  const warnings = eachRecord(requestsFile(dir), (r) => records.push(r));
  return { records: records.sort(byIdThenAttempt), warnings };
}

/** run.json as an object; a missing or unreadable file gives {} and a warning. */
export function readRunMeta(dir: string, warnings: string[]): Record<string, unknown> {
  const runFile = join(dir, RUN_JSON);
  if (!existsSync(runFile)) {
    warnings.push(`${runFile} not found: run metadata missing from the summary`);
    return {};
  }
  try {
    const parsed = JSON.parse(readFileSync(runFile, 'utf8')) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    warnings.push(`${runFile} is not a JSON object: run metadata missing from the summary`);
  } catch (e) {
    warnings.push(`${runFile} is unreadable (${(e as Error).message}): run metadata missing from the summary`);
  }
  return {};
}

/** summary.json when present and of schema 1, else undefined (unreadable: also a warning). */
export function readSummaryJson(dir: string, warnings: string[]): Summary | undefined {
  const p = join(dir, SUMMARY_JSON);
  if (!existsSync(p)) return undefined;
  try {
    const text = readFileSync(p, 'utf8');
    const s = text.trim() ? (JSON.parse(text) as Summary) : undefined;
    return s && typeof s === 'object' && s.schema_version === 1 ? s : undefined;
  } catch {
    warnings.push(`${p}: unreadable, ignored`);
    return undefined;
  }
}

/** The concurrency a run was configured with (the summary's concurrency_efficiency divides by it). */
export const runConcurrency = (run: Record<string, unknown>): number | undefined => (run.config as { concurrency?: number } | undefined)?.concurrency;

/**
 * Rebuild the summary from requests.jsonl (streamed through the same aggregator the run used) and run.json,
 * so `report` and the run's own summary.json are equal by construction.
 */
export function replaySummary(dir: string, who?: string, percentiles?: Percentiles): { summary: Summary; warnings: string[] } {
  const file = requestsFile(dir, who);
  const agg = new SummaryAggregator();
  const windows = new WindowTracker();
  const warnings = eachRecord(file, (r) => (agg.add(r), windows.add(r)));
  const run = readRunMeta(dir, warnings);
  // The server section is re-derived from server_metrics.jsonl, as the run derived it.
  // The percentiles are run.json's (--percentiles), unless `report --percentiles` asks for others.
  return { summary: withGpuSection(dir, withServerSection(dir, agg.summary(run, runConcurrency(run), percentiles), windows)), warnings };
}

/** The run's summary: summary.json when readable, else replayed from requests.jsonl. */
export function readRunSummary(dir: string): { summary: Summary; warnings: string[] } {
  const warnings: string[] = [];
  const s = readSummaryJson(dir, warnings);
  if (s) return { summary: s, warnings };
  const r = replaySummary(dir);
  return { summary: r.summary, warnings: [...warnings, ...r.warnings] };
}

/**
 * At most `max` records of a run (warmup included), evenly spread over requests.jsonl and sorted by id then attempt,
 * streamed so memory holds at most 2·max: every k-th record is kept, and k doubles (dropping every other kept record)
 * whenever the sample fills. Below `max` records, all of them. `total` is how many there were.
 */
export function sampleRecords(dir: string, max: number, filter: (r: RequestRecord) => boolean = () => true): { records: RequestRecord[]; total: number; warnings: string[] } {
  const sample = new EvenSample<RequestRecord>(max);
  const warnings = eachRecord(requestsFile(dir), (r) => filter(r) && sample.add(r));
  return { records: sample.items().sort(byIdThenAttempt), total: sample.total, warnings };
}
