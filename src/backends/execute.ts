// Send one request and record its raw facts: timestamps taken as bytes arrive, failures kept as data.
//
// The request goes out through undici's dispatch() handler API: every body chunk reaches onResponseData straight
// from the HTTP parser, without a Readable stream in between (that stream machinery was a measurable share of the
// CPU spent per streamed event; see docs/performance.md).
import type { Dispatcher } from 'undici';
import { H1Pool, H1Error, type H1Abort, type H1Handlers, type H1SendTiming } from './h1/index.js';
import { traceStart, type SocketFacts, type TracedRequest } from './undici-trace.js';
import { roundMs } from '../metrics/jsonl.js';
import { SseParser, DEFAULT_MAX_LINE_BYTES, type SseEvent } from './sse.js';
import { NdjsonParser, isNdjsonType } from './ndjson.js';
import type { ResponseClassifier } from './backend.js';
import { classifyData, classifyErrorEvent } from './openai-common.js';
import { EventLog } from './event-log.js';
import type { Usage } from './usage.js';
import { BodyDecoder, contentCoding, isJsonType, mediaType, singletonField } from './content.js';
import { httpCode } from '../metrics/error-codes.js';
import { blankRaw, bodyText, classifyNetworkError, errorBodyText, MAX_ERROR_BODY, parseRetryAfter } from './exchange-parts.js';

export { blankRaw, MAX_RETRY_AFTER_MS, parseRetryAfter } from './exchange-parts.js';
import type { RawRequest } from '../metrics/record.js';

export interface ExecuteInput {
  id: number;
  attempt?: number;
  warmup: boolean;
  cls: string | undefined;
  url: string;
  headers: Record<string, string>;
  body: string;
  stream: boolean;
  expectedInputTokens: number;
  maxTokens: number;
  scheduledAtMs: number;
  /** Whole-request timeout in ms (0 = none). */
  timeoutMs: number;
  /** Longest silence allowed between bytes of a response, in ms (0 = none): catches stalled streams. */
  idleTimeoutMs?: number;
  /** Longest SSE line (and non-streamed body) accepted, in bytes (--max-line-bytes); longer is a parse_error. */
  maxLineBytes?: number;
  /** The transport: an undici dispatcher, or tokenflood's own HTTP/1.1 pool (see src/backends/h1/pool.ts). */
  dispatcher: Dispatcher | H1Pool;
  /** Monotonic clock, ms since run start. */
  now: () => number;
  /**
   * Registers the request's AbortController with the run so it can be cancelled; returns the unregister
   * function. (A Set of controllers instead of one listener per request on a shared signal: adding listeners to
   * a signal with thousands of them costs O(n) each, measured at 16 µs per request with 2,000 in flight.)
   */
  register?: (ac: AbortController) => () => void;
  /** Called for every content event (answer or reasoning chunk) as it arrives: the live line's token counter. */
  onContent?: (firstTokenMs: number | null) => void;
  /** How the backend reads response data (src/backends/registry.ts); the OpenAI classifiers when absent. */
  classifier?: ResponseClassifier;
  /** The request id to send (`<run id>-<id>`), absent with --no-request-id; stored as the record's request_id. */
  requestId?: string;
  /** The header that carries `requestId` (--request-id-header). */
  requestIdHeader?: string;
}

const OPENAI: ResponseClassifier = { classifyData, classifyErrorEvent };

/** What a finished request leaves behind besides its raw record: the text, for tokenizer fallback counting. */
export interface ExecuteResult {
  raw: RawRequest;
  /** Retry-After of a 429/503 response, in ms, when the server sent one. */
  retryAfterMs: number | null;
  reasoningText: string;
  answerText: string;
  usage: Usage | null;
}

export function executeRequest(inp: ExecuteInput): Promise<ExecuteResult> {
  return new Promise((resolve) => new Exchange(inp, resolve).send());
}

/** How the response body is read, decided by its status line and content type. */
type BodyMode = 'sse' | 'ndjson' | 'text' | 'error';

/** origin and path of a URL; run() sends every request to the same URL, so the last one is kept. */
let lastTarget = { url: '', origin: '', path: '' };
function target(url: string): { origin: string; path: string } {
  if (url !== lastTarget.url) {
    const u = new URL(url);
    lastTarget = { url, origin: u.origin, path: u.search ? u.pathname + u.search : u.pathname };
  }
  return lastTarget;
}

