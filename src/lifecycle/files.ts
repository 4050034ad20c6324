// The run's own results files as reporters: requests.jsonl as records arrive, run.json, summary.json, stats.csv and report.html at the end.
import { WriteError } from '../errors.js';
import { RecordWriter } from '../metrics/jsonl.js';
import type { RequestRecord } from '../metrics/record.js';
import { ARTIFACTS, artifactPath, jsonText, writeArtifact, writeJsonArtifact } from '../artifacts/registry.js';
import { writeRunReport } from '../report/html/run-report.js';
import { statsCsv } from '../report/stats-csv.js';
import type { Reporter, ResultFiles } from '../report/events.js';

/** Files written whole (temp + rename) or not at all, with what was written and what failed. */
export class FileLedger implements ResultFiles {
  readonly written: string[] = [];
  readonly failures: WriteError[] = [];
  constructor(readonly outDir: string) {}
  save(name: string, data: () => string): void {
    try {
      writeArtifact(this.outDir, { file: name }, data());
      this.written.push(name);
    } catch (e) {
      if (!(e instanceof WriteError)) throw e;
      this.failures.push(e);
    }
  }
  wrote(name: string): void {
    this.written.push(name);
  }
  failed(e: WriteError): void {
    this.failures.push(e);
  }
}

/**
 * requests.jsonl: each record appended as it finishes (the writer buffers; see metrics/jsonl.ts). `onFailure` is
 * told once when a write fails (disk full): nothing more can be recorded, so the run stops sending.
 */
export class RequestsJsonlReporter implements Reporter {
  readonly name = ARTIFACTS.requests.file;
  private readonly writer: RecordWriter;
  private told = false;
  constructor(
    outDir: string,
    private readonly onFailure: () => void,
  ) {
    this.writer = new RecordWriter(artifactPath(outDir, ARTIFACTS.requests));
  }
  get failure(): WriteError | undefined {
    return this.writer.failure;
  }
  /** False when the record could not be kept (a write has failed). */
  record(r: RequestRecord): boolean {
    if (this.writer.write(r)) return true;
    if (!this.told) {
      this.told = true;
      this.onFailure();
    }
    return false;
  }
  /** Flush and close; reports a failure the last flush found. */
  close(): void {
    this.writer.close();
    if (this.writer.failure && !this.told) {
      this.told = true;
      this.onFailure();
    }
  }
  runEnd(e: { files: ResultFiles }): void {
    if (this.writer.failure) e.files.failed(this.writer.failure);
    else e.files.wrote(ARTIFACTS.requests.file);
  }
}

/** run.json: written when the run starts (so an interrupted run still says what it was) and again with how it ended. */
export const runJsonReporter: Reporter = {
  name: ARTIFACTS.run.file,
  runStart: (e) => writeJsonArtifact(e.outDir, ARTIFACTS.run, e.meta),
  runEnd: (e) => e.files.save(ARTIFACTS.run.file, () => jsonText(e.meta)),
};

export const summaryJsonReporter: Reporter = {
  name: ARTIFACTS.summary.file,
  runEnd: (e) => e.files.save(ARTIFACTS.summary.file, () => jsonText(e.summary)),
};

/** stats.csv: the run and each class as one row each (docs/output-format.md#statscsv), written whole like summary.json. */
export const statsCsvReporter: Reporter = {
  name: ARTIFACTS.stats.file,
  runEnd: (e) => e.files.save(ARTIFACTS.stats.file, () => statsCsv(e.summary)),
};

export const reportHtmlReporter: Reporter = {
  name: ARTIFACTS.report.file,
  runEnd: (e) => {
    try {
      // Drawn from what the run holds (summary, run.json, the chart sample, the SLO verdict): no record is read back.
      writeRunReport(e.outDir, {}, e.artifacts);
      e.files.wrote(ARTIFACTS.report.file);
    } catch (err) {
      if (err instanceof WriteError) e.files.failed(err);
      // The measurements are safe on disk; a report that cannot be rendered must not turn the run into an error.
      else process.stderr.write(`tokenflood: warning: could not write report.html: ${(err as Error).message}\n`);
    }
  },
};
