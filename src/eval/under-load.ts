// Accuracy under load: graded items as every 2nd request of a load run (per sweep level), against an idle baseline.
import type { Workload, CompletedRequest } from '../dataset/workload-types.js';
import type { Tokenizer } from '../dataset/tokenizer.js';
import type { GradeSpec } from './grade.js';
import type { EvalSet } from './sets.js';
import { createEvalWorkload, type EvalOutcome, type EvalWorkload } from './workload.js';
import { accuracyOf, summarizeEval, type Accuracy, type EvalSummary } from './summary.js';
import { mcnemarExact } from './stats.js';
import { UsageError } from '../errors.js';

/** Every PROBE_EVERY-th request of a load run is a graded item (while items last), so probes share the load's batches. */
export const PROBE_EVERY = 2;
export const IDLE = 'idle';

export type WorkloadWrapper = (base: () => Workload, ctx: { tokenizer: Tokenizer; redact: (s: string) => string }) => Workload;

/** A load level's accuracy beside the idle baseline, paired by item. */
export type LevelAccuracy = Accuracy & { delta_points?: number; lost?: number; gained?: number; p_value?: number; significant?: boolean };

/** Probes inside `base`: request i (after warmup) is probe (i − warmup) / PROBE_EVERY when that is a whole number below the item count. */
export function withProbes(base: Workload, probes: EvalWorkload, warmup: number, level: string): Workload {
  // A session schedule hands out turns as answers come back: there is no request index to give a probe.
  if (base.schedule) throw new UsageError(['--eval-under-load: does not apply to a replay of trace sessions (each turn waits for its predecessor); replay stand-alone requests or use a synthetic or dataset load']);
  const probeOf = (i: number): number | undefined => {
    const j = i - warmup;
    if (j < 0 || j % PROBE_EVERY !== PROBE_EVERY - 1) return undefined;
    const n = (j - (PROBE_EVERY - 1)) / PROBE_EVERY;
    return probes.spec(n) ? n : undefined;
  };
  let sent = 0;
  return {
    prefetchable: base.prefetchable,
    size: base.size,
    arrivalTimesMs: base.arrivalTimesMs,
    next(i) {
      const n = probeOf(i);
      if (n === undefined) return base.next(i);
      sent++;
      return probes.spec(n);
    },
    complete(done: CompletedRequest) {
      const n = probeOf(done.record.id);
      if (n === undefined) base.complete?.(done);
      else probes.completeProbe(n, done, level);
    },
    describe: () => ({ ...base.describe(), eval_probes: { ...probes.describe(), every: PROBE_EVERY, sent } }),
  };
}

export interface UnderLoadOptions {
  set: EvalSet;
  grading: GradeSpec;
  maxTokens: number;
}

export interface UnderLoadPlan {
  /** The workload wrapper for one load level (a run, or a sweep point named `level`). */
  probes(level: string, warmup: number): WorkloadWrapper;
  /** The idle baseline: the set alone (run it at concurrency 1). */
  baseline(): WorkloadWrapper;
  outcomes(): EvalOutcome[];
  summary(): EvalSummary;
}

/** One level against the idle baseline: McNemar's exact test on the items graded in both. */
export function levelAgainstIdle(level: readonly EvalOutcome[], idle: readonly EvalOutcome[]): LevelAccuracy {
  const a: LevelAccuracy = accuracyOf(level);
  const base = new Map(idle.map((x) => [x.item.id, x.verdict.correct]));
  let lost = 0, gained = 0, pairs = 0, br = 0;
  for (const x of level) {
    const b = base.get(x.item.id);
    if (b === undefined) continue;
    pairs++;
    if (b) br++;
    if (b && !x.verdict.correct) lost++;
    if (!b && x.verdict.correct) gained++;
  }
  if (!pairs) return a;
  const p = mcnemarExact(lost, gained);
  return { ...a, delta_points: ((gained - lost) / pairs) * 100, lost, gained, p_value: p, significant: p < 0.05 && lost > gained };
}

export function createUnderLoadPlan(o: UnderLoadOptions): UnderLoadPlan {
  const runs: { level: string; wl: EvalWorkload }[] = [];
  const make = (level: string, ctx: { tokenizer: Tokenizer; redact: (s: string) => string }): EvalWorkload => {
    const wl = createEvalWorkload({ set: o.set, items: o.set.items, shots: 0, repeat: 1, maxTokens: o.maxTokens, grading: o.grading, tokenizer: ctx.tokenizer, redact: ctx.redact, cls: 'eval' });
    runs.push({ level, wl });
    return wl;
  };
  const outcomes = (): EvalOutcome[] =>
    runs.flatMap(({ level, wl }) => wl.outcomes().map((x) => (x.level === undefined ? { ...x, level } : x)));
  return {
    probes: (level, warmup) => (base, ctx) => withProbes(base(), make(level, ctx), warmup, level),
    baseline: () => (_base, ctx) => make(IDLE, ctx),
    outcomes,
    summary() {
      const all = outcomes();
      const idle = all.filter((x) => x.level === IDLE);
      const s = summarizeEval(o.set.name, o.grading.mode, idle, 1);
      const levels: Record<string, LevelAccuracy> = { [IDLE]: accuracyOf(idle) };
      for (const { level } of runs) if (level !== IDLE) levels[level] = levelAgainstIdle(all.filter((x) => x.level === level), idle);
      return { ...s, levels };
    },
  };
}
