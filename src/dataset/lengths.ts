// Resolve length specs from config into distributions, turning every problem into a UsageError naming its flag.
import { UsageError } from '../errors.js';
import { parseLengthDist, type LengthDist } from './distribution.js';
import { loadEmpiricalFile } from './empirical.js';

/** Parse `spec` (reading empirical files); problems name `flag`. Errors inside an empirical file keep their file:line. */
export function resolveLength(spec: string, flag: string): LengthDist {
  try {
    return parseLengthDist(spec, loadEmpiricalFile);
  } catch (e) {
    if (e instanceof UsageError) throw new UsageError(e.problems.map((p) => `${flag}: ${p}`));
    throw new UsageError([`${flag}: ${(e as Error).message}`]);
  }
}
