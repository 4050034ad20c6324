// Workload: turns the run config into the RequestSpec for each request index, choosing synthetic, dataset or replay.
import type { Tokenizer } from './tokenizer.js';
import type { Rng } from '../util/rng.js';
import type { WorkloadParams } from './params.js';
import type { Workload, WorkloadOptions } from './workload-types.js';
import { UsageError } from '../errors.js';
import { createSyntheticWorkload } from './synthetic-workload.js';
import { createDatasetWorkload } from './dataset-workload.js';
import { createReplayWorkload } from './replay.js';
import { withCacheAb } from './cache-ab.js';

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
  if (c.prefixTokens === 0 && c.prefixGroups !== 1) p.push('--prefix-groups: only applies with --prefix-tokens');
  return p;
}

/**
 * Build the run's workload. Throws UsageError (before anything is sent) for bad options, unreadable files
 * and, with --strict, bad dataset lines.
 */
export function createWorkload(c: WorkloadParams, tok: Tokenizer, rng: Rng, total: number | undefined, opts: WorkloadOptions = {}): Workload {
  const problems = conflicts(c);
  if (problems.length) throw new UsageError(problems);
  if (c.replay) return createReplayWorkload(c, tok, rng);
  if (c.cacheAb) return withCacheAb(c, tok, rng, opts.signal);
  if (c.dataset) return createDatasetWorkload(c, tok, rng, opts.signal);
  return createSyntheticWorkload(c, tok, rng, total, opts.signal);
}
