// Results directories: the default name, and the rule that an earlier run is never overwritten by accident.
import { lstatSync, mkdirSync, readdirSync, statSync, unlinkSync, type Stats } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { UsageError, WriteError } from './errors.js';
import { describeFsError, writeFileAtomic } from './util/atomic-write.js';
import { RUN_MARKERS } from './artifacts/registry.js';

const RUN_FILES = RUN_MARKERS.map((a) => a.file);

/** results/<timestamp>-<model><suffix> */
export function defaultOutDir(model: string, suffix = ''): string {
  const ts = new Date().toISOString().replace(/[:.]/g, '-').replace(/Z$/, '');
  // Cut to 80 characters: a model id is the server's text, and a file name over 255 bytes cannot be created.
  return join('results', `${ts}-${model.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80)}${suffix}`);
}

const statOrNull = (p: string): Stats | null => {
  try {
    return statSync(p);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
};

const kindOf = (s: Stats): string =>
  s.isFIFO() ? 'a named pipe' : s.isSocket() ? 'a socket' : s.isCharacterDevice() ? 'a character device' : s.isBlockDevice() ? 'a block device' : 'a file';

/**
 * mkdir -p, one level at a time. Node's `mkdir({ recursive: true })` loops forever at 100% CPU (and ignores
 * signals) where a parent exists but a child cannot be made, e.g. under /proc; one level at a time fails fast.
 */
export function makeDirs(dir: string, flag: string): string | undefined {
  const missing: string[] = [];
  let p = resolve(dir);
  try {
    for (let s = statOrNull(p); s === null; s = statOrNull(p)) {
      missing.push(p);
      const up = dirname(p);
      if (up === p) break;
      p = up;
    }
    const top = statOrNull(p);
    if (top && !top.isDirectory()) throw new UsageError([`${flag}: ${p} exists and is not a directory (it is ${kindOf(top)})`]);
    for (const m of missing.reverse()) mkdirSync(m);
    return missing[0];
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw new UsageError([`${flag}: cannot use ${dir} as a results directory: ${describeFsError(e)}`]);
  }
}

/** Create the directory; refuse one that already holds a run unless `overwrite` (then empty its run files). */
export function prepareOutDir(dir: string, overwrite: boolean): void {
  asUsage(dir, () => prepare(dir, overwrite, true));
}

/**
 * The checks of prepareOutDir without touching an earlier run: the directory is made if missing (the topmost folder
 * made is returned, so a command that then sends nothing can remove it), one holding a run is refused unless
 * `overwrite`, and a file is written and removed. Its run files are emptied only by prepareOutDir, once the command
 * is sure to run (after the validation ladder).
 */
export function checkOutDir(dir: string, overwrite: boolean): string | undefined {
  return asUsage(dir, () => prepare(dir, overwrite, false));
}

function asUsage<T>(dir: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof UsageError) throw e;
    const err = e as NodeJS.ErrnoException;
    throw new UsageError([`--out: cannot use ${dir} as a results directory: ${err.code ?? ''} ${err.message}`.replace(/\s+/g, ' ')]);
  }
}

function prepare(dir: string, overwrite: boolean, empty: boolean): string | undefined {
  const s = statOrNull(dir);
  if (s && !s.isDirectory()) throw new UsageError([`--out: ${dir} exists and is not a directory (it is ${kindOf(s)})`]);
  const made = s ? undefined : makeDirs(dir, '--out');
  if (s) emptyRunFiles(dir, overwrite, empty);
  // Prove the directory takes files before anything is sent (a read-only or pseudo filesystem fails here, exit 2).
  const probe = join(dir, '.tokenflood-write-test');
  try {
    writeFileAtomic(probe, '');
    unlinkSync(probe);
  } catch (e) {
    throw new UsageError([`--out: cannot write files in ${dir}: ${e instanceof WriteError ? e.reason : (e as Error).message}`]);
  }
  return made;
}

function emptyRunFiles(dir: string, overwrite: boolean, empty: boolean): void {
  const present = readdirSync(dir).filter((f) => RUN_FILES.includes(f));
  if (present.length && !overwrite) throw new UsageError([`--out: ${dir} already holds a run; choose another directory or pass --overwrite`]);
  for (const f of present) {
    // Only regular files are emptied: a pipe or device under a run file's name would block or swallow the run.
    const l = lstatSync(join(dir, f));
    if (!l.isFile()) throw new UsageError([`--out: ${join(dir, f)} is not a regular file (it is ${l.isSymbolicLink() ? 'a symbolic link' : kindOf(l)})`]);
  }
  if (empty) for (const f of present) writeFileAtomic(join(dir, f), '');
}
