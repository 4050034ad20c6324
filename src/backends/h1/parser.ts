// HTTP/1.x response parser: status line, headers, and body framing (chunked, Content-Length, until close).
//
// Written for the load generator's hot path (see ./pool.ts for why not undici): bytes are scanned in place and each
// piece of body is handed on as a subarray of the buffer that arrived, so a streamed token costs one slice and
// a few comparisons. The head (status line and headers, once per response) is decoded as latin1 strings; its
// cost is per request, not per event. State survives any split of the input, down to one byte per push().
// Framing follows RFC 9112 §6.3: no body for HEAD, 1xx, 204, 304; a Transfer-Encoding not ending in chunked, or no
// length at all, means the body runs until the server closes.
// Strictness is that of Node's own parser (llhttp, which undici and node:http use), so both transports and the
// user's Node clients judge a response alike (docs/reliability.md): lines end in CRLF, no obs-fold, no CR inside a
// field, one Content-Length of digits only, never both Transfer-Encoding and Content-Length, and no unsolicited
// 100 Continue (this client never sends Expect). Other 1xx responses (103 Early Hints) are skipped.
import { H1Error, closedEarly } from './errors.js';
import { MAX_RESPONSE_HEAD_BYTES } from '../transport-errors.js';

export interface ParserSink {
  onHead(status: number, headers: Record<string, string>): void;
  onBody(chunk: Buffer): void;
  /** The response is complete; `extra` is true when bytes followed it in the same read (not allowed without pipelining). */
  onComplete(extra: boolean): void;
}

const HEAD: number = 0;
const BODY_LENGTH: number = 1;
const CHUNK_SIZE: number = 2; // hex digits (no whitespace: llhttp refuses it)
const CHUNK_EXT: number = 3; // ";ext" up to the LF
const CHUNK_SIZE_LF: number = 4; // a CR ended the size line: an LF must follow
const CHUNK_DATA: number = 5;
const CHUNK_DATA_END: number = 6; // CR LF after chunk data
const CHUNK_DATA_LF: number = 7;
const TRAILER: number = 8; // trailer lines, ended by an empty line (trailer fields are read and dropped)
const BODY_CLOSE: number = 9;
const DONE: number = 10;
/** Stopped by the owner (aborted, destroyed): push() consumes nothing more. */
const DEAD: number = 11;

const LF = 0x0a;
const CR = 0x0d;
const SP = 0x20;
const HT = 0x09;
const SEMI = 0x3b;

const MAX_HEAD_BYTES = MAX_RESPONSE_HEAD_BYTES;
const MAX_CHUNK_LINE_BYTES = 4096;
const MAX_TRAILER_BYTES = 64 * 1024;
/** Largest chunk size accepted: keeps `size * 16 + digit` exact in a double. */
const MAX_CHUNK_SIZE = 2 ** 48;

const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: .*)?$/;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Bytes a field line may not hold (RFC 9110 §5.5 allows HT, SP, VCHAR, obs-text); llhttp rejects them too. */
const CTL = /[\x00-\x08\x0a-\x1f\x7f]/;
const CTL_ALL = /[\x00-\x08\x0a-\x1f\x7f]/g;

/** Hex value of a byte, or -1. */
function hexValue(b: number): number {
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  const l = b | 0x20;
  if (l >= 0x61 && l <= 0x66) return l - 0x61 + 10;
  return -1;
}

export class ResponseParser {
  private state = DEAD;
  private isHead = false;
  /** Bytes of an unfinished head line. */
  private carry: Buffer | null = null;
  private headBytes = 0;
  private sawStatus = false;
  /** Content-Length header lines seen in this head. */
  private lengthFields = 0;
  /** The trailer line being read ended in CR. */
  private sawCr = false;
  /** Bytes left in the current Content-Length body or chunk; digits of the chunk size being read. */
  private remaining = 0;
  private sawDigit = false;
  private lineBytes = 0;

  status = 0;
  versionMinor = 1;
  headers: Record<string, string> = {};
  /** Whether the connection may carry another request after this response (valid once the head is parsed). */
  keepAlive = true;
  /** Body bytes handed on so far, for error messages. */
  bodyBytes = 0;

  constructor(
    private readonly sink: ParserSink,
    private readonly where: string,
  ) {}

  /** Expect a new response; `isHead` for the answer to a HEAD request (never has a body). */
  reset(isHead: boolean): void {
    this.state = HEAD;
    this.isHead = isHead;
    this.carry = null;
    this.headBytes = 0;
    this.sawStatus = false;
    this.lengthFields = 0;
    this.status = 0;
    this.versionMinor = 1;
    this.headers = {};
    this.keepAlive = true;
    this.bodyBytes = 0;
  }

  stop(): void {
    this.state = DEAD;
    this.carry = null;
  }

  get inHead(): boolean {
    return this.state === HEAD;
  }

  /** Not one byte of the response has arrived yet. */
  get untouched(): boolean {
    return this.state === HEAD && this.headBytes === 0;
  }

  get idle(): boolean {
    return this.state === DONE || this.state === DEAD;
  }

