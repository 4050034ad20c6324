// Byte-level line splitting shared by the SSE and NDJSON parsers: feed raw chunks, get whole lines; survives any split.
//
// Lines are found by scanning bytes, so a line split across reads anywhere (inside a multi-byte UTF-8 character
// too) is reassembled before anything is decoded. An unfinished line is kept as a list of pieces (copies: the
// caller may reuse its buffer) joined once when it ends, linear in its length however many reads it spans.
// Two line-end rules, the protocols' own: SSE ends a line at CR, LF or CRLF (WHATWG EventSource); NDJSON at LF
// only (a trailing CR stays in the line, for the NDJSON reader to drop).

const LF = 0x0a;
const CR = 0x0d;
/** Uint8Array's own indexOf (a builtin), not Buffer's (a call into C++ that costs more than the search on short chunks). */
const indexOf = Uint8Array.prototype.indexOf;
const EMPTY = new Uint8Array(0);

export type LineEnds = 'cr-lf' | 'lf';

export class LineSplitter {
  private carry: Uint8Array[] = [];
  private carryBytes = 0;
  /** A CR ended the previous chunk: a leading LF belongs to it (cr-lf only). */
  private lastWasCR = false;
  /** Set when a line was longer than maxLineBytes, or the owner stopped the splitter: push() and end() then do nothing. */
  stopped = false;
  /** Set when a line was longer than maxLineBytes. */
  tooLong = false;

  /** `onLine` gets each line without its line end, as a view valid only during the call. */
  constructor(
    private readonly onLine: (line: Uint8Array) => void,
    private readonly maxLineBytes: number,
    private readonly ends: LineEnds,
  ) {}

  push(chunk: Uint8Array): void {
    if (this.stopped) return;
    if (this.ends === 'lf') this.pushLf(chunk);
    else this.pushCrLf(chunk);
  }

  /** At end of stream: a last line without its line end is delivered anyway. */
  end(): void {
    if (this.stopped || this.carry.length === 0) return;
    const line = Buffer.concat(this.carry, this.carryBytes);
    this.carry = [];
    this.carryBytes = 0;
    this.onLine(line);
  }

  /** The owner found the stream unreadable (an SSE event too long): drop what is kept, read nothing more. */
  stop(): void {
    this.stopped = true;
    this.carry = [];
    this.carryBytes = 0;
  }

  private pushCrLf(chunk: Uint8Array): void {
    let start = 0;
    if (this.lastWasCR && chunk.length > 0 && chunk[0] === LF) start = 1;
    this.lastWasCR = false;
    const n = chunk.length;
    // Native byte searches, not a JS loop over every byte; `cr` is the next CR at or after `start` (-1: none left).
    let cr = indexOf.call(chunk, CR, start);
    while (start < n) {
      if (cr >= 0 && cr < start) cr = indexOf.call(chunk, CR, start);
      const lf = indexOf.call(chunk, LF, start);
      let i = lf;
      if (cr >= 0 && (lf < 0 || cr < lf)) i = cr;
      if (i < 0) break;
      if (!this.complete(chunk, start, i)) return;
      if (i === cr) {
        if (i + 1 < n) {
          if (chunk[i + 1] === LF) i++;
        } else this.lastWasCR = true;
      }
      start = i + 1;
    }
    this.keep(chunk, start);
  }

  private pushLf(chunk: Uint8Array): void {
    const n = chunk.length;
    let start = 0;
    let i = indexOf.call(chunk, LF);
    while (i >= 0) {
      if (!this.complete(chunk, start, i)) return;
      start = i + 1;
      i = start < n ? indexOf.call(chunk, LF, start) : -1;
    }
    this.keep(chunk, start);
  }

  /** A line end was found at `end`: deliver the whole line (`chunk[start, end)` after what is kept); false when the splitter stopped. */
  private complete(chunk: Uint8Array, start: number, end: number): boolean {
    const len = end - start;
    if (this.carryBytes + len > this.maxLineBytes) return this.overflow();
    let line: Uint8Array;
    if (this.carry.length > 0) {
      this.carry.push(chunk.subarray(start, end));
      line = Buffer.concat(this.carry, this.carryBytes + len);
      this.carry = [];
      this.carryBytes = 0;
    } else line = len === 0 ? EMPTY : chunk.subarray(start, end); // blank lines (one per SSE event) share one view
    this.onLine(line);
    return !this.stopped;
  }

  /** Keep the unfinished tail of `chunk` from `start`. */
  private keep(chunk: Uint8Array, start: number): void {
    const n = chunk.length;
    if (start >= n) return;
    if (this.carryBytes + n - start > this.maxLineBytes) {
      this.overflow();
      return;
    }
    this.carry.push(Buffer.from(chunk.subarray(start)));
    this.carryBytes += n - start;
  }

  private overflow(): false {
    this.tooLong = true;
    this.stop();
    return false;
  }
}
