// CLI output streams and exit-code plumbing, passed in so tests can capture them.

export interface Out {
  out: NodeJS.WritableStream & { isTTY?: boolean };
  err: NodeJS.WriteStream;
}

let exitCode = 0;
export function setExitCode(code: number): void {
  exitCode = Math.max(exitCode, code);
}
export function takeExitCode(): number {
  const c = exitCode;
  exitCode = 0;
  return c;
}