  /** Parse buf[start, end). Throws H1Error on a malformed response. Stops at the end of the response. */
  push(buf: Buffer, start: number, end: number): void {
    let i = start;
    while (i < end) {
      switch (this.state) {
        case HEAD:
          i = this.head(buf, i, end);
          if (this.state === DONE) return this.complete(i < end); // a response without a body
          break;
        case CHUNK_DATA:
        case BODY_LENGTH: {
          const n = Math.min(this.remaining, end - i);
          this.remaining -= n;
          this.bodyBytes += n;
          const j = i + n;
          this.sink.onBody(i === 0 && j === buf.length ? buf : buf.subarray(i, j));
          i = j;
          if (this.state === DEAD) return;
          if (this.remaining === 0) {
            if (this.state === BODY_LENGTH) return this.complete(i < end);
            this.state = CHUNK_DATA_END;
          }
          break;
        }
        case CHUNK_SIZE:
        case CHUNK_EXT:
        case CHUNK_SIZE_LF:
          i = this.chunkLine(buf, i, end);
          if (this.state === DONE) return this.complete(i < end);
          break;
        case CHUNK_DATA_END:
          if (buf[i++] !== CR) throw this.malformed('chunk data not followed by CRLF');
          this.state = CHUNK_DATA_LF;
          break;
        case CHUNK_DATA_LF:
          if (buf[i++] !== LF) throw this.malformed('chunk data not followed by CRLF');
          this.state = CHUNK_SIZE;
          this.startChunkLine();
          break;
        case TRAILER:
          i = this.trailer(buf, i, end);
          if (this.state === DONE) return this.complete(i < end);
          break;
        case BODY_CLOSE:
          this.bodyBytes += end - i;
          this.sink.onBody(i === 0 && end === buf.length ? buf : buf.subarray(i, end));
          return;
        default: // DEAD: stopped by the owner
          return;
      }
    }
  }

  /** The server closed its side. Completes a close-delimited body; throws if the response was cut short. */
  finish(): void {
    if (this.state === BODY_CLOSE) return this.complete(false);
    if (this.state === DONE || this.state === DEAD) return;
    throw closedEarly(this.state === HEAD ? 'headers' : 'body', this.where, this.bodyBytes);
  }

  private complete(extra: boolean): void {
    this.state = DONE;
    this.sink.onComplete(extra);
  }

  private malformed(what: string): H1Error {
    const phase = this.state === HEAD ? 'headers' : 'body';
    this.state = DEAD;
    return new H1Error('E_MALFORMED_RESPONSE', phase, `malformed response from ${this.where}: ${what}`);
  }

  // ---- head ---------------------------------------------------------------------------------------------------

  private head(buf: Buffer, i: number, end: number): number {
    let j = i;
    while (j < end && buf[j] !== LF) j++;
    this.headBytes += j - i + 1;
    if (this.headBytes > MAX_HEAD_BYTES) throw this.malformed(`response head larger than ${MAX_HEAD_BYTES} bytes`);
    if (j === end) {
      const rest = buf.subarray(i, end);
      // Copy: the buffer may be reused for the next read.
      this.carry = this.carry ? Buffer.concat([this.carry, rest]) : Buffer.from(rest);
      return end;
    }
    let line: string;
    if (this.carry) {
      line = Buffer.concat([this.carry, buf.subarray(i, j)]).toString('latin1');
      this.carry = null;
    } else line = buf.toString('latin1', i, j);
    if (line.charCodeAt(line.length - 1) !== CR) throw this.malformed(`line not ended by CRLF (bare LF) in "${line.slice(0, 80)}"`);
    line = line.slice(0, -1);
    if (line.includes('\r')) throw this.malformed(`CR inside a header line "${line.slice(0, 80)}"`);
    if (this.sawStatus && CTL.test(line)) throw this.malformed(`control character in header line "${line.slice(0, 80).replace(CTL_ALL, '?')}"`);
    this.headLine(line);
    return j + 1;
  }

