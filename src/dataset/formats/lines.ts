// Line readers for dataset files: a file is read in chunks and handed out line by line, so memory follows the items, not the file.
import { readSync } from 'node:fs';
import { UsageError } from '../../errors.js';

/** Longest line (one JSONL record, one CSV record) read: a longer one is an error naming file:line, not a memory blow-up. */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

const CHUNK_BYTES = 1024 * 1024;

export interface Line {
  /** 1-based line number. */
  n: number;
  text: string;
}

/** What a too-long line or record is called in the error; `where` is "file:line". */
export const tooLong = (where: string, what = 'line', max = MAX_LINE_BYTES): UsageError =>
  new UsageError([`${where}: ${what} longer than ${max / 1024 / 1024} MiB (the limit for one record)`]);

/** The lines of a string, split on "\n" like String.split (a trailing newline gives a last empty line). */
export function* textLines(text: string, file: string, max = MAX_LINE_BYTES): Generator<Line> {
  let n = 1;
  let start = 0;
  for (;;) {
    const end = text.indexOf('\n', start);
    const stop = end < 0 ? text.length : end;
    // Bytes >= UTF-16 code units, so a line under `max` code units may still be over in bytes only when non-ASCII: close enough for a guard.
    if (stop - start > max) throw tooLong(`${file}:${n}`);
    yield { n, text: text.slice(start, stop) };
    if (end < 0) return;
    start = end + 1;
    n++;
  }
}

/**
 * The lines of an open file, read from its current position in 1 MiB chunks and decoded as UTF-8 one line at a time
 * (so a character split across chunks is never broken). A line over `max` bytes throws as soon as it is seen.
 */
export function* fileLines(fd: number, file: string, max = MAX_LINE_BYTES, chunkBytes = CHUNK_BYTES): Generator<Line> {
  const buf = Buffer.allocUnsafe(chunkBytes);
  let pending: Buffer[] = [];
  let pendingLen = 0;
  let n = 1;
  for (;;) {
    const got = readSync(fd, buf, 0, buf.length, null);
    if (got === 0) break;
    let pos = 0;
    while (pos < got) {
      const nl = buf.indexOf(10, pos);
      const stop = nl < 0 || nl >= got ? got : nl;
      if (pendingLen + stop - pos > max) throw tooLong(`${file}:${n}`);
      if (stop === got) {
        // The line goes on in the next chunk: keep a copy of this part (the buffer is reused).
        pending.push(Buffer.from(buf.subarray(pos, got)));
        pendingLen += got - pos;
        break;
      }
      const text = pendingLen
        ? Buffer.concat([...pending, buf.subarray(pos, stop)]).toString('utf8')
        : buf.toString('utf8', pos, stop);
      pending = [];
      pendingLen = 0;
      yield { n, text };
      n++;
      pos = stop + 1;
    }
  }
  yield { n, text: Buffer.concat(pending).toString('utf8') };
}

/** The bytes of an open file in chunks from its current position (one buffer, reused: copy what must outlive a step). */
export function* fileChunks(fd: number, chunkBytes = CHUNK_BYTES): Generator<Buffer> {
  const buf = Buffer.allocUnsafe(chunkBytes);
  for (;;) {
    const got = readSync(fd, buf, 0, buf.length, null);
    if (got === 0) return;
    yield buf.subarray(0, got);
  }
}
