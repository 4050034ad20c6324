// Byte-level NDJSON parser (one JSON value per line): feed raw chunks, get complete lines; survives any split.
//
// The same line splitter as sse.ts (line-splitter.ts), with NDJSON's rule: LF ends a line, so a line split
// anywhere (inside a multi-byte UTF-8 character too) is reassembled before it is decoded. A trailing CR is dropped
// (CRLF line ends), a blank line is delivered as '' (a keep-alive: the caller records it as a heartbeat), and a line longer than `maxLineBytes` stops the parser (`overflow` says why).
import { DEFAULT_MAX_LINE_BYTES } from './sse.js';
import { LineSplitter } from './line-splitter.js';

export type NdjsonListener = (line: string) => void;

const CR = 0x0d;
const decoder = new TextDecoder('utf-8', { fatal: false });

export class NdjsonParser {
  /** LF ends a line (a CR before it is dropped by line()); a line longer than maxLineBytes stops the splitter. */
  private readonly lines: LineSplitter;
  /** Count of bytes received, for diagnostics. */
  bytes = 0;
  /** Set when a line exceeded maxLineBytes; push() then ignores everything. */
  overflow: string | null = null;

  constructor(
    private readonly onLine: NdjsonListener,
    private readonly maxLineBytes = DEFAULT_MAX_LINE_BYTES,
  ) {
    this.lines = new LineSplitter((line) => this.line(line), maxLineBytes, 'lf');
  }

  push(chunk: Uint8Array): void {
    if (this.overflow) return;
    this.bytes += chunk.length;
    this.lines.push(chunk);
    if (this.lines.tooLong) this.overflow = `an NDJSON line longer than ${this.maxLineBytes} bytes (--max-line-bytes)`;
  }

  /** Call at end of stream: a last line without its LF is delivered anyway. */
  end(): void {
    if (this.overflow) return;
    this.lines.end();
  }

  private line(line: Uint8Array): void {
    let len = line.length;
    if (len > 0 && line[len - 1] === CR) len--;
    // Whitespace-only lines carry no value: keep-alive newlines some gateways send.
    let s = 0;
    while (s < len && (line[s] === 0x20 || line[s] === 0x09)) s++;
    this.onLine(s === len ? '' : decoder.decode(line.subarray(0, len)));
  }
}

/**
 * Media types an NDJSON backend reads line by line: the NDJSON/JSON Lines names, plain JSON (ollama's older
 * servers and many gateways label streams so) and none at all. text/event-stream is read as SSE instead.
 */
const NDJSON_TYPES = new Set(['application/x-ndjson', 'application/ndjson', 'application/jsonl', 'application/x-jsonlines', 'application/jsonlines', 'application/json', 'text/plain', '']);

export const isNdjsonType = (media: string): boolean => NDJSON_TYPES.has(media);
