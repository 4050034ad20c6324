// What --runs N cannot be combined with, checked with the rest of the config (exit 2, nothing sent): docs/commands/run.md#repeated-runs.
import type { RunConfig } from './schema.js';

/**
 * Problems of --runs/--cooldown: a shard (--shard, --start-at) is one part of one run that starts together with
 * its siblings at a set time, so it cannot repeat on its own; --eval-under-load already runs the load twice (idle
 * baseline, then under load) into one directory; --cooldown without --runs 2+ would do nothing.
 */
export function repeatedRunsProblems(c: Pick<RunConfig, 'runs' | 'shard' | 'startAt' | 'evalUnderLoad'>, given: Record<string, unknown>): string[] {
  if (c.runs <= 1) return given.cooldown !== undefined ? ['--cooldown: only applies with --runs 2 or more'] : [];
  const out: string[] = [];
  if (c.shard !== undefined) out.push(`--runs: cannot be combined with --shard (a shard is part of one run started together with the others); repeat the whole sharded run instead`);
  else if (c.startAt !== undefined) out.push('--runs: cannot be combined with --start-at (one synchronized start time cannot begin several runs)');
  if (c.evalUnderLoad) out.push('--runs: cannot be combined with --eval-under-load (it writes one baseline and one loaded run into one directory); run it once per repeat');
  return out;
}
