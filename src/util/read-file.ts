// Reading user-named input files safely: only regular files, never more than a stated number of bytes.
import { closeSync, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';

/** Largest --config / sweep / simulate options file read: options files are small; anything bigger is a mistake. */
export const MAX_CONFIG_BYTES = 1024 * 1024;

const kindOf = (s: Stats): string =>
  s.isDirectory() ? 'a directory' : s.isFIFO() ? 'a named pipe' : s.isSocket() ? 'a socket' : s.isCharacterDevice() ? 'a character device' : s.isBlockDevice() ? 'a block device' : 'not a file';

export const mib = (bytes: number): string => `${+(bytes / 1024 / 1024).toFixed(1)} MiB`;

/**
 * Open a file for reading, refusing anything that is not a regular file (a device such as /dev/zero reads forever,
 * a pipe blocks). Returns the fd, or a problem in words ("is a character device, not a regular file", "ENOENT").
 */
export function openRegularFile(path: string): { fd: number; size: number } | { problem: string } {
  let s: Stats;
  try {
    // stat before open: opening a named pipe would block until someone writes to it.
    s = statSync(path);
  } catch (e) {
    return { problem: (e as NodeJS.ErrnoException).code ?? (e as Error).message };
  }
  if (s.isFIFO()) return { problem: 'is a pipe, not a regular file (inputs are read more than once and checked for size): write it to a file first, e.g. zcat x.gz > x.jsonl' };
  if (!s.isFile()) return { problem: `is ${kindOf(s)}, not a regular file` };
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    return { problem: (e as NodeJS.ErrnoException).code ?? (e as Error).message };
  }
  const f = fstatSync(fd);
  if (!f.isFile()) {
    closeSync(fd);
    return { problem: `is ${kindOf(f)}, not a regular file` };
  }
  return { fd, size: f.size };
}

/**
 * Read a whole regular file as UTF-8, at most `maxBytes` (checked while reading too: /proc files report size 0).
 * Returns the text or a problem in words.
 */
export function readTextFile(path: string, maxBytes: number): { text: string } | { problem: string } {
  const o = openRegularFile(path);
  if ('problem' in o) return o;
  try {
    if (o.size > maxBytes) return { problem: `is ${mib(o.size)}, larger than the ${mib(maxBytes)} limit` };
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.min(64 * 1024, maxBytes + 1 - total));
      const n = readSync(o.fd, buf, 0, buf.length, null);
      if (n === 0) break;
      chunks.push(buf.subarray(0, n));
      total += n;
      if (total > maxBytes) return { problem: `is larger than the ${mib(maxBytes)} limit` };
    }
    return { text: Buffer.concat(chunks, total).toString('utf8') };
  } catch (e) {
    return { problem: (e as NodeJS.ErrnoException).code ?? (e as Error).message };
  } finally {
    closeSync(o.fd);
  }
}
