// Reading a telemetry jsonl (server_metrics.jsonl, gpu_metrics.jsonl) line by line in fixed chunks: never one string for the file.
import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

/** Longest line kept: one scrape line is a few KiB to tens of KiB; anything past this is not a sample. */
export const MAX_JSONL_LINE_CHARS = 32 << 20;

export interface LineReadOptions {
  /** Bytes read per call (default 1 MiB). */
  chunkBytes?: number;
  /** Lines longer than this are skipped and counted (default MAX_JSONL_LINE_CHARS). */
  maxLineChars?: number;
}

/**
 * Calls `fn` with each non-empty line of `path` in file order, reading `chunkBytes` at a time, so a 24 h run's file
 * (hundreds of MB, past V8's 512 MB string limit) is never held as one string. Returns how many lines were read and
 * how many were skipped for their length; {0, 0} when the file is absent.
 */
export function forEachLine(path: string, fn: (line: string) => void, o: LineReadOptions = {}): { lines: number; tooLong: number } {
  const chunkBytes = o.chunkBytes ?? 1 << 20;
  const maxLine = o.maxLineChars ?? MAX_JSONL_LINE_CHARS;
  let lines = 0;
  let tooLong = 0;
  if (!existsSync(path)) return { lines, tooLong };
  const fd = openSync(path, 'r');
  const buf = Buffer.allocUnsafe(chunkBytes);
  const dec = new StringDecoder('utf8');
  let parts: string[] = [];
  let partLen = 0;
  let skipping = false;
  const emit = (tail: string): void => {
    if (skipping || partLen + tail.length > maxLine) tooLong++;
    else {
      const line = parts.length ? parts.join('') + tail : tail;
      if (line.trim()) {
        lines++;
        fn(line);
      }
    }
    parts = [];
    partLen = 0;
    skipping = false;
  };
  const take = (text: string): void => {
    let at = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', at)) {
      emit(text.slice(at, nl));
      at = nl + 1;
    }
    const rest = text.slice(at);
    if (!rest || skipping) return;
    if (partLen + rest.length > maxLine) {
      // Past the cap: what is held is dropped now, and the rest of the line up to its newline.
      parts = [];
      partLen = 0;
      skipping = true;
      return;
    }
    parts.push(rest);
    partLen += rest.length;
  };
  try {
    for (let n = readSync(fd, buf, 0, chunkBytes, null); n > 0; n = readSync(fd, buf, 0, chunkBytes, null)) take(dec.write(buf.subarray(0, n)));
    take(dec.end());
    if (partLen || skipping) emit('');
  } finally {
    closeSync(fd);
  }
  return { lines, tooLong };
}

/**
 * Keeps an evenly spaced subset of a stream of at most about 2 × `max` items, in one pass and bounded memory: every
 * item until 2 × max, then every 2nd, 4th, ... (the kept ones stay multiples of the stride); the last item is always
 * kept. For charts of a day of samples (report.html), not for figures (those are summarized from every sample).
 */
export class Thinner<T> {
  private kept: T[] = [];
  private stride = 1;
  private i = 0;
  private tail: T | undefined;
  constructor(private readonly max: number) {}
  add(x: T): void {
    if (this.i++ % this.stride === 0) {
      this.kept.push(x);
      this.tail = undefined;
      if (this.kept.length > 2 * this.max) {
        this.kept = this.kept.filter((_, k) => k % 2 === 0);
        this.stride *= 2;
      }
    } else this.tail = x;
  }
  result(): T[] {
    return this.tail === undefined ? this.kept : [...this.kept, this.tail];
  }
}
