// `run --eval-under-load SET`: the load run with graded probes, then the idle baseline, then accuracy per level in eval.json.
import { join } from 'node:path';
import { run, type Reporter, type RunResult } from '../run.js';
import type { ResolvedRun } from '../config/load.js';
import type { RunConfig } from '../config/schema.js';
import { runIdleBaseline } from '../eval/baseline.js';
import { loadEvalSet, type EvalSet } from '../eval/sets.js';
import { createUnderLoadPlan, IDLE, type UnderLoadPlan } from '../eval/under-load.js';
import { EVAL_RUN_DEFAULTS } from '../config/eval.js';
import { outcomeLine, type EvalSummary } from '../eval/summary.js';
import { EVAL_JSON, EVAL_JSONL } from '../eval/files.js';
import { accuracyText } from '../eval/terminal.js';
import { ARTIFACTS, writeArtifact, writeJsonArtifact } from '../artifacts/registry.js';
import { writeRunReport } from '../report/html/run-report.js';

/** The probe set of --eval-under-load, read and checked before anything is sent. */
export function underLoadPlan(c: Pick<RunConfig, 'evalUnderLoad' | 'evalLimit' | 'maxModelLen'>): { set: EvalSet; plan: UnderLoadPlan } {
  const set = loadEvalSet(c.evalUnderLoad!, '--eval-under-load');
  if (c.evalLimit !== undefined) set.items = set.items.slice(0, c.evalLimit);
  const maxTokens = Math.min(EVAL_RUN_DEFAULTS.maxTokens, c.maxModelLen ?? Infinity);
  return { set, plan: createUnderLoadPlan({ set, grading: { mode: set.mode }, maxTokens }) };
}

/** eval.jsonl (every probe and baseline answer, with its level) and eval.json into `dir`, then report.html again. */
export function writeUnderLoadFiles(dir: string, plan: UnderLoadPlan): EvalSummary {
  const summary = plan.summary();
  const lines = plan.outcomes().map((x) => JSON.stringify(outcomeLine(x)));
  writeArtifact(dir, ARTIFACTS.evalAnswers, lines.join('\n') + (lines.length ? '\n' : ''));
  writeJsonArtifact(dir, ARTIFACTS.eval, summary);
  return summary;
}

/** Terminal lines: accuracy at each level against idle. */
export function renderLevels(s: EvalSummary): string {
  const rows = Object.entries(s.levels ?? {}).map(([k, a]) => {
    const l = a as typeof a & { p_value?: number; significant?: boolean; delta_points?: number };
    const vs = k === IDLE || l.p_value === undefined ? '' : `  ${l.delta_points! >= 0 ? '+' : ''}${l.delta_points!.toFixed(1)} points vs idle, McNemar p = ${l.p_value.toPrecision(2)}${l.significant ? '  DROP' : ''}`;
    return `  ${k.padEnd(16)} ${accuracyText(a)}${vs}`;
  });
  return [`accuracy under load (${s.set}, ${s.grading} grading):`, ...rows].join('\n');
}

/** Run with probes, then the baseline; prints like `run` plus the accuracy per level (or one JSON document with `eval`). */
export async function runUnderLoad(
  resolved: ResolvedRun,
  reporters: Reporter[],
  out: { out: NodeJS.WritableStream; err: NodeJS.WritableStream },
  print: (res: RunResult, evalSummary: EvalSummary) => void,
  signal?: AbortSignal,
): Promise<void> {
  const c = resolved.config;
  const { plan } = underLoadPlan(c);
  const level = c.rate !== undefined ? `rate ${c.rate}` : `concurrency ${c.concurrency ?? 1}`;
  const res = await run(resolved, { signal, reporters, workload: plan.probes(level, c.warmup) });
  if (signal?.aborted) return;
  if (!c.quiet) out.err.write('tokenflood: idle baseline: the graded set alone at concurrency 1\n');
  await runIdleBaseline(resolved, plan, join(res.outDir, 'eval-baseline'), signal);
  const s = writeUnderLoadFiles(res.outDir, plan);
  writeRunReport(res.outDir, {}, res.artifacts);
  res.written.push(EVAL_JSONL, EVAL_JSON);
  print(res, s);
}
