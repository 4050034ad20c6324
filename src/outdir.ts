// Results directories: the default name, and the rule that an earlier run is never overwritten by accident.
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from './errors.js';

const RUN_FILES = ['requests.jsonl', 'summary.json', 'run.json'];

/** results/<timestamp>-<model><suffix> */
export function defaultOutDir(model: string, suffix = ''): string {
  const ts = new Date().toISOString().replace(/[:.]/g, '-').replace(/Z$/, '');
  return join('results', `${ts}-${model.replace(/[^A-Za-z0-9._-]+/g, '_')}${suffix}`);
}

/** Create the directory; refuse one that already holds a run unless `overwrite` (then empty its run files). */
export function prepareOutDir(dir: string, overwrite: boolean): void {
  try {
    prepare(dir, overwrite);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    const err = e as NodeJS.ErrnoException;
    throw new UsageError([`--out: cannot use ${dir} as a results directory: ${err.code ?? ''} ${err.message}`.replace(/\s+/g, ' ')]);
  }
}

function prepare(dir: string, overwrite: boolean): void {
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw new UsageError([`--out: ${dir} exists and is not a directory`]);
  if (existsSync(dir)) {
    if (readdirSync(dir).some((f) => RUN_FILES.includes(f)) && !overwrite)
      throw new UsageError([`--out: ${dir} already holds a run; choose another directory or pass --overwrite`]);
    for (const f of RUN_FILES) if (existsSync(join(dir, f))) writeFileSync(join(dir, f), '');
  }
  mkdirSync(dir, { recursive: true });
}
