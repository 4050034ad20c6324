// The cross-checks of --users/--user-rate and --cancel-after/--cancel-rate against the other load options: one message each.
import type { RunConfig } from './schema.js';

/** Problems of the user-centric and cancellation options (exit 2, nothing sent); `given` holds the options the user set. */
export function loadShapeProblems(c: RunConfig, given: Record<string, unknown>): string[] {
  const problems: string[] = [];
  if (c.users !== undefined || c.userRate !== undefined) {
    if (c.users === undefined) problems.push('--user-rate: needs --users N (the number of users that each send at this rate)');
    else if (c.userRate === undefined) problems.push('--users: needs --user-rate R (requests per second of each user)');
    const clash = (['rate', 'concurrency', 'stages', 'rampUp', 'rampDown', 'replay', 'shard'] as const)
      .filter((k) => given[k] !== undefined)
      .map((k) => `--${k.replace(/[A-Z]/g, (m) => `-${m.toLowerCase()}`)}`);
    if (clash.length) problems.push(`--users: the users set the load (N × --user-rate requests per second); drop ${clash.join(', ')}`);
  }
  if (c.cancelAfter !== undefined && c.cancelAfter >= c.timeout)
    problems.push(`--cancel-after: ${c.cancelAfter} s is not before --timeout (${c.timeout} s): every request would time out first`);
  return problems;
}
