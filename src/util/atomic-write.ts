// Results files are written whole or not at all: a temp file in the same directory, fsync, then rename over the target.
import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { WriteError } from '../errors.js';

/** The write call, passed in so tests can make it fail part-way (a real disk-full test needs a tiny filesystem). */
export type WriteFn = (fd: number, buf: Uint8Array, offset: number, length: number) => number;

const defaultWrite: WriteFn = (fd, buf, offset, length) => writeSync(fd, buf, offset, length);
let seq = 0;

/** "ENOSPC (no space left on device)" from a Node fs error; the message text only, never a stack. */
export function describeFsError(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  if (!err || typeof err !== 'object') return String(e);
  // Node's messages look like "ENOSPC: no space left on device, write": keep the code and the OS text.
  const text = /^[A-Z0-9_]+: ([^,]+)/.exec(err.message ?? '')?.[1];
  if (err.code) return text ? `${err.code} (${text})` : err.code;
  return err.message ?? String(e);
}

/** Write all of `buf` at the file position with as many write calls as the OS needs; a zero-byte write is an error. */
export function writeAll(fd: number, buf: Uint8Array, write: WriteFn = defaultWrite): void {
  let off = 0;
  while (off < buf.length) {
    const n = write(fd, buf, off, buf.length - off);
    if (!(n > 0)) throw Object.assign(new Error(`EIO: write returned ${n} after ${off} of ${buf.length} bytes`), { code: 'EIO' });
    off += n;
  }
}

/**
 * Replace `path` with `data` atomically: readers see the old file or the complete new one, never a truncated one.
 * Throws WriteError naming `path` and the reason (the temp file is removed; an earlier `path` is left as it was).
 */
export function writeFileAtomic(path: string, data: string | Uint8Array, write: WriteFn = defaultWrite): void {
  const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${++seq}.tmp`);
  let fd = -1;
  try {
    fd = openSync(tmp, 'wx', 0o644);
    writeAll(fd, buf, write);
    // Without fsync a crash after the rename can leave an empty file under the final name on some filesystems.
    fsyncSync(fd);
    closeSync(fd);
    fd = -1;
    renameSync(tmp, path);
  } catch (e) {
    if (fd >= 0)
      try {
        closeSync(fd);
      } catch {
        /* already failing; the first error is the one to report */
      }
    try {
      unlinkSync(tmp);
    } catch {
      /* never created, or already gone */
    }
    throw new WriteError(path, describeFsError(e));
  }
}
