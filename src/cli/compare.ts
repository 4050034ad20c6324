// `tokenflood compare BASELINE CANDIDATE...`: side-by-side metrics with deltas; exit 1 when a --fail-on metric regressed.
import { join } from 'node:path';
import { Command } from 'commander';
import { UsageError } from '../errors.js';
import { setExitCode, type Out } from './io.js';
import { compareResults, loadResult, parseFailOn } from '../report/compare.js';
import { renderComparison } from '../report/compare-terminal.js';
import { stripControls } from '../util/terminal-text.js';
import { writeCompareReport } from '../report/html/compare-report.js';

interface CompareOpts {
  threshold: string;
  failOn?: string;
  json?: boolean;
  html: string | boolean;
}

export function registerCompare(program: Command, out: Out): void {
  program
    .command('compare')
    .description('compare runs or sweeps with a baseline: deltas per metric, regressions beyond --threshold, compare.html with overlaid curves')
    .argument('<baseline>', 'results directory of the baseline run or sweep')
    .argument('<candidates...>', 'one or more results directories to compare with it')
    .option('--threshold <percent>', 'a metric regressed when it is worse than the baseline by more than this percentage (error_rate: by more than 1 percentage point)', '5')
    .option('--fail-on <metrics>', 'exit 1 when one of these regressed, e.g. ttft_p99,output_throughput (or all)')
    .option('--json', 'print the comparison as one JSON document on stdout')
    .option('--html <file>', 'where to write compare.html (default CANDIDATE/compare.html, the first candidate)')
    .option('--no-html', 'do not write compare.html')
    .action((baseline: string, candidates: string[], o: CompareOpts) => {
      const threshold = Number(o.threshold);
      const problems: string[] = [];
      if (!Number.isFinite(threshold) || threshold < 0) problems.push(`--threshold: expected a non-negative percentage, got "${o.threshold}"`);
      let failOn: string[] = [];
      try {
        failOn = parseFailOn(o.failOn);
      } catch (e) {
        problems.push(...(e as UsageError).problems);
      }
      if (problems.length) throw new UsageError(problems);
      const base = loadResult(baseline);
      const cands = candidates.map(loadResult);
      const res = compareResults(base, cands, threshold, failOn);
      let htmlPath: string | undefined;
      if (o.html !== false) htmlPath = writeCompareReport(typeof o.html === 'string' ? o.html : join(candidates[0], 'compare.html'), res, [base, ...cands]);
      if (o.json) out.out.write(JSON.stringify({ ...res, html: htmlPath ?? null }, null, 2) + '\n');
      else out.out.write(`${stripControls(renderComparison(res))}\n${htmlPath ? `\nwrote ${htmlPath}\n` : ''}`);
      if (res.failed) setExitCode(1);
    });
}
