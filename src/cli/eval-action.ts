import type { Command } from 'commander';
import { RUN_FLAGS } from '../config/schema.js';
import { resolveRunConfig } from '../config/load.js';
import { givenFlags } from '../util/flags.js';
import { EVAL_FLAGS, EVAL_RUN_DEFAULTS, EvalSchema, type EvalOptions } from '../eval/options.js';
import { describeIssues } from '../config/schema.js';
import { UsageError } from '../errors.js';
import { run, type Reporter } from '../run.js';
import { renderSummary } from '../report/terminal.js';
import { stripControls } from '../util/terminal-text.js';
import { loadEvalSet, type EvalSet } from '../eval/sets.js';
import { createEvalWorkload, type EvalWorkload } from '../eval/workload.js';
import { summarizeEval } from '../eval/summary.js';
import { performanceOf, saveEvalFiles, type EvalDocument } from '../eval-run/files.js';
import { renderEval } from '../eval/terminal.js';
import type { GradeSpec } from '../eval/grade.js';
import { setExitCode, type Out } from './io.js';
import { onStopSignals } from './signals.js';
import { chooseReporters, discard, displayReporters, endOut } from './reporters.js';
import { startReporter } from './run.js';
import { parseShard } from '../config/shard.js';
import type { ShardSpec } from '../scheduler/options.js';
import { join } from 'node:path';
import { compareOutputs, renderOutputComparison, type OutputComparison } from '../eval/compare-outputs.js';
import type { EvalOutcome } from '../eval/workload.js';
import type { Tokenizer } from '../dataset/tokenizer.js';
import { redactUrl } from '../util/url.js';

/** The eval options from flags, every problem at once; the set is read and checked here, before anything is sent. */
export function resolveEval(flags: Record<string, unknown>): { o: EvalOptions; set: EvalSet; items: EvalSet['items']; shard?: ShardSpec; grading: GradeSpec; minAccuracy?: number } {
  const r = EvalSchema.safeParse(flags);
  if (!r.success) throw new UsageError(describeIssues(r.error.issues, (k) => EVAL_FLAGS[k as keyof typeof EVAL_FLAGS]?.name ?? k));
  const o = r.data;
  const problems: string[] = [];
  if (o.grade === 'regex' && !o.gradeRegex) problems.push('--grade regex: needs --grade-regex PATTERN');
  if (o.gradeRegex && o.grade !== 'regex') problems.push('--grade-regex: only applies with --grade regex');
  let minAccuracy: number | undefined;
  if (o.failOn) {
    const m = /^accuracy_below=(\d+(?:\.\d+)?)(%?)$/.exec(o.failOn.trim());
    const v = m ? Number(m[1]) / (m[2] ? 100 : 1) : NaN;
    if (!(v >= 0 && v <= 1)) problems.push(`--fail-on: expected accuracy_below=P with P a fraction or a percentage, e.g. accuracy_below=0.75, got "${o.failOn}"`);
    else minAccuracy = v;
  }
  let shard: ShardSpec | undefined;
  if (o.shard !== undefined)
    try {
      shard = parseShard(o.shard);
    } catch (e) {
      problems.push(`--shard: ${(e as Error).message}`);
    }
  if (problems.length) throw new UsageError(problems);
  const set = loadEvalSet(o.set);
  if (o.limit !== undefined) set.items = set.items.slice(0, o.limit);
  // A shard grades items i ≡ I (mod N): disjoint, together the whole set; prompts (and their few shots) as in one run.
  const items = shard ? set.items.filter((_, i) => i % shard.count === shard.index) : set.items;
  if (!items.length) throw new UsageError([`--shard ${o.shard}: no item of the ${set.items.length} falls in this shard`]);
  const grading: GradeSpec = { mode: o.grade ?? set.mode, ...(o.gradeRegex ? { pattern: new RegExp(o.gradeRegex) } : {}) };
  return { o, set, items, shard, grading, minAccuracy };
}

