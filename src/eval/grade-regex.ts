// --grade-regex with bounded time: V8's linear-time engine takes over a pattern that backtracks too much, and a vm timeout bounds the rest.
import { setFlagsFromString } from 'node:v8';
import { createContext, runInContext, type Context } from 'node:vm';

/**
 * V8 runs a regular expression on its backtracking engine and, with this flag, re-runs it on its linear-time
 * engine (the one behind the `l` flag) once it has backtracked 50,000 times, so `(a+)+$` on a 50,000-character
 * answer takes milliseconds instead of minutes. Same matches: the fallback applies only to patterns the linear
 * engine supports (no backreferences or lookarounds); those keep backtracking, bounded by the timeout below.
 * Set on the first regex grade, so only a process that grades with --grade-regex runs with it; every pattern is
 * compiled afresh in lastMatch, after the flag is set.
 */
let linearFallback = false;

/** How long one answer's match may take before it is given up (graded wrong, rule `regex_timeout`). */
export const REGEX_MATCH_TIMEOUT_MS = 2000;

/** The last match's capture group 1 (or whole match), null without a match, or 'timeout'. */
export type RegexOutcome = { value: string | null } | 'timeout';

const SCRIPT = `(() => { const m = [...text.matchAll(new RegExp(source, flags))].at(-1); return m ? (m[1] ?? m[0]) : null; })()`;
let ctx: Context | undefined;

/**
 * The last match of `source`/`flags` (the g flag added) in `text`, run in a vm context with a `timeoutMs` watchdog.
 * V8's regexp engines check for the watchdog's interrupt while they run, so a pattern the linear engine cannot take
 * (a backreference such as `(a+)+\\1`) stops at the deadline instead of running for minutes.
 */
export function lastMatch(source: string, flags: string, text: string, timeoutMs = REGEX_MATCH_TIMEOUT_MS): RegexOutcome {
  if (!linearFallback) (setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks'), (linearFallback = true));
  ctx ??= createContext(Object.create(null));
  Object.assign(ctx, { source, flags: flags.includes('g') ? flags : `${flags}g`, text });
  try {
    const v = runInContext(SCRIPT, ctx, { timeout: timeoutMs }) as string | null;
    return { value: v };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return 'timeout';
    throw e;
  } finally {
    Object.assign(ctx, { text: '' });
  }
}