/**
 * One request in flight: the undici handler, its timers and what it has recorded so far. Per streamed chunk it
 * takes one timestamp, refreshes the idle timer and feeds the SSE parser; per event it classifies and counts.
 */
class Exchange implements Dispatcher.DispatchHandler, TracedRequest {
  private readonly now: () => number;
  /** Run-clock time the relative times count from: the hand-off to the HTTP client, then the measured send. */
  private sentAt: number;
  /** performance.now() at the hand-off (run clock = performance.now() + a constant, on every thread). */
  private readonly handedAt: number;
  /** performance.now() when undici gave the request a connected socket (onRequestStart). */
  private startedAt = 0;
  private sendMeasured = false;
  private readonly raw: RawRequest;
  private readonly ac = new AbortController();
  private controller: Dispatcher.DispatchController | null = null;
  private h1: H1Abort | null = null;
  private readonly idleMs: number;
  private readonly idleTimer: NodeJS.Timeout | undefined;
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly unregister: (() => void) | undefined;
  private timedOut = false;
  private stalled = false;
  private settled = false;
  /** Why the body could not be read (too long, undecodable): the request is then a parse_error. */
  private bodyError: { code: string; message: string } | null = null;

  private mode: BodyMode = 'text';
  /** The Content-Type as sent (for messages) and its media type, lowercased without parameters. */
  private contentType = '';
  private media = '';
  private readonly maxLineBytes: number;
  private parser: SseParser | NdjsonParser | null = null;
  private decoder: BodyDecoder | null = null;
  /** A data: [DONE] arrived: later events are ignored and counted. */
  private done = false;
  /** Time of the chunk being parsed: every event completed by it gets this timestamp. */
  private t = 0;
  /** Body bytes kept for a non-streamed or error response. */
  private parts: Buffer[] = [];
  private bytes = 0;

  /** The events read so far: kinds, texts, usage, server timings, first errors. */
  private readonly log: EventLog;
  private retryAfterMs: number | null = null;
  /** Taken once per request: the per-event calls are direct, with no lookup. */
  private readonly classify: ResponseClassifier['classifyData'];
  private readonly classifyError: ResponseClassifier['classifyErrorEvent'];

  constructor(
    private readonly inp: ExecuteInput,
    private readonly resolve: (r: ExecuteResult) => void,
  ) {
    this.now = inp.now;
    ({ classifyData: this.classify, classifyErrorEvent: this.classifyError } = inp.classifier ?? OPENAI);
    this.sentAt = inp.now();
    this.handedAt = performance.now();
    this.raw = blankRaw(inp, this.sentAt);
    this.log = new EventLog(this.raw, inp.onContent);
    this.idleMs = inp.idleTimeoutMs ?? 0;
    this.maxLineBytes = inp.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    // One re-armable timer per request; refresh() on each chunk is O(1) and allocates nothing.
    this.idleTimer = this.idleMs > 0 ? setTimeout(() => this.expire('stalled'), this.idleMs) : undefined;
    this.timer = inp.timeoutMs > 0 ? setTimeout(() => this.expire('timedOut'), inp.timeoutMs) : undefined;
    this.ac.signal.addEventListener(
      'abort',
      () => {
        this.controller?.abort(this.ac.signal.reason);
        this.h1?.abort();
      },
      { once: true },
    );
    this.unregister = inp.register?.(this.ac);
  }

  send(): void {
    try {
      const { origin, path } = target(this.inp.url);
      const { body, dispatcher, requestId, requestIdHeader } = this.inp;
      const headers = requestId && requestIdHeader ? { ...this.inp.headers, [requestIdHeader]: requestId } : this.inp.headers;
      if (dispatcher instanceof H1Pool) this.h1 = dispatcher.request({ method: 'POST', path, headers, body }, new H1Adapter(this));
      else dispatcher.dispatch({ origin, path, method: 'POST', headers, body, headersTimeout: 0, bodyTimeout: 0 }, this);
    } catch (err) {
      this.fail(err);
    }
  }

  /** A timer ran out: note which, then abort (undici reports the abort through onResponseError). */
  private expire(which: 'stalled' | 'timedOut'): void {
    this[which] = true;
    this.ac.abort();
  }

