// Error base class with stable codes; CLI maps UsageError to exit code 2.

export type ErrorCode =
  | 'E_USAGE' // bad flag, config field or input file: exit 2, nothing sent
  | 'E_UNREACHABLE' // target server could not be reached before the run: exit 2
  | 'E_INTERRUPTED' // stopped by a signal before the run started (during the preflight): exit 130/143
  | 'E_WRITE' // a results file could not be written (disk full, ...): exit 1, sending stopped
  | 'E_VALIDATION' // run --validate: a step of the validation ladder failed before the load: exit 4, no load sent
  | 'E_INTERNAL';

/** Exit code of a run stopped by its validation ladder (run --validate), distinct from bad input (2) and run failures (1, 3). */
export const EXIT_VALIDATION = 4;

export class TokenfloodError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'TokenfloodError';
  }
}

/** One or more problems with what the user asked for. `problems` lists each one, naming the flag, field or file:line. */
export class UsageError extends TokenfloodError {
  constructor(readonly problems: string[]) {
    super('E_USAGE', problems.length === 1 ? problems[0] : `${problems.length} problems:\n  - ${problems.join('\n  - ')}`);
    this.name = 'UsageError';
  }
}

export function isUsageError(e: unknown): e is UsageError {
  return e instanceof UsageError;
}

/** A results file could not be written. `file` is the path, `reason` the OS code (ENOSPC, EIO, ...). */
export class WriteError extends TokenfloodError {
  constructor(
    readonly file: string,
    readonly reason: string,
    /** What was kept, what else failed ("254 complete records kept"). */
    readonly detail = '',
  ) {
    super('E_WRITE', `cannot write ${file}: ${reason}${detail ? `; ${detail}` : ''}`);
    this.name = 'WriteError';
  }
}
