// `tokenflood compare BASELINE CANDIDATE...`: side-by-side metrics with deltas; exit 1 when a --fail-on metric regressed.
import { join } from 'node:path';
import { Command } from 'commander';
import { UsageError } from '../errors.js';
import { setExitCode, type Out } from './io.js';
import { described } from './help.js';
import { alignDefinitions, compareResults, loadResult, parseFailOn } from '../report/compare.js';
import { renderComparison } from '../report/compare-terminal.js';
import { stripControls } from '../util/terminal-text.js';
import { writeCompareReport } from '../report/html/compare-report.js';
import { existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { compareEvalLines, readEvalLines, renderEvalComparison, type EvalComparison } from '../eval/compare.js';
import { EVAL_JSONL } from '../eval/file-names.js';
import { ARTIFACTS, artifactPath } from '../artifacts/registry.js';

/** `accuracy_drop=N` entries of --fail-on (points) split from the metric names. */
function splitFailOn(text: string | undefined, problems: string[]): { metrics: string | undefined; dropPoints: number | undefined } {
  let dropPoints: number | undefined;
  const rest: string[] = [];
  for (const part of (text ?? '').split(',').map((x) => x.trim()).filter(Boolean)) {
    const m = /^accuracy_drop=(.*)$/.exec(part);
    if (!m) rest.push(part);
    else if (!/^\d+(\.\d+)?$/.test(m[1])) problems.push(`--fail-on: accuracy_drop expects a number of percentage points, e.g. accuracy_drop=1, got "${m[1]}"`);
    else dropPoints = Number(m[1]);
  }
  return { metrics: rest.length ? rest.join(',') : undefined, dropPoints };
}

const isFile = (p: string): boolean => existsSync(p) && statSync(p).isFile();

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
    .argument('<baseline>', 'results directory of the baseline run or sweep, or a vLLM bench result JSON (vllm bench serve --save-result)')
    .argument('<candidates...>', 'one or more results directories (or vLLM bench result JSON files) to compare with it; with a vLLM result on either side, runs are recomputed under vLLM\'s definitions')
    .option('--threshold <percent>', 'a metric regressed when it is worse than the baseline by more than this percentage (error_rate: by more than 1 percentage point)', '5')
    .addOption(described('--fail-on <metrics>', 'exit 1 when one of these regressed, e.g. ttft_p99,output_throughput (or all); for evals accuracy_drop=N: accuracy fell by more than N points, significant by McNemar (p < 0.05)', 'none: regressions are reported, the exit code stays 0'))
    .option('--json', 'print the comparison as one JSON document on stdout')
    .addOption(described('--html <file>', 'where to write compare.html', 'CANDIDATE/compare.html, the first candidate'))
    .option('--no-html', 'do not write compare.html')
    .action((baseline: string, candidates: string[], o: CompareOpts) => {
      const threshold = Number(o.threshold);
      const problems: string[] = [];
      if (!Number.isFinite(threshold) || threshold < 0) problems.push(`--threshold: expected a non-negative percentage, got "${o.threshold}"`);
      let failOn: string[] = [];
      const split = splitFailOn(o.failOn, problems);
      const isEval = [baseline, ...candidates].every((d) => existsSync(join(d, EVAL_JSONL)));
      if (split.dropPoints !== undefined && !isEval) problems.push(`--fail-on: accuracy_drop needs the results of tokenflood eval on both sides (${EVAL_JSONL})`);
      try {
        failOn = parseFailOn(split.metrics);
      } catch (e) {
        problems.push(...(e as UsageError).problems);
      }
      if (problems.length) throw new UsageError(problems);
      const aligned = alignDefinitions([baseline, ...candidates].map(loadResult));
      const [base, ...cands] = aligned.loaded;
      const res = { ...compareResults(base, cands, threshold, failOn), definitions: aligned.definitions };
      const baseLines = isEval ? readEvalLines(baseline) : [];
      const evals: EvalComparison[] = isEval ? candidates.map((d) => compareEvalLines(baseline, d, baseLines, readEvalLines(d), split.dropPoints)) : [];
      let htmlPath: string | undefined;
      // A vLLM result file is not a directory: the page goes to the first results directory, else beside that file.
      const htmlDir = [...candidates, baseline].find((d) => !isFile(d)) ?? dirname(candidates[0]);
      if (o.html !== false) htmlPath = writeCompareReport(typeof o.html === 'string' ? o.html : artifactPath(htmlDir, ARTIFACTS.compare), res, [base, ...cands]);
      if (o.json) out.out.write(JSON.stringify({ ...res, ...(isEval ? { eval: evals } : {}), html: htmlPath ?? null }, null, 2) + '\n');
      else out.out.write(`${aligned.definitions === 'vllm' ? `metrics under vLLM bench's definitions: tokenflood runs recomputed from requests.jsonl (docs/metrics.md#other-tools)\n\n` : ''}${stripControls(renderComparison(res))}\n${evals.map((e) => `\n${stripControls(renderEvalComparison(e))}\n`).join('')}${htmlPath ? `\nwrote ${htmlPath}\n` : ''}`);
      if (res.failed || evals.some((e) => e.regressed)) setExitCode(1);
    });
}
