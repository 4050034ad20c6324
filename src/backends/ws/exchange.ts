// One request on one WebSocket: send the rendered messages, timestamp each message as it arrives, end as a record.
import type { RawData, WebSocket } from 'ws';
import { roundMs } from '../../metrics/jsonl.js';
import type { RawRequest } from '../../metrics/record.js';
import type { ExecuteInput, ExecuteResult } from '../execute.js';
import { blankRaw, classifyNetworkError, MAX_ERROR_BODY } from '../exchange-parts.js';
import { EventLog } from '../event-log.js';
import { markClientCancel } from '../exchange-failure.js';
import type { WsChunk } from './classify.js';
import { ExchangeTimers } from '../exchange-timers.js';
import { settleRecord, type SettleWording } from '../settle.js';

export type WsInput = Pick<ExecuteInput, 'id' | 'attempt' | 'warmup' | 'cls' | 'stream' | 'expectedInputTokens' | 'maxTokens' | 'scheduledAtMs' | 'timeoutMs' | 'idleTimeoutMs' | 'maxLineBytes' | 'register' | 'onContent' | 'cancelAfterMs'> & {
  now: () => number;
};

/** More pings than this within one second end the request: each costs a pong, and a flood starves the stream. */
export const MAX_PINGS_PER_S = 1000;

/** What a close code without a reason means, for the record (RFC 6455 §7.4.1). */
const CLOSE_MEANING: Record<number, string> = {
  1005: 'no status in the close frame',
  1006: 'no close frame: the connection dropped',
};

/** Server text in a message: one line, control characters dropped, bounded (server text is untrusted). */
const inert = (s: string, max = 200): string => s.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]+/g, ' ').trim().slice(0, max);

/** How a WebSocket answer's verdicts are worded (settle.ts): server text made inert, E_WS_PARSE for a message that is not JSON. */
const WS_WORDING: SettleWording = {
  parseCode: 'E_WS_PARSE',
  streamError: (text) => `error message in stream: ${inert(text, MAX_ERROR_BODY)}`,
  noTokens: 'the stream ended without carrying any tokens',
  noResults: 'the stream ended without carrying any results',
};

/**
 * A request in flight on a WebSocket. The sender owns the socket and forwards its events here while this request
 * is the socket's current one; `release` tells the sender whether the socket can serve the next request.
 */
export class WsExchange {
  readonly raw: RawRequest;
  private sentAt: number;
  private readonly handedAt: number;
  /** The messages read so far: kinds, texts, usage, first errors (shared with the HTTP reader). */
  private readonly log: EventLog;
  private ended = false;
  /** The last request message is written: only messages after that can be this request's answer. */
  private written = false;
  private settled = false;
  private readonly timers: ExchangeTimers;
  /** Set by the sender once a socket is attached: drop it (true) or keep it for the next request (false). */
  onRelease: (broken: boolean) => void = () => {};

  constructor(
    private readonly inp: WsInput,
    private readonly classify: (data: string) => WsChunk,
    private readonly resolve: (r: ExecuteResult) => void,
  ) {
    this.sentAt = inp.now();
    this.handedAt = performance.now();
    // A WebSocket stream is a stream whatever --stream says: the messages are timed one by one.
    this.raw = blankRaw({ ...inp, stream: true }, this.sentAt);
    this.log = new EventLog(this.raw, inp.onContent);
    this.timers = new ExchangeTimers(inp.timeoutMs, inp.idleTimeoutMs ?? 0, inp.register, () => this.fail(null), inp.cancelAfterMs);
  }

  get isSettled(): boolean {
    return this.settled;
  }

  /** The socket is open: `reused` (kept from an earlier request or prewarmed) or opened now in `connectingMs`. */
  connected(reused: boolean, connectingMs: number | null): void {
    const raw = this.raw;
    raw.connection_reused = reused;
    raw.blocked_ms = 0; // one connection per stream: a request never waits for another to free one
    raw.connecting_ms = reused ? 0 : connectingMs === null ? null : roundMs(connectingMs);
  }

  /** Send the messages; the origin of every relative time moves to when the last one was written to the socket. */
  send(ws: WebSocket, messages: string[]): void {
    if (this.settled) return;
    const t0 = performance.now();
    messages.forEach((m, i) =>
      ws.send(m, (err) => {
        if (err) return this.fail(err);
        if (i !== messages.length - 1 || this.settled) return;
        this.written = true;
        const at = performance.now();
        this.raw.sending_ms = roundMs(at - t0);
        // Only while nothing has been timed from the old origin (a reply cannot precede the request's last byte).
        if (this.raw.event_times_ms.length === 0) {
          this.sentAt += at - this.handedAt;
          this.raw.sent_at_ms = this.sentAt;
          this.timers.sent();
        }
      }),
    );
  }

