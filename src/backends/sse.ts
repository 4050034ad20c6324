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
