// `tokenflood compare BASELINE CANDIDATE...`: side-by-side metrics with deltas; exit 1 when a --fail-on metric regressed.
import { join } from 'node:path';
import { Command } from 'commander';
import { UsageError } from '../errors.js';
import { setExitCode, type Out } from './io.js';
import { described } from './help.js';
import { alignDefinitions, compareResults, DEFAULT_ALPHA, loadResult, parseFailOnSpec, type FailOnMode } from '../report/compare.js';
import { noiseFloor, renderNoiseFloor } from '../report/compare-noise.js';
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
  failOnMode: string;
  alpha: string;
  baseline?: string[];
  json?: boolean;
  html: string | boolean;
}

export function registerCompare(program: Command, out: Out): void {
  program
    .command('compare')
    .description('compare runs or sweeps with a baseline: deltas per metric with their 95% interval and p-value, regressions beyond --threshold that are significant, compare.html with overlaid curves')
    .argument('[baseline]', 'results directory of the baseline run, repeated runs (run-1/, run-2/, …) or sweep, or a vLLM bench result JSON (vllm bench serve --save-result)')
    .argument('[candidates...]', 'one or more results directories (or vLLM bench result JSON files) to compare with it; with a vLLM result on either side, runs are recomputed under vLLM\'s definitions')
    .option('--threshold <percent>', 'a metric regressed when it is worse than the baseline by more than this percentage (error_rate: by more than 1 percentage point) and, unless --fail-on-mode strict, the difference is significant at --alpha', '5')
    .addOption(described('--fail-on <metrics>', 'exit 1 when one of these regressed, e.g. ttft_p99=5%,output_throughput (or all); METRIC=N% sets its own threshold; for evals accuracy_drop=N: accuracy fell by more than N points, significant by McNemar (p < 0.05)', 'none: regressions are reported, the exit code stays 0'))
    .option('--fail-on-mode <mode>', 'significant: a regression is beyond its threshold and significant at --alpha, else "within noise"; strict: beyond its threshold alone', 'significant')
    .option('--alpha <level>', 'significance level of the tests: a difference is significant when p < alpha', String(DEFAULT_ALPHA))
    .addOption(described('--baseline <dirs...>', 'instead of comparing: the noise floor of each metric over these runs of one setup (run-to-run CV, largest pair difference, smallest significant difference), to pick --fail-on thresholds', 'none'))
    .option('--json', 'print the comparison as one JSON document on stdout')
    .addOption(described('--html <file>', 'where to write compare.html', 'CANDIDATE/compare.html, the first candidate'))
    .option('--no-html', 'do not write compare.html')
    .action((baseline: string | undefined, candidates: string[], o: CompareOpts) => {
      const threshold = Number(o.threshold);
      const problems: string[] = [];
      if (!Number.isFinite(threshold) || threshold < 0) problems.push(`--threshold: expected a non-negative percentage, got "${o.threshold}"`);
      const alpha = o.alpha.trim() === '' ? NaN : Number(o.alpha);
      if (!(alpha > 0 && alpha < 1)) problems.push(`--alpha: expected a significance level between 0 and 1 (exclusive), e.g. 0.05, got "${o.alpha}"`);
      if (o.failOnMode !== 'significant' && o.failOnMode !== 'strict') problems.push(`--fail-on-mode: expected significant or strict, got "${o.failOnMode}"`);
      if (o.baseline) {
        if (baseline !== undefined) problems.push(`--baseline: measures the noise floor of its runs alone; give no other directories (got ${[baseline, ...candidates].join(', ')})`);
        if (o.failOn !== undefined) problems.push('--fail-on: not with --baseline, which measures the noise floor and judges nothing');
        if (problems.length) throw new UsageError(problems);
        const nf = noiseFloor(o.baseline, alpha);
        out.out.write(o.json ? JSON.stringify({ noise_floor: nf }, null, 2) + '\n' : `${stripControls(renderNoiseFloor(nf))}\n`);
        return;
      }
      if (baseline === undefined || candidates.length === 0) problems.push('compare: give a baseline and at least one candidate directory (or --baseline DIR DIR... for the noise floor)');
      let failOn: string[] = [];
      let thresholds: Record<string, number> = {};
      const split = splitFailOn(o.failOn, problems);
      const all = baseline === undefined ? [] : [baseline, ...candidates];
      const isEval = all.length > 0 && all.every((d) => existsSync(join(d, EVAL_JSONL)));
      if (split.dropPoints !== undefined && !isEval) problems.push(`--fail-on: accuracy_drop needs the results of tokenflood eval on both sides (${EVAL_JSONL})`);
      try {
        ({ metrics: failOn, thresholds } = parseFailOnSpec(split.metrics));
      } catch (e) {
        problems.push(...(e as UsageError).problems);
      }
      if (problems.length || baseline === undefined) throw new UsageError(problems);
      const aligned = alignDefinitions(all.map(loadResult));
      const [base, ...cands] = aligned.loaded;
      const res = { ...compareResults(base, cands, threshold, failOn, { alpha, mode: o.failOnMode as FailOnMode, thresholds }), definitions: aligned.definitions };
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
