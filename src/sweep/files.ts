// The sweep directory's own files as reporters on the sweep's events: sweep.json, sweep.csv and report.html.
import type { Reporter } from '../report/events.js';
import type { BoxStats } from '../report/html/sweep-charts.js';
import { writeSweepReport } from '../report/html/sweep-report.js';
import { WriteError } from '../errors.js';
import { sweepCsv } from './row.js';
import { ARTIFACTS, jsonText } from '../artifacts/registry.js';

export const sweepJsonReporter: Reporter = {
  name: ARTIFACTS.sweep.file,
  sweepEnd: (e) => e.files.save(ARTIFACTS.sweep.file, () => jsonText(e.doc)),
};

export const sweepCsvReporter: Reporter = {
  name: ARTIFACTS.sweepCsv.file,
  sweepEnd: (e) => e.files.save(ARTIFACTS.sweepCsv.file, () => sweepCsv(e.doc.points)),
};

/** report.html of the sweep; `boxes` holds the levels' boxes taken as their records arrived (the rest are read from disk). */
export function sweepReportHtmlReporter(boxes: ReadonlyMap<string, BoxStats>): Reporter {
  return {
    name: ARTIFACTS.report.file,
    sweepEnd: (e) => {
      try {
        writeSweepReport(e.outDir, boxes, e.doc);
        e.files.wrote(ARTIFACTS.report.file);
      } catch (err) {
        if (!(err instanceof WriteError)) throw err;
        e.files.failed(err);
      }
    },
  };
}
