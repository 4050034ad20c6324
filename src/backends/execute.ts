// Send one request and record its raw facts: timestamps taken as bytes arrive, failures kept as data.
//
// The request goes out through undici's dispatch() handler API: every body chunk reaches onResponseData straight
// from the HTTP parser, without a Readable stream in between (that stream machinery was a measurable share of the
// CPU spent per streamed event; see docs/performance.md).
import type { Dispatcher } from 'undici';
import { H1Pool, type H1Abort, type H1Error, type H1Handlers, type H1SendTiming } from './h1/index.js';
import { traceStart, type SocketFacts, type TracedRequest } from './undici-trace.js';
import { DEFAULT_MAX_LINE_BYTES } from './sse.js';
import type { ResponseClassifier } from './backend.js';
import { classifyData, classifyErrorEvent, streamClassifier } from './openai-common.js';
import { EventLog } from './event-log.js';
import type { Usage } from './usage.js';
import { blankRaw, MAX_ERROR_BODY, parseRetryAfter } from './exchange-parts.js';
import { SendClock } from './send-clock.js';
import { ExchangeTimers, type Abortable } from './exchange-timers.js';
import { ResponseBody, type BodyOwner } from './response-body.js';
import { markFailure } from './exchange-failure.js';
import { settleRecord, type SettleWording } from './settle.js';
import type { RawRequest } from '../metrics/record.js';

export { blankRaw, MAX_RETRY_AFTER_MS, parseRetryAfter } from './exchange-parts.js';

export interface ExecuteInput {
  id: number;
  attempt?: number;
  warmup: boolean;
  cls: string | undefined;
  url: string;
  headers: Record<string, string>;
  body: string | Uint8Array;
  stream: boolean;
  expectedInputTokens: number;
  maxTokens: number;
  scheduledAtMs: number;
  /** Whole-request timeout in ms (0 = none). */
  timeoutMs: number;
  /** Longest silence allowed between bytes of a response, in ms (0 = none): catches stalled streams. */
  idleTimeoutMs?: number;
  /** The client cancels this request this many ms after send (--cancel-after/--cancel-rate); absent: never. */
  cancelAfterMs?: number;
  /** Longest SSE line (and non-streamed body) accepted, in bytes (--max-line-bytes); longer is a parse_error. */
  maxLineBytes?: number;
  /** The transport: an undici dispatcher, or tokenflood's own HTTP/1.1 pool (see src/backends/h1/pool.ts). */
  dispatcher: Dispatcher | H1Pool;
  /** Monotonic clock, ms since run start. */
  now: () => number;
  /**
   * Registers the request (its abort) with the run so it can be cancelled; returns the unregister
   * function. (A Set of controllers instead of one listener per request on a shared signal: adding listeners to
   * a signal with thousands of them costs O(n) each, measured at 16 µs per request with 2,000 in flight.)
   */
  register?: (ac: Abortable) => () => void;
  /** Called for every content event (answer or reasoning chunk) as it arrives: the live line's token counter. */
  onContent?: (firstTokenMs: number | null) => void;
  /** How the backend reads response data (src/backends/registry.ts); the OpenAI classifiers when absent. */
  classifier?: ResponseClassifier;
  /** The request id to send (`<run id>-<id>`), absent with --no-request-id; stored as the record's request_id. */
  requestId?: string;
  /** The header that carries `requestId` (--request-id-header). */
  requestIdHeader?: string;
}

const OPENAI: ResponseClassifier = { classifyData, classifyErrorEvent, streamClassifier };

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

/** origin and path of a URL; run() sends every request to the same URL, so the last one is kept. */
let lastTarget = { url: '', origin: '', path: '' };
function target(url: string): { origin: string; path: string } {
  if (url !== lastTarget.url) {
    const u = new URL(url);
    lastTarget = { url, origin: u.origin, path: u.search ? u.pathname + u.search : u.pathname };
  }
  return lastTarget;
}

/** How an HTTP answer's verdicts are worded (settle.ts); an SSE stream's unreadable event is E_SSE_PARSE, any other E_JSON_PARSE. */
const wording = (parseCode: string): SettleWording => ({
  parseCode,
  streamError: (text) => `error event in stream: ${text.slice(0, MAX_ERROR_BODY)}`,
  noTokens: 'HTTP 200 but the response carried no tokens',
  noResults: 'HTTP 200 but the response carried no results',
});
const SSE_WORDING = wording('E_SSE_PARSE');
const JSON_WORDING = wording('E_JSON_PARSE');

/**
 * One request in flight: the undici (or h1) handler gluing its parts together: the send clock (send-clock.ts),
 * the timers (exchange-timers.ts), the body reader (response-body.ts), the failure's classification
 * (exchange-failure.ts) and the verdict (settle.ts). Per streamed chunk: one timestamp, the idle timer refreshed,
 * the parser fed.
 */
