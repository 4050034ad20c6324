// Shared test helpers: temp dirs and quick runs.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function tmpDir(prefix = 'tokenflood-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Expect `x` within [lo, hi]; returns a readable message for failures. */
export function within(x: number | null | undefined, lo: number, hi: number): boolean {
  return x !== null && x !== undefined && x >= lo && x <= hi;
}
