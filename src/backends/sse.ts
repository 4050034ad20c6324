// Byte-level Server-Sent Events parser: feed raw chunks, get complete events; survives any split.
//
// Lines are found by scanning bytes for LF/CR, so an event split across TCP reads anywhere — including
// inside a multi-byte UTF-8 character — is reassembled before any decoding happens. Only the bytes of a
// completed `data:` line are decoded. Follows the WHATWG EventSource rules: CRLF, CR or LF line ends,
// multi-line `data:` joined with "\n", `:` comments, `event:`/`id:`/`retry:` fields, blank line dispatches.
// An unfinished line is kept as a list of pieces joined once when it ends (linear in its length, however many
// reads it spans), and a line or event longer than `maxLineBytes` stops the parser (`overflow` says why).

export type SseEvent =
  | { type: 'data'; data: string; event: string | undefined }
  | { type: 'comment'; text: string };

export type SseListener = (ev: SseEvent) => void;

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;
const decoder = new TextDecoder('utf-8', { fatal: false });

/** Default cap on one SSE line (and on the data of one event), in bytes: --max-line-bytes. */
export const DEFAULT_MAX_LINE_BYTES = 8 * 1024 * 1024;

export class SseParser {
  private carry: Uint8Array[] = []; // pieces of an unfinished line (copies)
  private carryBytes = 0;
  private dataBytes = 0;
  private lastWasCR = false; // a CR ended the previous chunk: a leading LF belongs to it
  private dataLines: string[] = [];
  private hasData = false;
  private eventName: string | undefined;
  /** Count of bytes received, for diagnostics. */
  bytes = 0;
  /** Set when a line or an event's data exceeded maxLineBytes; push() then ignores everything. */
  overflow: string | null = null;

  constructor(
    private readonly onEvent: SseListener,
    private readonly maxLineBytes = DEFAULT_MAX_LINE_BYTES,
  ) {}

  push(chunk: Uint8Array): void {
    if (this.overflow) return;
    this.bytes += chunk.length;
    let start = 0;
    let i = 0;
    if (this.lastWasCR && chunk.length > 0 && chunk[0] === LF) {
      start = i = 1;
    }
    this.lastWasCR = false;
    const n = chunk.length;
    for (; i < n; i++) {
      const b = chunk[i];
      if (b !== LF && b !== CR) continue;
      let line: Uint8Array = chunk.subarray(start, i);
      if (this.carryBytes + line.length > this.maxLineBytes) return this.tooLong('line');
      if (this.carry.length > 0) {
        this.carry.push(line);
        line = Buffer.concat(this.carry, this.carryBytes + line.length);
        this.carry = [];
        this.carryBytes = 0;
      }
      this.line(line);
      if (this.overflow) return;
      if (b === CR) {
        if (i + 1 < n) {
          if (chunk[i + 1] === LF) i++;
        } else this.lastWasCR = true;
      }
      start = i + 1;
    }
    if (start < n) {
      if (this.carryBytes + n - start > this.maxLineBytes) return this.tooLong('line');
      // Copy: the caller may reuse its buffer.
      this.carry.push(Buffer.from(chunk.subarray(start)));
      this.carryBytes += n - start;
    }
  }

  private tooLong(what: 'line' | 'event'): void {
    this.overflow = `an SSE ${what} longer than ${this.maxLineBytes} bytes (--max-line-bytes)`;
    this.carry = [];
    this.carryBytes = 0;
    this.dataLines = [];
  }

  /** Call at end of stream: an event not terminated by a blank line is dispatched anyway (servers often omit it). */
  end(): void {
    if (this.overflow) return;
    if (this.carry.length > 0) {
      const line = Buffer.concat(this.carry, this.carryBytes);
      this.carry = [];
      this.carryBytes = 0;
      this.line(line);
      if (this.overflow) return;
    }
    this.dispatch();
  }

  private line(line: Uint8Array): void {
    const len = line.length;
    if (len === 0) {
      this.dispatch();
      return;
    }
    if (line[0] === COLON) {
      let s = 1;
      if (len > 1 && line[1] === SPACE) s = 2;
      this.onEvent({ type: 'comment', text: decoder.decode(line.subarray(s)) });
      return;
    }
    let colon = line.indexOf(COLON);
    if (colon < 0) colon = len;
    const field = decoder.decode(line.subarray(0, colon));
    let vs = colon + 1;
    if (vs < len && line[vs] === SPACE) vs++;
    const value = vs <= len ? decoder.decode(line.subarray(vs)) : '';
    if (field === 'data') {
      this.dataBytes += len - vs + 1;
      if (this.dataBytes > this.maxLineBytes + 1) return this.tooLong('event');
      this.dataLines.push(value);
      this.hasData = true;
    } else if (field === 'event') {
      this.eventName = value;
    }
    // id / retry / unknown fields carry nothing we measure.
  }

  private dispatch(): void {
    if (this.hasData) {
      const data = this.dataLines.length === 1 ? this.dataLines[0] : this.dataLines.join('\n');
      this.onEvent({ type: 'data', data, event: this.eventName });
    }
    this.dataLines = [];
    this.dataBytes = 0;
    this.hasData = false;
    this.eventName = undefined;
  }
}
