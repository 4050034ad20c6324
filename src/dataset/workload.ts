// Workload: turns the run config into the RequestSpec for each request index, choosing synthetic, dataset or replay.
import type { RunConfig } from '../config/schema.js';
import type { Tokenizer } from './tokenizer.js';
import type { Rng } from '../util/rng.js';
import type { RequestSpec } from './types.js';
import type { RequestRecord } from '../metrics/record.js';
import { UsageError } from '../errors.js';
import { createSyntheticWorkload } from './synthetic-workload.js';
import { createDatasetWorkload } from './dataset-workload.js';
import { createReplayWorkload } from './replay.js';
import { withCacheAb } from './cache-ab.js';

/** What the run tells the workload about a finished request (multi-turn sessions feed answers back). */
export interface CompletedRequest {
  spec: RequestSpec;
  ok: boolean;
  answerText: string;
  reasoningText: string;
  record: RequestRecord;
}

export interface Workload {
  /**
   * Spec for request `index` (warmup included); undefined when the workload is exhausted, which ends the run
   * for that virtual user. May return a promise (e.g. to wait for the previous turn of a conversation).
   */
  next(index: number): RequestSpec | undefined | Promise<RequestSpec | undefined>;
  /** Called when a request finishes, before its slot is reused. */
  complete?(done: CompletedRequest): void;
  /** Number of requests the workload holds, when finite (once-mode datasets); used as the default request count. */
  size?: number;
  /** Send times (ms from the start) for trace replay; when present they replace the arrival process. */
  arrivalTimesMs?: number[];
  /** What the workload is (and anything it skipped), for the run metadata. */
  describe(): Record<string, unknown>;
}

export interface WorkloadOptions {
  /** The run's stop signal: a next() that is waiting (cache A/B warm pass, multi-turn) returns undefined on abort. */
  signal?: AbortSignal;
}

/** Problems with combinations of workload options that zod cannot see key by key. */
function conflicts(c: RunConfig): string[] {
  const p: string[] = [];
  if (c.dataset && c.replay) p.push('--replay: cannot be combined with --dataset (a replay file is its own dataset)');
  if (c.mix && (c.dataset || c.replay)) p.push('--mix: only applies to synthetic prompts, not with --dataset or --replay');
  if (c.replay && c.rate !== undefined) p.push('--rate: a replay sends at the recorded times; drop --rate or use --replay-speed');
  if (c.replay && c.cacheAb) p.push('--cache-ab: cannot be combined with --replay');
  if (!c.dataset && (c.datasetField.length || c.datasetFormat !== 'auto' || c.datasetMode !== 'reuse' || c.datasetOrder !== 'sequential'))
    p.push('--dataset-field/--dataset-format/--dataset-mode/--dataset-order: only apply with --dataset');
  if (c.prefixTokens === 0 && c.prefixGroups !== 1) p.push('--prefix-groups: only applies with --prefix-tokens');
  return p;
}

/**
 * Build the run's workload. Throws UsageError (before anything is sent) for bad options, unreadable files
 * and, with --strict, bad dataset lines.
 */
export function createWorkload(c: RunConfig, tok: Tokenizer, rng: Rng, total: number | undefined, opts: WorkloadOptions = {}): Workload {
  const problems = conflicts(c);
  if (problems.length) throw new UsageError(problems);
  if (c.replay) return createReplayWorkload(c, tok, rng);
  if (c.cacheAb) return withCacheAb(c, tok, rng, opts.signal);
  if (c.dataset) return createDatasetWorkload(c, tok, rng, opts.signal);
  return createSyntheticWorkload(c, tok, rng, total, opts.signal);
}