class Exchange implements Dispatcher.DispatchHandler, TracedRequest, BodyOwner {
  private readonly clock: SendClock;
  private readonly raw: RawRequest;
  private readonly timers: ExchangeTimers;
  private controller: Dispatcher.DispatchController | null = null;
  private h1: H1Abort | null = null;
  private settled = false;
  /** Why the body could not be read (too long, undecodable): the request is then a parse_error. */
  private bodyError: { code: string; message: string } | null = null;
  private readonly body: ResponseBody;
  /** The events read so far: kinds, texts, usage, server timings, first errors. */
  private readonly log: EventLog;
  private retryAfterMs: number | null = null;

  constructor(
    private readonly inp: ExecuteInput,
    private readonly resolve: (r: ExecuteResult) => void,
  ) {
    this.clock = new SendClock(inp.now);
    this.raw = blankRaw(inp, this.clock.sentAt);
    this.log = new EventLog(this.raw, inp.onContent);
    this.body = new ResponseBody(this.raw, this.log, inp.classifier ?? OPENAI, { stream: inp.stream, maxLineBytes: inp.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES }, this);
    this.timers = new ExchangeTimers(inp.timeoutMs, inp.idleTimeoutMs ?? 0, inp.register, (reason) => {
      this.controller?.abort(reason);
      this.h1?.abort();
    }, inp.cancelAfterMs);
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

  elapsed(): number {
    return this.clock.elapsed();
  }

  /** The body cannot be read: stop receiving it and record a parse_error saying why. */
  rejectBody(code: string, why: string): void {
    this.bodyError ??= { code, message: why };
    this.timers.abort();
    this.fail(null); // the transport may already be done with the response and never report the abort
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    this.clock.connected();
    traceStart(this);
    // Aborted while waiting for a connection: undici can only abort once the request has one.
    if (this.timers.aborted) controller.abort(this.timers.reason as Error);
  }

  /** h1: the request is on the wire (see H1SendTiming). */
  onSent(t: H1SendTiming): void {
    this.clock.sent(this.raw, t);
    this.timers.sent();
  }

  /** undici: the socket the request is being written to (undici-trace.ts). */
  tracedSocket(reused: boolean, f: SocketFacts): void {
    this.clock.tracedSocket(this.raw, reused, f);
  }

  tracedSent(at: number): void {
    this.clock.tracedSent(this.raw, at);
    this.timers.sent();
  }

  onResponseStart(_c: Dispatcher.DispatchController | null, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    if (statusCode < 200) return; // 1xx: informational, the real response follows
    const raw = this.raw;
    raw.headers_ms = this.clock.elapsed();
    raw.http_status = statusCode;
    this.timers.refresh();
    this.retryAfterMs = parseRetryAfter(headers['retry-after']);
    const servedBy = headers['x-served-by'];
    // Server text: kept only as a short name (docs/routing.md), never interpreted.
    if (typeof servedBy === 'string' && /^[A-Za-z0-9._:-]{1,64}$/.test(servedBy)) raw.served_by = servedBy;
    this.body.start(statusCode, headers);
  }

  onResponseData(_c: Dispatcher.DispatchController | null, chunk: Buffer): void {
    if (this.settled) return;
    this.timers.refresh();
    // Response body bytes as they came off the wire (compressed when the server compressed them): response MB/s.
    this.raw.response_bytes = (this.raw.response_bytes ?? 0) + chunk.length;
    this.body.write(chunk);
  }

  onResponseEnd(): void {
    if (this.settled) return;
    this.body.end(); // bodyEnded() runs once a decoder has delivered the rest
  }

  bodyEnded(): void {
    if (this.settled) return;
    if (this.body.complete()) this.settle();
  }

  onResponseError(_c: Dispatcher.DispatchController, err: Error): void {
    this.fail(err);
  }

  /** The transport is sending the request again on a new connection: its reused one went stale (see stale-retry.ts). */
  onReconnect(): void {
    this.raw.reconnected = true;
  }

  /** The request failed or was aborted: say why, from what we know of the moment it happened. */
  fail(err: unknown): void {
    if (this.settled) return;
    this.raw.end_ms = this.clock.elapsed();
    this.body.destroy();
    const t = this.timers;
    markFailure(this.raw, { httpErrorStatus: this.body.mode === 'error', bodyError: this.bodyError, timedOut: t.timedOut, stalled: t.stalled, cancelledByClient: t.cancelledByClient, aborted: t.aborted, timeoutMs: this.inp.timeoutMs, idleMs: t.idleMs }, err);
    this.settle();
  }

  /** Stop the timers, judge an ok response by what it carried (settle.ts), and hand back the result. */
  private settle(): void {
    if (this.settled) return;
    this.settled = true;
    this.timers.stop();
    const endEvent = this.inp.classifier?.endEvent;
    const missingEnd = this.body.streamedEvents && endEvent && !this.log.sawEnd ? endEvent : undefined;
    const texts = settleRecord(this.raw, this.log, this.inp.maxTokens, this.body.mode === 'sse' ? SSE_WORDING : JSON_WORDING, missingEnd);
    this.resolve({ raw: this.raw, retryAfterMs: this.retryAfterMs, ...texts });
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