  /** The body cannot be read: stop receiving it and record a parse_error saying why. */
  private rejectBody(code: string, why: string): void {
    this.bodyError ??= { code, message: why };
    this.ac.abort();
    this.fail(null); // the transport may already be done with the response and never report the abort
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    this.startedAt = performance.now();
    traceStart(this);
    // Aborted while waiting for a connection: undici can only abort once the request has one.
    if (this.ac.signal.aborted) controller.abort(this.ac.signal.reason);
  }

  /** h1: the request is on the wire (see H1SendTiming). */
  onSent(t: H1SendTiming): void {
    this.phases(t.reused, t.blockedMs, t.connectingMs, t.tlsMs, t.sendingMs, t.sentAt);
  }

  /** undici: the socket the request is being written to (undici-trace.ts). */
  tracedSocket(reused: boolean, f: SocketFacts): void {
    const raw = this.raw;
    raw.connection_reused = reused;
    if (!reused && f.connectStartAt !== null) {
      // A new socket: waiting ends when its connect begins (at the gate's pace), the connect itself is connecting/tls.
      raw.blocked_ms = roundMs(Math.max(0, f.connectStartAt - this.handedAt));
      raw.connecting_ms = f.connectingMs === null ? null : roundMs(f.connectingMs);
      raw.tls_ms = f.tlsMs === null ? null : roundMs(f.tlsMs);
    } else {
      raw.blocked_ms = roundMs(this.startedAt - this.handedAt);
      raw.connecting_ms = reused ? 0 : null;
      raw.tls_ms = reused && f.tlsMs !== null ? 0 : null;
    }
  }

  tracedSent(at: number): void {
    const raw = this.raw;
    this.phases(raw.connection_reused ?? false, raw.blocked_ms, raw.connecting_ms, raw.tls_ms, at - this.startedAt, at);
  }

  /** Record the phases and move the send time to the measured one (performance.now() `at`). */
  private phases(reused: boolean, blocked: number | null, connecting: number | null, tls: number | null, sending: number, at: number): void {
    const raw = this.raw;
    raw.connection_reused = reused;
    raw.blocked_ms = blocked === null ? null : roundMs(blocked);
    raw.connecting_ms = connecting === null ? null : roundMs(connecting);
    raw.tls_ms = tls === null ? null : roundMs(tls);
    raw.sending_ms = roundMs(Math.max(0, sending));
    // Only the first send moves the origin (a re-sent request's latency counts from its first send, see
    // stale-retry.ts), and only while nothing has been timed from the old one (a response cannot precede its
    // request's last byte).
    if (this.sendMeasured) return;
    this.sendMeasured = true;
    if (raw.headers_ms === null && raw.end_ms === null && raw.event_times_ms.length === 0) {
      this.sentAt += at - this.handedAt;
      raw.sent_at_ms = this.sentAt;
    }
  }

  onResponseStart(_c: Dispatcher.DispatchController | null, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    if (statusCode < 200) return; // 1xx: informational, the real response follows
    const raw = this.raw;
    raw.headers_ms = this.now() - this.sentAt;
    raw.http_status = statusCode;
    this.idleTimer?.refresh();
    this.retryAfterMs = parseRetryAfter(headers['retry-after']);
    const servedBy = headers['x-served-by'];
    // Server text: kept only as a short name (docs/routing.md), never interpreted.
    if (typeof servedBy === 'string' && /^[A-Za-z0-9._:-]{1,64}$/.test(servedBy)) raw.served_by = servedBy;
    this.contentType = singletonField(headers['content-type']);
    this.media = mediaType(headers['content-type']);
    if (statusCode >= 300) this.mode = 'error';
    else if (this.inp.stream && this.media === 'text/event-stream') {
      this.mode = 'sse';
      this.parser = new SseParser(this.onEvent, this.maxLineBytes);
    } else if (this.inp.stream && this.inp.classifier?.framing === 'ndjson' && isNdjsonType(this.media)) {
      this.mode = 'ndjson';
      this.parser = new NdjsonParser(this.onLine, this.maxLineBytes);
    }
    // tokenflood asks for identity; a server that compresses anyway is decoded, or failed when it cannot be.
    const { coding, error } = contentCoding(headers['content-encoding']);
    if (coding) this.decoder = new BodyDecoder(coding, this.body, this.decoded);
    else if (error && this.mode !== 'error') this.rejectBody('E_CONTENT_ENCODING', error);
  }

