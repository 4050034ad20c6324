// Byte-level NDJSON parser (one JSON value per line): feed raw chunks, get complete lines; survives any split.
//
// Same discipline as sse.ts: lines are found by scanning bytes for LF, so a line split anywhere (inside a
// multi-byte UTF-8 character too) is reassembled before it is decoded; an unfinished line is kept as a list of
// pieces joined once when it ends. A trailing CR is dropped (CRLF line ends), a blank line is delivered as ''
// (a keep-alive: the caller records it as a heartbeat), and a line longer than `maxLineBytes` stops the parser (`overflow` says why).
import { DEFAULT_MAX_LINE_BYTES } from './sse.js';

export type NdjsonListener = (line: string) => void;

const LF = 0x0a;
const CR = 0x0d;
const decoder = new TextDecoder('utf-8', { fatal: false });

export class NdjsonParser {
  private carry: Uint8Array[] = []; // pieces of an unfinished line (copies)
  private carryBytes = 0;
  /** Count of bytes received, for diagnostics. */
  bytes = 0;
  /** Set when a line exceeded maxLineBytes; push() then ignores everything. */
  overflow: string | null = null;

  constructor(
    private readonly onLine: NdjsonListener,
    private readonly maxLineBytes = DEFAULT_MAX_LINE_BYTES,
  ) {}

  push(chunk: Uint8Array): void {
    if (this.overflow) return;
    this.bytes += chunk.length;
    const n = chunk.length;
    let start = 0;
    let i = chunk.indexOf(LF);
    while (i >= 0) {
      let line: Uint8Array = chunk.subarray(start, i);
      if (this.carryBytes + line.length > this.maxLineBytes) return this.tooLong();
      if (this.carry.length > 0) {
        this.carry.push(line);
        line = Buffer.concat(this.carry, this.carryBytes + line.length);
        this.carry = [];
        this.carryBytes = 0;
      }
      this.line(line);
      start = i + 1;
      i = start < n ? chunk.indexOf(LF, start) : -1;
    }
    if (start < n) {
      if (this.carryBytes + n - start > this.maxLineBytes) return this.tooLong();
      // Copy: the caller may reuse its buffer.
      this.carry.push(Buffer.from(chunk.subarray(start)));
      this.carryBytes += n - start;
    }
  }

  /** Call at end of stream: a last line without its LF is delivered anyway. */
  end(): void {
    if (this.overflow || this.carry.length === 0) return;
    const line = Buffer.concat(this.carry, this.carryBytes);
    this.carry = [];
    this.carryBytes = 0;
    this.line(line);
  }

  private tooLong(): void {
    this.overflow = `an NDJSON line longer than ${this.maxLineBytes} bytes (--max-line-bytes)`;
    this.carry = [];
    this.carryBytes = 0;
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
