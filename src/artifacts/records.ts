// requests.jsonl read back: streamed line by line through the one record parser, in the one order (id, then attempt).
import { EvenSample } from '../util/even-sample.js';
import { closeSync, existsSync, openSync } from 'node:fs';
import { UsageError } from '../errors.js';
import { fileLines } from '../dataset/formats/lines.js';
import { RecordLineParser } from '../metrics/jsonl.js';
import type { RequestRecord } from '../metrics/record.js';
import { ARTIFACTS, artifactPath } from './registry.js';

/** Longest requests.jsonl line read back: a record with every event time of a very long answer stays well under it. */
const MAX_RECORD_LINE_BYTES = 256 * 1024 * 1024;

/** Records the HTML reports read from one requests.jsonl for their charts at most (docs/report.md). */
export const CHART_SAMPLE_MAX = 10_000;

/** The one order of records everywhere (reports, RunResult.records, charts): by id, then attempt. */
export const byIdThenAttempt = (a: RequestRecord, b: RequestRecord): number => a.id - b.id || a.attempt - b.attempt;

/** requests.jsonl of `dir`; a missing file is a UsageError naming it (`who` prefixes the message, e.g. "report"). */
export function requestsFile(dir: string, who?: string): string {
  const file = artifactPath(dir, ARTIFACTS.requests);
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

/**
 * At most `max` records, evenly spread over the records added (util/even-sample.ts: every k-th, k doubling as it fills).
 * The lifecycle feeds it each record as it is kept (so report.html reads no record back); `sampleRecords` from a file.
 */
export class RecordSample {
  private readonly sample: EvenSample<RequestRecord>;
  constructor(
    max = CHART_SAMPLE_MAX,
    private readonly filter: (r: RequestRecord) => boolean = () => true,
  ) {
    this.sample = new EvenSample(max);
  }
  /** Records added that passed the filter (the sample's population). */
  get total(): number {
    return this.sample.total;
  }
  add(r: RequestRecord): void {
    if (this.filter(r)) this.sample.add(r);
  }
  /** The sample, sorted by id then attempt. */
  records(): RequestRecord[] {
    return [...this.sample.items()].sort(byIdThenAttempt);
  }
}

/** At most `max` records of a run (warmup included) read from requests.jsonl, as RecordSample keeps them. `total` is how many there were. */
export function sampleRecords(dir: string, max: number, filter: (r: RequestRecord) => boolean = () => true): { records: RequestRecord[]; total: number; warnings: string[] } {
  const sample = new RecordSample(max, filter);
  const warnings = eachRecord(requestsFile(dir), (r) => sample.add(r));
  return { records: sample.records(), total: sample.total, warnings };
}
