// Workloads by kind (kind → factory), and the one function that picks the run's kind from its options.
import type { Tokenizer } from './tokenizer.js';
import type { Rng } from '../util/rng.js';
import type { WorkloadParams } from './params.js';
import type { Workload, WorkloadOptions } from './workload-types.js';
import { UsageError } from '../errors.js';
import { createSyntheticWorkload } from './synthetic-workload.js';
import { createDatasetWorkload } from './dataset-workload.js';
import { createReplayWorkload } from './replay.js';
import { withCacheAb } from './cache-ab.js';
import { byKind } from '../util/kinds.js';
import { createTraceWorkload } from './trace/replay/workload.js';
import { detectTraceKind } from './trace/registry.js';
import { parsePriorityMix, withPriorityMix } from './priority.js';

export type { CompletedRequest, Workload, WorkloadOptions } from './workload-types.js';

/** Problems with combinations of workload options that zod cannot see key by key. */
function conflicts(c: WorkloadParams): string[] {
  const p: string[] = [];
  if (c.dataset && c.replay) p.push('--replay: cannot be combined with --dataset (a replay file is its own dataset)');
  if (c.mix && (c.dataset || c.replay)) p.push('--mix: only applies to synthetic prompts, not with --dataset or --replay');
  if (c.replay && c.rate !== undefined) p.push('--rate: a replay sends at the recorded times; drop --rate or use --replay-speed');
  if (c.replay && c.cacheAb) p.push('--cache-ab: cannot be combined with --replay');
  if (!c.dataset && (c.datasetField.length || c.datasetFormat !== 'auto' || c.datasetMode !== 'reuse' || c.datasetOrder !== 'sequential'))
    p.push('--dataset-field/--dataset-format/--dataset-mode/--dataset-order: only apply with --dataset');
  if (!c.replay && typeof c.thinkTime === 'string') p.push(`--think-time: ${c.thinkTime} only applies with --replay; give a duration such as 2s`);
  if (!c.replay) {
    // Trace-only options do nothing without a trace: refused rather than silently ignored.
    const given = [
      c.replayFormat !== 'auto' && '--replay-format',
      c.replaySpeed !== 1 && '--replay-speed',
      c.traceBlockSize !== undefined && '--trace-block-size',
      c.skipBadLines && '--skip-bad-lines',
      c.sessions !== undefined && '--sessions',
      c.sessionAnswers !== 'recorded' && '--session-answers',
      c.maxIdleGap !== undefined && '--max-idle-gap',
      c.startAtFraction !== 0 && '--start-at-fraction',
    ].filter((f): f is string => typeof f === 'string');
    for (const f of given) p.push(`${f}: only applies with --replay (a trace file)`);
  }
  if (c.prefixTokens === 0 && c.prefixGroups !== 1) p.push('--prefix-groups: only applies with --prefix-tokens');
  return p;
}

/** The format of a --replay file: the given one, else detected; a file that cannot be read or told apart is left to tokenflood's replay, which names the problem as before. */
function replayFormatOf(path: string, given: string): string {
  if (given !== 'auto') return given;
  try {
    return detectTraceKind(path).kind;
  } catch {
    return 'tokenflood';
  }
}

/** What every workload factory takes: the options, the tokenizer, its random stream, the total request count (warmup included) and the stop signal. */
export type WorkloadFactory = (c: WorkloadParams, tok: Tokenizer, rng: Rng, total: number | undefined, opts: WorkloadOptions) => Workload;

/** Each kind is also what `describe().kind` (run.json `workload.kind`) says. Mixes and multi-turn data are synthetic and dataset workloads. */
export const WORKLOADS = {
  synthetic: (c, tok, rng, total, o) => createSyntheticWorkload(c, tok, rng, total, o.signal),
  dataset: (c, tok, rng, _total, o) => createDatasetWorkload(c, tok, rng, o.signal, o.sleep),
  // tokenflood's own format (text prompts, given or detected) or any other trace format (TRACE_LOADERS): both describe themselves as replay, with their format.
  replay: (c, tok, rng, total, o) => (replayFormatOf(c.replay as string, c.replayFormat) === 'tokenflood' ? createReplayWorkload(c, tok, rng) : createTraceWorkload(c, tok, rng, total, o)),
  'cache-ab': (c, tok, rng, _total, o) => withCacheAb(c, tok, rng, o.signal),
} as const satisfies Record<string, WorkloadFactory>;

export type WorkloadKind = keyof typeof WORKLOADS;
export const WORKLOAD_KINDS = Object.keys(WORKLOADS) as WorkloadKind[];

/** The factory of a kind; an unknown kind is a UsageError listing the valid ones. */
export const workloadFactory = (kind: string, name = 'workload'): WorkloadFactory => byKind<WorkloadFactory>(WORKLOADS, kind, name);

/** --replay → replay; else --cache-ab → cache-ab (wrapping a dataset or synthetic prompts); else --dataset → dataset; else synthetic. */
export function workloadKind(c: WorkloadParams): WorkloadKind {
  if (c.replay) return 'replay';
  if (c.cacheAb) return 'cache-ab';
  if (c.dataset) return 'dataset';
  return 'synthetic';
}

/**
 * Build the run's workload. Throws UsageError (before anything is sent) for bad options, unreadable files
 * and, with --strict, bad dataset lines.
 */
export function createWorkload(c: WorkloadParams, tok: Tokenizer, rng: Rng, total: number | undefined, opts: WorkloadOptions = {}): Workload {
  const problems = conflicts(c);
  if (problems.length) throw new UsageError(problems);
  // The mix's seed comes from a clone, so the workload's own draws (lengths, order, arrivals) are those of a run without it.
  const mixSeed = c.priorityMix ? Math.floor(rng.clone().next() * 4294967296) : 0;
  const w = WORKLOADS[workloadKind(c)](c, tok, rng, total, opts);
  return c.priorityMix ? withPriorityMix(w, parsePriorityMix(c.priorityMix), mixSeed) : w;
}