  onResponseData(_c: Dispatcher.DispatchController | null, chunk: Buffer): void {
    if (this.settled) return;
    this.idleTimer?.refresh();
    if (this.decoder) this.decoder.write(chunk);
    else this.body(chunk);
  }

  /** Body bytes as they became readable (decompressed when the server compressed them). */
  private readonly body = (chunk: Buffer): void => {
    if (this.parser) {
      this.t = this.now() - this.sentAt;
      this.parser.push(chunk);
      if (this.parser.overflow) this.rejectBody('E_LINE_TOO_LONG', this.parser.overflow);
    } else {
      // Error bodies: only the first MAX_ERROR_BODY bytes are kept (the rest is read and dropped).
      // Copied: H1Pool reuses its read buffer once this call returns.
      if (this.mode === 'text' || this.bytes < MAX_ERROR_BODY) this.parts.push(Buffer.from(chunk));
      this.bytes += chunk.length;
      if (this.mode === 'text' && this.bytes > this.maxLineBytes)
        this.rejectBody('E_LINE_TOO_LONG', `a response body longer than ${this.maxLineBytes} bytes (--max-line-bytes)`);
    }
  };

  private readonly decoded = (err: Error | null): void => {
    if (err) this.rejectBody('E_CONTENT_ENCODING', `could not decode the compressed body: ${err.message}`);
    else this.finish();
  };

  onResponseEnd(): void {
    if (this.settled) return;
    if (this.decoder) this.decoder.end(); // finish() runs once the decoder has delivered the rest
    else this.finish();
  }

  private finish(): void {
    if (this.settled) return;
    const raw = this.raw;
    if (this.parser) {
      this.t = this.now() - this.sentAt;
      this.parser.end();
      if (this.parser.overflow) return this.rejectBody('E_LINE_TOO_LONG', this.parser.overflow);
      raw.end_ms = this.now() - this.sentAt;
    } else if (this.mode === 'error') {
      raw.end_ms = this.now() - this.sentAt;
      this.httpError(errorBodyText(this.parts));
    } else {
      // Non-streaming (or a server that ignored stream: true): one body, TTFT = E2E.
      const text = bodyText(this.parts);
      raw.end_ms = this.now() - this.sentAt;
      raw.streamed = false;
      if (this.inp.stream && !isJsonType(this.media)) {
        raw.status = 'parse_error';
        raw.code = 'E_CONTENT_TYPE';
        raw.error = `expected an event stream, got content-type "${this.contentType || 'none'}": ${text.slice(0, 200)}`;
      } else this.log.absorb(this.classify(text), raw.end_ms);
    }
    this.settle();
  }

  onResponseError(_c: Dispatcher.DispatchController, err: Error): void {
    this.fail(err);
  }

  /** The transport is sending the request again on a new connection: its reused one went stale (see stale-retry.ts). */
  onReconnect(): void {
    this.raw.reconnected = true;
  }

  private readonly onEvent = (ev: SseEvent): void => {
    if (this.done) {
      this.raw.events_after_done++; // a stream is over at [DONE]: what follows is not measured
    } else if (ev.type === 'comment') {
      this.log.mark('c', this.t);
    } else if (ev.event === 'error') {
      this.log.absorb(this.classifyError(ev.data), this.t);
    } else {
      const info = this.classify(ev.data, ev.event);
      this.log.absorb(info, this.t);
      if (info.kind === 'd') this.done = true;
    }
  };

  /** One NDJSON line: a blank one is a keep-alive (recorded like an SSE comment), any other is one event. */
  private readonly onLine = (line: string): void => {
    if (this.done) {
      this.raw.events_after_done++;
    } else if (line === '') {
      this.log.mark('c', this.t);
    } else {
      const info = this.classify(line);
      this.log.absorb(info, this.t);
      if (info.kind === 'd') this.done = true;
    }
  };


  private httpError(text: string): void {
    this.raw.status = 'http_error';
    this.raw.code = httpCode(this.raw.http_status);
    this.raw.error = `HTTP ${this.raw.http_status}${text ? `: ${text}` : ''}`;
  }

