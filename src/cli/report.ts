// `tokenflood report DIR`: recompute summary.json from requests.jsonl alone and print the same table.
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { UsageError } from '../errors.js';
import type { Summary } from '../metrics/summary.js';
import { replaySummary, writeJsonFile } from '../report/results-dir.js';
import { ARTIFACTS, artifactPath, hasArtifact, writeArtifact } from '../artifacts/registry.js';
import { renderSummary } from '../report/terminal.js';
import type { Out } from './io.js';
import { stripControls } from '../util/terminal-text.js';
import { writeRunReport } from '../report/html/run-report.js';
import { writeSweepReport } from '../report/html/sweep-report.js';
import { renderSweep } from '../sweep/terminal.js';
import { parsePercentiles, type Percentiles } from '../metrics/stats.js';
import { STATS_CSV, statsCsv } from '../report/stats-csv.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import type { SweepDoc } from '../report/sweep-model.js';
import { COMPAT_TOOLS } from '../report/compat/definitions.js';

/** Rebuild a run's summary from its raw records (and run.json for metadata), streamed through the run's aggregator. */
export function rebuildSummary(dir: string, percentiles?: Percentiles): { summary: Summary; warnings: string[] } {
  return replaySummary(dir, 'report', percentiles);
}

/** A sweep directory's sweep.json, as text and parsed; a file that does not parse is a UsageError naming it. */
export function readSweepJson(dir: string): { text: string; doc: SweepDoc } {
  const file = artifactPath(dir, ARTIFACTS.sweep);
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
    const doc = JSON.parse(text) as SweepDoc;
    if (!doc || typeof doc !== 'object' || !Array.isArray(doc.points)) throw new Error('no points list');
    return { text, doc };
  } catch (e) {
    throw new UsageError([`report: ${file} is not a sweep document (${(e as Error).message})`]);
  }
}

export function registerReport(program: Command, out: Out): void {
  program
    .command('report')
    .description('recompute summary.json from a run directory\'s requests.jsonl and print it; for a sweep directory, print its table')
    .argument('<dir>', 'results directory of a run or a sweep')
    .option('--json', 'print the summary (for a sweep: sweep.json) as one JSON document on stdout')
    .option('--no-write', 'do not rewrite DIR/summary.json (a sweep directory is never rewritten)')
    .option('--html', 'also write DIR/report.html (for a sweep directory: the sweep report)')
    .option(`--as <${COMPAT_TOOLS.join('|')}>`, "recompute the run's metrics under that tool's definitions from requests.jsonl and print them next to tokenflood's, with how each definition differs (docs/metrics.md#other-tools); summary.json is left alone")
    .option('--percentiles <list>', "percentiles to show and write, e.g. 50,90,99,99.9 (default the run's own --percentiles)")
    .action(async (dir: string, o: { json?: boolean; write: boolean; html?: boolean; as?: string; percentiles?: string }) => {
      const ps = o.percentiles === undefined ? undefined : parsePercentiles(o.percentiles);
      if (ps && 'problems' in ps) throw new UsageError(ps.problems);
      if (o.as !== undefined) {
        if (hasArtifact(dir, ARTIFACTS.sweep)) throw new UsageError([`--as: ${dir} is a sweep directory; give one point's directory (a run)`]);
        const { compatReport, renderCompat } = await import('../report/compat/view.js');
        const { report, warnings } = compatReport(dir, o.as);
        for (const w of warnings) out.err.write(`warning: ${stripControls(w)}\n`);
        out.out.write(o.json ? JSON.stringify(report, null, 2) + '\n' : `${stripControls(renderCompat(report))}\n`);
        return;
      }
      if (hasArtifact(dir, ARTIFACTS.sweep)) {
        if (ps) throw new UsageError([`--percentiles: ${dir} is a sweep directory: give --percentiles to the sweep (each point's files hold its own)`]);
        const sweep = readSweepJson(dir);
        if (o.html) out.err.write(`wrote ${writeSweepReport(dir)}\n`);
        out.out.write(o.json ? `${sweep.text.trimEnd()}\n` : `${renderSweep(sweep.doc)}\n`);
        return;
      }
      const { summary, warnings } = rebuildSummary(dir, ps?.percentiles);
      for (const w of warnings) out.err.write(`warning: ${stripControls(w)}\n`);
      if (o.write) {
        writeJsonFile(dir, ARTIFACTS.summary, summary);
        writeArtifact(dir, ARTIFACTS.stats, statsCsv(summary));
      }
      if (o.html) out.err.write(`wrote ${writeRunReport(dir)}\n`);
      out.out.write(o.json ? JSON.stringify(summary, null, 2) + '\n' : `${stripControls(renderSummary(summary))}\n`);
    });
}