/** The eval command's action: `cmd` holds the parsed flags. */
export async function evalAction(cmd: Command, out: Out): Promise<void> {
  const problems: string[] = [];
  const evalFlags = givenFlags(cmd, EVAL_FLAGS, problems);
  const runFlags = givenFlags(cmd, RUN_FLAGS, problems);
  if (problems.length) throw new UsageError(problems);
  const { o, set, items, shard, grading, minAccuracy } = resolveEval(evalFlags);
  // --shard is eval's own (it splits the set); the run itself is not a run shard.
  delete runFlags.shard;
  if (runFlags.warmup) throw new UsageError(['--warmup: an eval sends each item once (or --repeat times); warmup requests would skip items']);
  // Run flags that would drop items or that eval does not repeat by: refused, not silently ignored.
  const notForEval: string[] = [];
  if (runFlags.runs !== undefined && Number(runFlags.runs) !== 1) notForEval.push('--runs: eval does not repeat whole runs; --repeat K sends every item K times');
  for (const k of ['cancelAfter', 'cancelRate'] as const) if (runFlags[k] !== undefined) notForEval.push(`${RUN_FLAGS[k].name}: an eval grades every answer; cancelled requests would leave items ungraded`);
  if (runFlags.users !== undefined || runFlags.userRate !== undefined) notForEval.push('--users/--user-rate: eval paces its items with --concurrency or --rate');
  if (notForEval.length) throw new UsageError(notForEval);
  const resolved = resolveRunConfig({ flags: { ...EVAL_RUN_DEFAULTS, ...runFlags }, configFile: cmd.opts().config as string | undefined, unsharded: 'eval' });
  const c = resolved.config;
  for (const n of resolved.notes ?? []) out.err.write(`tokenflood eval: ${n}\n`);
  // --reporter as in run (cli/reporters.ts); eval's live display is the progress line.
  const choice = chooseReporters(c.reporter, c);
  if (choice.end === 'json') c.json = true;
  out = endOut(choice, out);
  const info = !choice.start ? discard() : c.json ? out.err : out.out;
  const workloadFor = (ctx: { tokenizer: Tokenizer; redact: (s: string) => string }): EvalWorkload =>
    createEvalWorkload({ set, items, shots: o.shots, contextTokens: o.contextTokens, repeat: o.repeat, maxTokens: c.maxTokens ?? EVAL_RUN_DEFAULTS.maxTokens, grading, tokenizer: ctx.tokenizer, redact: ctx.redact });
  // --compare-outputs: the second target first (its own results directory), so the main run's eval.json holds the comparison.
  let other: EvalOutcome[] | undefined;
  if (o.compareOutputs !== undefined) {
    if (c.temperature !== 0) throw new UsageError([`--compare-outputs: outputs are compared at --temperature 0 (greedy decoding is deterministic), got --temperature ${c.temperature}`]);
    const second = resolveRunConfig({
      flags: { ...EVAL_RUN_DEFAULTS, ...runFlags, baseUrl: o.compareOutputs, ...(c.out !== undefined ? { out: join(c.out, 'compare-outputs') } : {}) },
      configFile: cmd.opts().config as string | undefined,
      unsharded: 'eval',
    });
    info.write(`tokenflood eval: --compare-outputs: sending the ${items.length * o.repeat} prompts to ${redactUrl(o.compareOutputs)} first\n`);
    let wl2: EvalWorkload | undefined;
    await run(second, { reporters: [], workload: (_base, ctx) => (wl2 = workloadFor(ctx)) });
    other = wl2!.outcomes();
  }
  let comparison: OutputComparison | undefined;
  let wl: EvalWorkload | undefined;
  let doc: EvalDocument | undefined;
  const files: Reporter = {
    name: 'eval',
    runEnd: (e) => {
      const outcomes = wl!.outcomes();
      if (other) comparison = compareOutputs(outcomes, other, redactUrl(o.compareOutputs!));
      doc = {
        ...summarizeEval(set.name, grading.mode, outcomes, o.repeat),
        sampling: { context_tokens: o.contextTokens, temperature: c.temperature ?? null, top_p: c.topP ?? null, top_k: c.topK ?? null, seed: c.seed ?? null, max_tokens: c.maxTokens ?? null, shots: o.shots, endpoint: c.endpoint },
        performance: performanceOf(e.summary),
        ...(shard ? { shard: { index: shard.index, count: shard.count, set_items: set.items.length } } : {}),
        ...(comparison ? { output_comparison: comparison } : {}),
      };
      saveEvalFiles(e, outcomes, doc);
    },
  };
  const terminal: Reporter = {
    name: 'eval-terminal',
    runEnd: (e) => {
      if (!doc) return;
      if (e.summary.run.stopped_reason === 'max_error_rate') {
        out.err.write(`tokenflood: ${String(e.summary.run.stop_message)}\n`);
        setExitCode(1);
      }
      if (minAccuracy !== undefined && doc.overall.accuracy < minAccuracy) setExitCode(1);
      // Outputs that should be identical and are not: the check failed.
      if (comparison && comparison.mismatched > 0) setExitCode(1);
      if (c.json) return void out.out.write(JSON.stringify({ ...e.summary, eval: doc }, null, 2) + '\n');
      out.out.write(`\n${stripControls(renderSummary(e.summary))}\n\n${stripControls(renderEval(doc))}\n`);
      if (comparison) out.out.write(`${stripControls(renderOutputComparison(comparison))}\n`);
      if (minAccuracy !== undefined && doc.overall.accuracy < minAccuracy) out.out.write(`accuracy below ${(minAccuracy * 100).toFixed(1)}% (--fail-on)\n`);
      out.out.write(`\nwrote ${e.outDir}/${[...e.files.written].join(', ')}\n`);
    },
  };
  let started = false;
  const reporters = [startReporter(out, info, 'tokenflood eval: ', () => (started = true)), ...displayReporters(choice, out.err, '', 'progress'), terminal];
  // Ctrl-C as in run: no new requests, those in flight get the grace period; what was graded is still written.
  const stopper = onStopSignals(out, () => `stopping${started ? `: no new requests; those in flight get up to ${c.gracePeriod} s (--grace-period)` : ''}`);
  try {
    await run(resolved, {
      signal: stopper.signal,
      reporters,
      // eval.jsonl and eval.json before report.html, which draws the eval section from them.
      results: [files],
      workload: (_base, ctx) => (wl = workloadFor(ctx)),
    });
  } finally {
    stopper.dispose();
  }
}