  /** The request failed or was aborted: say why, from what we know of the moment it happened. */
  fail(err: unknown): void {
    if (this.settled) return;
    const raw = this.raw;
    raw.end_ms = this.now() - this.sentAt;
    this.decoder?.destroy();
    if (this.mode === 'error') {
      this.httpError(''); // the status line already said it failed; an unreadable error body adds nothing
    } else if (this.bodyError) {
      raw.status = 'parse_error';
      raw.code = this.bodyError.code;
      raw.error = this.bodyError.message;
    } else if (this.timedOut) {
      raw.status = 'timeout';
      raw.code = 'E_TIMEOUT';
      raw.error = `no complete response within ${this.inp.timeoutMs / 1000} s`;
    } else if (this.stalled) {
      raw.status = 'timeout';
      raw.code = raw.headers_ms === null ? 'E_HEADERS_TIMEOUT' : 'E_STREAM_STALLED';
      raw.error = `${raw.headers_ms === null ? 'no response headers' : 'stream stalled'}: nothing received for ${this.idleMs / 1000} s (--idle-timeout)`;
    } else if (this.ac.signal.aborted) {
      raw.status = 'cancelled';
      raw.code = 'E_CANCELLED';
      raw.error = 'run stopped before the request finished';
    } else if (err instanceof H1Error) {
      // H1Error messages already say where it happened ("before response headers", "mid-body").
      raw.status = 'network_error';
      raw.code = err.code;
      raw.error = `${err.code}: ${err.message}`;
    } else {
      const c = classifyNetworkError(err, raw.headers_ms === null);
      raw.status = c.status;
      raw.code = c.code;
      raw.error = raw.headers_ms === null ? `${c.message} (before response headers)` : `${c.message} (mid-stream)`;
    }
    this.settle();
  }

  /** Stop the timers, judge an ok response by what it carried, and hand back the result. */
  private settle(): void {
    if (this.settled) return;
    this.settled = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.unregister?.();
    const raw = this.raw;
    const { usage: u, reasoningText, answerText } = this.log.finish(this.inp.maxTokens);
    const { streamError, parseError } = this.log;
    if (raw.status === 'ok') {
      if (streamError) {
        raw.status = 'http_error';
        raw.code = 'E_STREAM_ERROR_EVENT';
        raw.error = `error event in stream: ${streamError.slice(0, MAX_ERROR_BODY)}`;
      } else if (parseError) {
        raw.status = 'parse_error';
        raw.code = this.mode === 'sse' ? 'E_SSE_PARSE' : 'E_JSON_PARSE';
        raw.error = parseError;
      } else if ((this.mode === 'sse' || this.mode === 'ndjson') && this.inp.classifier?.endEvent && !this.log.sawEnd) {
        // The body ended cleanly, the protocol's stream did not: whatever was read is not a whole answer.
        raw.status = 'parse_error';
        raw.code = 'E_STREAM_TRUNCATED';
        raw.error = `stream ended without its end event (${this.inp.classifier.endEvent}): cut short`;
      } else if (raw.reasoning_chars + raw.answer_chars === 0 && !raw.samples) {
        raw.status = 'empty';
        raw.code = 'E_EMPTY';
        raw.error = raw.samples === 0 ? 'HTTP 200 but the response carried no results' : 'HTTP 200 but the response carried no tokens';
      }
    }
    this.resolve({ raw, retryAfterMs: this.retryAfterMs, reasoningText, answerText, usage: u });
  }
}

/**
 * H1Pool's handler interface onto the same steps as undici's. (A separate object: undici would take methods
 * named onHeaders/onData/onError on the Exchange itself for its legacy handler API.)
 */
class H1Adapter implements H1Handlers {
  constructor(private readonly ex: Exchange) {}
  onHeaders(status: number, headers: Record<string, string>): void {
    this.ex.onResponseStart(null, status, headers);
  }
  onData(chunk: Buffer): void {
    this.ex.onResponseData(null, chunk);
  }
  onEnd(): void {
    this.ex.onResponseEnd();
  }
  onError(err: H1Error): void {
    this.ex.fail(err);
  }
  onRetry(): void {
    this.ex.onReconnect();
  }
  onSent(t: H1SendTiming): void {
    this.ex.onSent(t);
  }
}