  private headLine(line: string): void {
    if (!this.sawStatus) {
      if (line === '') return; // tolerate empty lines before the status line (RFC 9112 §2.2)
      const m = STATUS_LINE.exec(line);
      if (!m) throw this.malformed(`bad status line "${line.slice(0, 80)}"`);
      this.versionMinor = Number(m[1]);
      this.status = Number(m[2]);
      if (this.status < 100) throw this.malformed(`bad status code in "${line.slice(0, 80)}"`);
      this.sawStatus = true;
      return;
    }
    if (line === '') return this.endOfHead();
    const c0 = line.charCodeAt(0);
    // RFC 9112 §5.2 lets a user agent unfold obs-fold; llhttp refuses it, and so do we (see the file comment).
    if (c0 === SP || c0 === HT) throw this.malformed(`folded header line (obs-fold) "${line.slice(0, 80)}"`);
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon) : '';
    if (!TOKEN.test(name)) throw this.malformed(`bad header line "${line.slice(0, 80)}"`);
    const key = name.toLowerCase();
    const value = line.slice(colon + 1).trim();
    const h = this.headers;
    // Content-Type is a singleton (RFC 9110 §8.3): an identical repeat is the same value, not a list (content.ts).
    if (h[key] === undefined) h[key] = value;
    else if (!(key === 'content-type' && h[key] === value)) h[key] = `${h[key]}, ${value}`;
    if (key === 'content-length' && ++this.lengthFields > 1) throw this.malformed('Content-Length sent more than once');
  }

  private endOfHead(): void {
    const status = this.status;
    if (status < 200) {
      if (status === 101) throw new H1Error('E_UNSUPPORTED', 'headers', `${this.where} answered 101 Switching Protocols, which this client does not support`);
      if (status === 100) throw this.malformed('unsolicited 100 Continue (the request sent no Expect: 100-continue)');
      // Other 1xx informational responses (103 Early Hints): the real response follows.
      this.sawStatus = false;
      this.headers = {};
      this.lengthFields = 0;
      return;
    }
    const h = this.headers;
    const conn = h['connection']?.toLowerCase();
    this.keepAlive = this.versionMinor === 1 ? !conn?.includes('close') : !!conn?.includes('keep-alive');
    const te = h['transfer-encoding'];
    const cl = h['content-length'];
    let next: number;
    if (this.isHead || status === 204 || status === 304) next = DONE;
    else if (te !== undefined) {
      const codings = te.toLowerCase().split(',');
      // RFC 9112 §6.1: both headers "ought to be handled as an error" (a smuggling sign); llhttp rejects it.
      if (cl !== undefined) throw this.malformed('both Transfer-Encoding and Content-Length');
      next = codings[codings.length - 1].trim() === 'chunked' ? CHUNK_SIZE : BODY_CLOSE;
      if (next === BODY_CLOSE) this.keepAlive = false;
    } else if (cl !== undefined) {
      if (!/^\d{1,15}$/.test(cl)) throw this.malformed(`bad Content-Length "${cl.slice(0, 40)}"`);
      this.remaining = Number(cl);
      next = this.remaining === 0 ? DONE : BODY_LENGTH;
    } else {
      next = BODY_CLOSE;
      this.keepAlive = false;
    }
    this.state = next;
    if (next === CHUNK_SIZE) this.startChunkLine();
    // The sink may stop us from here (an abort in onHead); push() sees DEAD, or DONE for a response without a body.
    this.sink.onHead(status, h);
  }

  // ---- chunked ------------------------------------------------------------------------------------------------

  private startChunkLine(): void {
    this.remaining = 0;
    this.sawDigit = false;
    this.lineBytes = 0;
  }

  /** Consume bytes of a chunk-size line; on its LF switch to CHUNK_DATA, TRAILER (size 0). */
  private chunkLine(buf: Buffer, i: number, end: number): number {
    while (i < end) {
      const b = buf[i++];
      if (++this.lineBytes > MAX_CHUNK_LINE_BYTES) throw this.malformed(`chunk-size line longer than ${MAX_CHUNK_LINE_BYTES} bytes`);
      if (this.state === CHUNK_SIZE_LF) {
        if (b !== LF) throw this.malformed('CR not followed by LF in chunk-size line');
        return this.endChunkLine(i);
      }
      if (this.state === CHUNK_EXT) {
        if (b === CR) this.state = CHUNK_SIZE_LF;
        else if (b === LF) throw this.malformed('chunk-size line not ended by CRLF (bare LF)');
        continue; // chunk extensions carry nothing we use
      }
      const v = hexValue(b);
      if (v >= 0) {
        this.remaining = this.remaining * 16 + v;
        if (this.remaining > MAX_CHUNK_SIZE) throw this.malformed('chunk size too large');
        this.sawDigit = true;
      } else if (b === CR) this.state = CHUNK_SIZE_LF;
      else if (b === LF) throw this.malformed('chunk-size line not ended by CRLF (bare LF)');
      else if (b === SEMI) this.state = CHUNK_EXT;
      else throw this.malformed(`bad byte 0x${b.toString(16)} in chunk-size line`);
    }
    return i;
  }

  private endChunkLine(i: number): number {
    if (!this.sawDigit) throw this.malformed('chunk-size line without a size');
    if (this.remaining === 0) {
      this.state = TRAILER;
      this.lineBytes = 0;
      this.sawCr = false;
      this.headBytes = 0;
    } else this.state = CHUNK_DATA;
    return i;
  }

  private trailer(buf: Buffer, i: number, end: number): number {
    while (i < end) {
      const b = buf[i++];
      this.headBytes++;
      if (b === LF) {
        if (!this.sawCr) throw this.malformed('trailer line not ended by CRLF (bare LF)');
        this.sawCr = false;
        if (this.lineBytes === 0) {
          this.state = DONE;
          return i;
        }
        this.lineBytes = 0;
      } else if (this.sawCr) throw this.malformed('CR inside a trailer line');
      else if (b === CR) this.sawCr = true;
      else this.lineBytes++;
    }
    if (this.headBytes > MAX_TRAILER_BYTES) throw this.malformed(`trailers larger than ${MAX_TRAILER_BYTES} bytes`);
    return i;
  }
}