  message(data: RawData): void {
    // Before the request is on the wire a message can only be a late one of the previous request (an event the
    // server sends after its end message): it is not this request's.
    if (this.settled || !this.written) return;
    const t = this.inp.now() - this.sentAt;
    this.timers.refresh();
    if (this.ended) {
      this.raw.events_after_done++;
      return;
    }
    const info = this.classify(data.toString());
    this.log.absorb(info, t);
    if (info.done) {
      this.ended = true;
      this.raw.end_ms = t;
      this.settle();
      // After a message that is not JSON the rest of that stream is unknown: the connection serves no other request.
      this.onRelease(this.raw.code === 'E_WS_PARSE');
    }
  }

  private pingWindowAt = 0;
  private pingsInWindow = 0;

  /** A WebSocket ping frame: the protocol's own keep-alive, recorded as a heartbeat; a flood fails the request. */
  ping(): void {
    if (this.settled || this.ended) return;
    const at = performance.now();
    if (at - this.pingWindowAt > 1000) {
      this.pingWindowAt = at;
      this.pingsInWindow = 0;
    }
    if (++this.pingsInWindow > MAX_PINGS_PER_S) {
      const raw = this.raw;
      raw.end_ms = this.inp.now() - this.sentAt;
      raw.status = 'network_error';
      raw.code = 'E_WS_CLOSED';
      raw.error = `WebSocket dropped by tokenflood: a ping flood (over ${MAX_PINGS_PER_S} pings within 1 s)`;
      this.settle();
      this.onRelease(true);
      return;
    }
    this.log.mark('h', this.inp.now() - this.sentAt);
    this.timers.refresh();
  }

  /** The upgrade was answered with an HTTP status instead of 101. */
  rejected(status: number): void {
    if (this.settled) return;
    const raw = this.raw;
    raw.end_ms = this.inp.now() - this.sentAt;
    raw.http_status = status;
    raw.status = 'http_error';
    raw.code = `E_HTTP_${status}`;
    raw.error = `HTTP ${status} on the WebSocket upgrade`;
    this.settle();
    this.onRelease(true);
  }

  /** The server closed the connection before the end-of-stream message. */
  closed(code: number, reason: string): void {
    if (this.settled) return;
    const raw = this.raw;
    raw.end_ms = this.inp.now() - this.sentAt;
    raw.status = 'network_error';
    raw.code = 'E_WS_CLOSED';
    const where = raw.event_times_ms.length === 0 ? 'before any message' : 'mid-stream';
    const why = inert(reason) || CLOSE_MEANING[code] || '';
    raw.error = `WebSocket closed ${where} (close code ${code}${why ? `: ${why}` : ''})`;
    this.settle();
    this.onRelease(true);
  }

  /** A transport error (connect refused, reset, ...), or a timer or the run aborting the request (err null). */
  fail(err: unknown): void {
    if (this.settled) return;
    const raw = this.raw;
    raw.end_ms = this.inp.now() - this.sentAt;
    if (this.timers.timedOut) {
      raw.status = 'timeout';
      raw.code = 'E_TIMEOUT';
      raw.error = `no complete response within ${this.inp.timeoutMs / 1000} s`;
    } else if (this.timers.stalled) {
      raw.status = 'timeout';
      raw.code = 'E_STREAM_STALLED';
      raw.error = `stream stalled: nothing received for ${(this.inp.idleTimeoutMs ?? 0) / 1000} s (--idle-timeout)`;
    } else if (this.timers.cancelledByClient) {
      markClientCancel(raw);
    } else if ((err as { code?: string } | null)?.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') {
      raw.status = 'parse_error';
      raw.code = 'E_LINE_TOO_LONG';
      raw.error = `a WebSocket message longer than ${this.inp.maxLineBytes ?? 0} bytes (--max-line-bytes)`;
    } else if (err === null) {
      raw.status = 'cancelled';
      raw.code = 'E_CANCELLED';
      raw.error = 'run stopped before the request finished';
    } else {
      const c = classifyNetworkError(err, raw.event_times_ms.length === 0);
      raw.status = c.status;
      raw.code = c.code;
      raw.error = `${inert(c.message)} (${raw.connection_reused === null ? 'WebSocket connect' : raw.event_times_ms.length === 0 ? 'before any message' : 'mid-stream'})`;
    }
    this.settle();
    this.onRelease(true);
  }

  /** Stop the timers, judge a finished stream by what it carried (settle.ts, as for HTTP), hand back the result. */
  private settle(): void {
    if (this.settled) return;
    this.settled = true;
    this.timers.stop();
    const texts = settleRecord(this.raw, this.log, this.inp.maxTokens, WS_WORDING);
    this.resolve({ raw: this.raw, retryAfterMs: null, ...texts });
  }
}
