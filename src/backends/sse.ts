// Byte-level Server-Sent Events parser: feed raw chunks, get complete events; survives any split.
//
// Lines are found by scanning bytes for LF/CR (line-splitter.ts), so an event split across TCP reads anywhere — including
// inside a multi-byte UTF-8 character — is reassembled before any decoding happens. Only the bytes of a
// completed `data:` line are decoded. Follows the WHATWG EventSource rules: CRLF, CR or LF line ends,
// multi-line `data:` joined with "\n", `:` comments, `event:`/`id:`/`retry:` fields, blank line dispatches.
// A line or event longer than `maxLineBytes` stops the parser (`overflow` says why).

import { LineSplitter } from './line-splitter.js';

export type SseEvent =
  | { type: 'data'; data: string; event: string | undefined }
  | { type: 'comment'; text: string };

export type SseListener = (ev: SseEvent) => void;

const COLON = 0x3a;
const SPACE = 0x20;
const DATA = [0x64, 0x61, 0x74, 0x61];
const EVENT = [0x65, 0x76, 0x65, 0x6e, 0x74];
/** Uint8Array's own indexOf (a builtin), cheaper than Buffer's on short lines. */
const indexOf = Uint8Array.prototype.indexOf;

/** The line's field name (its bytes before the colon at `colon`) is `name`. */
function isField(line: Uint8Array, colon: number, name: readonly number[]): boolean {
  if (colon !== name.length) return false;
  for (let i = 0; i < colon; i++) if (line[i] !== name[i]) return false;
  return true;
}
const decoder = new TextDecoder('utf-8', { fatal: false });

/** Default cap on one SSE line (and on the data of one event), in bytes: --max-line-bytes. */
export const DEFAULT_MAX_LINE_BYTES = 8 * 1024 * 1024;

export class SseParser {
  /** CR, LF and CRLF end a line; a line longer than maxLineBytes stops the splitter. */
  private readonly lines: LineSplitter;
  private dataBytes = 0;
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
  ) {
    this.lines = new LineSplitter((line) => this.line(line), maxLineBytes, 'cr-lf');
  }

  push(chunk: Uint8Array): void {
    if (this.overflow) return;
    this.bytes += chunk.length;
    this.lines.push(chunk);
    if (this.lines.tooLong) this.tooLong('line');
  }

  private tooLong(what: 'line' | 'event'): void {
    this.overflow = `an SSE ${what} longer than ${this.maxLineBytes} bytes (--max-line-bytes)`;
    this.lines.stop();
    this.dataLines = [];
  }

  /** Call at end of stream: an event not terminated by a blank line is dispatched anyway (servers often omit it). */
  end(): void {
    if (this.overflow) return;
    this.lines.end();
    if (this.overflow) return;
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
    let colon = indexOf.call(line, COLON);
    if (colon < 0) colon = len;
    // `data` and `event` are matched on their bytes; other names (id, retry, unknown) are decoded only when a BOM
    // leads the line (TextDecoder drops it, so "\uFEFFdata" reads as data: kept as it was).
    const field = isField(line, colon, DATA) ? 'data' : isField(line, colon, EVENT) ? 'event' : line[0] === 0xef ? decoder.decode(line.subarray(0, colon)) : '';
    if (field !== 'data' && field !== 'event') return; // id / retry / unknown fields carry nothing we measure
    let vs = colon + 1;
    if (vs < len && line[vs] === SPACE) vs++;
    const value = vs < len ? decoder.decode(line.subarray(vs)) : '';
    if (field === 'data') {
      this.dataBytes += len - vs + 1;
      if (this.dataBytes > this.maxLineBytes + 1) return this.tooLong('event');
      this.dataLines.push(value);
      this.hasData = true;
    } else this.eventName = value;
  }

  private dispatch(): void {
    if (this.hasData) {
      const data = this.dataLines.length === 1 ? this.dataLines[0] : this.dataLines.join('\n');
      this.onEvent({ type: 'data', data, event: this.eventName });
    }
    if (this.dataLines.length > 0) this.dataLines.length = 0; // reused: one array per stream, not per event
    this.dataBytes = 0;
    this.hasData = false;
    this.eventName = undefined;
  }
}
