// `run --eval-under-load SET`: the load run with graded probes, then the idle baseline, then accuracy per level in eval.json.
import { join } from 'node:path';
import { run, type Reporter, type RunResult } from '../run.js';
import type { ResolvedRun } from '../config/load.js';
import { warmupRequests, type RunConfig } from '../config/schema.js';
import { runIdleBaseline } from '../eval-run/baseline.js';
import { loadEvalSet, type EvalSet } from '../eval/sets.js';
import { createUnderLoadPlan, IDLE, type UnderLoadPlan } from '../eval/under-load.js';
import { EVAL_RUN_DEFAULTS } from '../eval/options.js';
import type { EvalSummary } from '../eval/summary.js';
import { saveUnderLoadFiles } from '../eval-run/files.js';
import { accuracyText } from '../eval/terminal.js';
import { EVAL_BASELINE_DIR } from '../artifacts/registry.js';

/** The probe set of --eval-under-load, read and checked before anything is sent. */
export function underLoadPlan(c: Pick<RunConfig, 'evalUnderLoad' | 'evalLimit' | 'maxModelLen'>): { set: EvalSet; plan: UnderLoadPlan } {
  const set = loadEvalSet(c.evalUnderLoad!, '--eval-under-load');
  if (c.evalLimit !== undefined) set.items = set.items.slice(0, c.evalLimit);
  const maxTokens = Math.min(EVAL_RUN_DEFAULTS.maxTokens, c.maxModelLen ?? Infinity);
  return { set, plan: createUnderLoadPlan({ set, grading: { mode: set.mode }, maxTokens }) };
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

/** Run with probes, then the baseline at its end; prints like `run` plus the accuracy per level (or one JSON document with `eval`). */
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
  let s: EvalSummary | undefined;
  // At the run's end, after the caller's outputs have ended (live view, dashboard) and before report.html, which
  // draws the levels from eval.json: the idle baseline, then eval.jsonl and eval.json through the run's ledger.
  const baseline: Reporter = {
    name: 'eval-under-load',
    runEnd: async (e) => {
      if (signal?.aborted) return;
      if (!c.quiet) out.err.write('tokenflood: idle baseline: the graded set alone at concurrency 1\n');
      await runIdleBaseline(resolved, plan, join(e.outDir, EVAL_BASELINE_DIR), signal);
      s = saveUnderLoadFiles(e.files, plan);
    },
  };
  const res = await run(resolved, { signal, results: [...reporters, baseline], workload: plan.probes(level, warmupRequests(c)) });
  if (s) print(res, s);
}
