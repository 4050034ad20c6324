// Writing a synthetic Weka trace whole or not at all: a session file, or a directory of them built aside and renamed in.
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { UsageError, WriteError } from '../../errors.js';
import { describeFsError, writeFileAtomic } from '../../util/atomic-write.js';
import type { WekaSession } from './synth.js';

/** `--out` names one session file when it ends in .json, else a directory of session files. */
export const isFileOut = (out: string): boolean => out.toLowerCase().endsWith('.json');

/** File name of session i of n in a directory: zero-padded so name order (the loader's) is arrival order. */
export const sessionFileName = (i: number, n: number): string => `session-${String(i).padStart(Math.max(5, String(n - 1).length), '0')}.json`;

/** Why `out` may not be written, or undefined: it exists without --force, or is something --force should not replace. */
export function outProblem(out: string, sessions: number, force: boolean): string | undefined {
  if (isFileOut(out) && sessions !== 1) return `--out ${out}: a Weka session file holds one session; give a directory for --sessions ${sessions}`;
  if (!existsSync(out)) return existsSync(dirname(out)) ? undefined : `--out ${out}: the directory ${dirname(out)} does not exist`;
  if (!force) return `--out ${out}: already exists (--force replaces it)`;
  const st = statSync(out);
  if (isFileOut(out)) return st.isFile() ? undefined : `--out ${out}: exists and is not a file; not replaced`;
  if (!st.isDirectory()) return `--out ${out}: exists and is not a directory; not replaced`;
  const other = readdirSync(out).find((f) => !f.toLowerCase().endsWith('.json'));
  return other === undefined ? undefined : `--out ${out}: holds ${other}, not only session files; --force replaces only a trace directory`;
}

const json = (s: WekaSession): string => JSON.stringify(s) + '\n';

/** Write `count` sessions to `out` (checked with outProblem first), each as it is drawn; returns the files written. */
export function writeSynthTrace(out: string, sessions: Iterable<WekaSession>, count: number, force: boolean): string[] {
  const problem = outProblem(out, count, force);
  if (problem) throw new UsageError([problem]);
  if (isFileOut(out)) {
    for (const s of sessions) writeFileAtomic(out, json(s));
    return [out];
  }
  const tag = `${process.pid}.${Date.now()}`;
  const tmp = join(dirname(out), `.${basename(out)}.${tag}.tmp`);
  const old = join(dirname(out), `.${basename(out)}.${tag}.old`);
  const names: string[] = [];
  try {
    mkdirSync(tmp);
    for (const s of sessions) {
      names.push(sessionFileName(names.length, count));
      writeFileSync(join(tmp, names[names.length - 1]), json(s));
    }
    if (existsSync(out)) renameSync(out, old);
    renameSync(tmp, out);
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    if (existsSync(old) && !existsSync(out)) renameSync(old, out);
    throw new WriteError(out, describeFsError(e));
  }
  rmSync(old, { recursive: true, force: true });
  return names.map((n) => join(out, n));
}
