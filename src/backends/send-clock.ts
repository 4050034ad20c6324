// When one HTTP request was sent, and how long its connection phases took: the origin every relative time counts from.
import type { H1SendTiming } from './h1/index.js';
import type { SocketFacts } from './undici-trace.js';
import { roundMs } from '../metrics/jsonl.js';
import type { RawRequest } from '../metrics/record.js';

/**
 * The origin of a request's relative times: the hand-off to the HTTP client, then the measured send (the last
 * byte written), once the transport reports it. Records blocked/connecting/tls/sending into the record.
 */
export class SendClock {
  /** Run-clock time the relative times count from: the hand-off to the HTTP client, then the measured send. */
  sentAt: number;
  /** performance.now() at the hand-off (run clock = performance.now() + a constant, on every thread). */
  private readonly handedAt = performance.now();
  /** performance.now() when undici gave the request a connected socket (onRequestStart). */
  private startedAt = 0;
  private sendMeasured = false;

  constructor(private readonly now: () => number) {
    this.sentAt = now();
  }

  /** ms since the send (the hot path: one clock read). */
  elapsed(): number {
    return this.now() - this.sentAt;
  }

  /** undici gave the request a connected socket. */
  connected(): void {
    this.startedAt = performance.now();
  }

  /** undici: the socket the request is being written to (undici-trace.ts). */
  tracedSocket(raw: RawRequest, reused: boolean, f: SocketFacts): void {
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

  /** undici: the request's last byte was written at performance.now() `at`. */
  tracedSent(raw: RawRequest, at: number): void {
    this.phases(raw, raw.connection_reused ?? false, raw.blocked_ms, raw.connecting_ms, raw.tls_ms, at - this.startedAt, at);
  }

  /** h1: the request is on the wire (see H1SendTiming). */
  sent(raw: RawRequest, t: H1SendTiming): void {
    this.phases(raw, t.reused, t.blockedMs, t.connectingMs, t.tlsMs, t.sendingMs, t.sentAt);
  }

  /** Record the phases and move the send time to the measured one (performance.now() `at`). */
  private phases(raw: RawRequest, reused: boolean, blocked: number | null, connecting: number | null, tls: number | null, sending: number, at: number): void {
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
}
