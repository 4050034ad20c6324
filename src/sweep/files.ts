// The sweep directory's own files as reporters on the sweep's events: sweep.json, sweep.csv and report.html.
import type { Reporter } from '../report/events.js';
import type { BoxStats } from '../report/html/sweep-charts.js';
import { writeSweepReport } from '../report/html/sweep-report.js';
import { WriteError } from '../errors.js';
import { sweepCsv } from './row.js';

export const sweepJsonReporter: Reporter = {
  name: 'sweep.json',
  sweepEnd: (e) => e.files.save('sweep.json', () => JSON.stringify(e.doc, null, 2) + '\n'),
};

export const sweepCsvReporter: Reporter = {
  name: 'sweep.csv',
  sweepEnd: (e) => e.files.save('sweep.csv', () => sweepCsv(e.doc.points)),
};

/** report.html of the sweep; `boxes` holds the levels' boxes taken as their records arrived (the rest are read from disk). */
export function sweepReportHtmlReporter(boxes: ReadonlyMap<string, BoxStats>): Reporter {
  return {
    name: 'report.html',
    sweepEnd: (e) => {
      try {
        writeSweepReport(e.outDir, boxes);
        e.files.wrote('report.html');
      } catch (err) {
        if (!(err instanceof WriteError)) throw err;
        e.files.failed(err);
      }
    },
  };
}
