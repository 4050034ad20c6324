// One keep-alive HTTP/1.1 connection: a socket, its response parser, and the one request it carries at a time.
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { H1Error, closedEarly, socketError, type H1Phase } from './errors.js';
import { ResponseParser, type ParserSink } from './parser.js';

export interface H1Handlers {
  /** Status and headers (names lowercased; repeated headers joined with ", "). 1xx responses are skipped. */
  onHeaders(status: number, headers: Record<string, string>): void;
  /** A piece of the body, framing removed. Valid only during the call (the buffer may be reused): copy to keep. */
  onData(chunk: Buffer): void;
  onEnd(): void;
  /** Called at most once, instead of onEnd; nothing is called after it. */
  onError(err: H1Error): void;
  /**
   * The request's reused keep-alive connection closed before any response byte, and it is being sent again once
   * on a new connection (nothing was received, and the server had closed the connection, so it did not answer).
   */
  onRetry?(reason: H1Error): void;
  /** The request is with the kernel (see Connection.start for the exact moment), with how it got there. */
  onSent?(t: H1SendTiming): void;
}

/** How a request reached the wire; times in ms, `sentAt` on performance.now()'s clock. */
export interface H1SendTiming {
  /** false: the connection was opened for this request (not by prewarm, not by an earlier request). */
  reused: boolean;
  /** Waiting in the pool for a free connection: accepted → given a connection. */
  blockedMs: number;
  /** TCP connect of a new connection (0 when reused). */
  connectingMs: number;
  /** TLS handshake of a new connection (0 when reused); null for http. */
  tlsMs: number | null;
  /** Given a (connected) connection → the send time below. */
  sendingMs: number;
  /** The last byte handed to the kernel, or, when that was not at once, the moment the write began (a lower bound). */
  sentAt: number;
}

/** Where and how to connect; shared by all connections of a pool. */
export interface Target {
  tls: boolean;
  host: string;
  port: number;
  /** host:port, for messages. */
  where: string;
  tlsOptions: ConnectionOptions | undefined;
  /** One buffer every plain-TCP read lands in (net `onread`), or null for a fresh Buffer per read. */
  readBuffer: Buffer | null;
}

/** What a connection needs from its pool. */
export interface ConnectionOwner {
  readonly target: Target;
  /** The response is complete and the socket may (or may not) carry another request. */
  release(c: Connection, reusable: boolean): void;
  /** The connection no longer counts against the limit (destroyed). */
  gone(c: Connection): void;
  /** The socket has closed. */
  closed(c: Connection): void;
  /** Send `p` again first, on a new connection (its reused one went stale); called before `gone()`. */
  resend(p: Pending): void;
}

/** A request from the moment it is accepted until onEnd/onError; also its caller's abort handle. */
export class Pending {
  conn: Connection | null = null;
  finished = false;
  /** Already re-sent once after a stale connection. */
  resent = false;
  /** performance.now() when the pool accepted it, and when a connection took it. */
  readonly requestedAt = performance.now();
  assignedAt = 0;
  /** The connection was opened for this request. */
  newConn = false;
  /** onSent was called for the current attempt. */
  sent = false;

  constructor(
    readonly bytes: string | Buffer,
    readonly isHead: boolean,
    readonly h: H1Handlers,
  ) {}

  abort(): void {
    if (this.finished) return;
    const conn = this.conn;
    const phase = conn ? conn.phase() : 'connect';
    this.finished = true;
    this.conn = null;
    // The socket may have half a response on it: it cannot carry another request.
    conn?.detachAndDestroy();
    this.h.onError(new H1Error('E_ABORTED', phase, `request aborted by the caller (${phase === 'connect' ? 'before it was sent' : phase === 'headers' ? 'before response headers' : 'mid-body'})`));
  }
}

export class Connection implements ParserSink {
  readonly socket: Socket;
  private readonly parser: ResponseParser;
  req: Pending | null = null;
  private connected = false;
  private served = 0;
  private dead = false;
  idle = false;
  /** Requests started on this connection. */
  private uses = 0;
  /** performance.now() at open, TCP connect and ready (TCP for http, TLS handshake done for https). */
  private readonly openedAt = performance.now();
  private tcpAt = 0;
  private readyAt = 0;

  constructor(private readonly owner: ConnectionOwner) {
    const t = owner.target;
    this.parser = new ResponseParser(this, t.where);
    if (t.tls) {
      const servername = isIP(t.host) ? undefined : t.host;
      this.socket = tlsConnect({ host: t.host, port: t.port, servername, ALPNProtocols: ['http/1.1'], ...t.tlsOptions });
      this.socket.once('connect', () => (this.tcpAt = performance.now()));
      this.socket.once('secureConnect', this.onConnect);
      this.socket.on('data', this.onData);
    } else {
      const onread = t.readBuffer ? { buffer: t.readBuffer, callback: this.onRead } : undefined;
      this.socket = netConnect({ host: t.host, port: t.port, noDelay: true, onread });
      this.socket.once('connect', this.onConnect);
      if (!onread) this.socket.on('data', this.onData);
    }
    if (t.tls) this.socket.setNoDelay(true);
    this.socket.on('end', this.onEnd);
    this.socket.on('error', this.onError);
    this.socket.on('close', this.onClose);
    this.socket.on('timeout', this.onIdleTimeout);
  }

  /** Send `p` on this connection. */
  start(p: Pending): void {
    if (this.idle) {
      this.idle = false;
      this.socket.setTimeout(0);
      this.socket.ref();
    }
    this.req = p;
    p.conn = this;
    p.assignedAt = performance.now();
    p.sent = false;
    p.newConn = this.uses++ === 0;
    this.parser.reset(p.isHead);
    // The send time (docs/metrics.md#send-time) is never later than the moment the server could have the request:
    // - connected, and nothing left buffered after write(): libuv handed every byte to the kernel inside the call,
    //   so the time right after it (a few µs after the syscall) is exact;
    // - still connecting: Node writes the buffered request from its own 'connect' listener, registered by write()
    //   and so run before ours: ours takes the time right after that flush, or, if the kernel took only part of
    //   it, the moment the connection became ready (just before the flush began);
    // - the kernel's send buffer full (a body larger than it): the moment write() was called.
    // Never the write callback: it runs only once the current task is over (a wave of sends, other sockets'
    // reads), measured 0.1-10+ ms late (docs/metrics.md), so a server in the same process would see TTFT shrink.
    const before = performance.now();
    this.socket.write(p.bytes, (err?: Error | null) => {
      if (err) this.written(p, err, 0);
    });
    if (this.connected) this.written(p, null, this.socket.writableLength === 0 ? performance.now() : before);
    else this.socket.once(this.owner.target.tls ? 'secureConnect' : 'connect', () => this.written(p, null, this.socket.writableLength === 0 ? performance.now() : this.readyAt || performance.now()));
  }

  private written(p: Pending, err: Error | null | undefined, t: number): void {
    if (err || p.finished || p.conn !== this || p.sent || !p.h.onSent) return;
    p.sent = true;
    const fresh = p.newConn;
    p.h.onSent({
      reused: !fresh,
      blockedMs: p.assignedAt - p.requestedAt,
      connectingMs: fresh ? this.tcpAt - this.openedAt : 0,
      tlsMs: this.owner.target.tls ? (fresh ? this.readyAt - this.tcpAt : 0) : null,
      sendingMs: Math.max(0, t - Math.max(p.assignedAt, this.readyAt)),
      sentAt: t,
    });
  }

  /** Park the connection between requests: it closes itself after `ms` of idleness and does not keep the process alive. */
  park(ms: number): void {
    this.idle = true;
    this.socket.setTimeout(ms);
    this.socket.unref();
  }

  /** The server's Keep-Alive: timeout=N hint of the last response, in ms, or null. */
  keepAliveHintMs(): number | null {
    const ka = this.parser.headers['keep-alive'];
    const m = ka ? /timeout=(\d+)/i.exec(ka) : null;
    return m ? Number(m[1]) * 1000 : null;
  }

  phase(): H1Phase {
    if (!this.connected) return 'connect';
    return this.parser.inHead ? 'headers' : 'body';
  }

  /** Forget the current request (it was aborted) and destroy the socket. */
  detachAndDestroy(): void {
    this.req = null;
    this.destroy();
  }

  destroy(): void {
    if (this.dead) return;
    this.dead = true;
    this.parser.stop();
    this.socket.destroy();
    this.owner.gone(this);
  }

  // ---- ParserSink ---------------------------------------------------------------------------------------------

  onHead(status: number, headers: Record<string, string>): void {
    this.req?.h.onHeaders(status, headers);
  }

  onBody(chunk: Buffer): void {
    this.req?.h.onData(chunk);
  }

  onComplete(extra: boolean): void {
    const p = this.req;
    if (!p) return;
    this.req = null;
    p.conn = null;
    p.finished = true;
    this.served++;
    // Bytes after a complete response cannot belong to anything (no pipelining): the stream is out of step.
    this.owner.release(this, this.parser.keepAlive && !extra && !this.dead);
    try {
      p.h.onEnd();
    } catch (err) {
      rethrow(err);
    }
  }

  // ---- socket events ------------------------------------------------------------------------------------------

  private readonly onConnect = (): void => {
    this.connected = true;
    this.readyAt = performance.now();
    this.tcpAt ||= this.readyAt;
  };

  /** net `onread`: `buf` is the pool's shared read buffer, valid until this returns. true = keep reading. */
  private readonly onRead = (nread: number, buf: Uint8Array): boolean => {
    this.feed(buf as Buffer, nread);
    return true;
  };

  private readonly onData = (buf: Buffer): void => {
    this.feed(buf, buf.length);
  };

  private feed(buf: Buffer, end: number): void {
    if (this.req === null) {
      // Bytes nobody asked for (an idle connection, or after an aborted request): the stream is unusable.
      this.destroy();
      return;
    }
    try {
      this.parser.push(buf, 0, end);
    } catch (err) {
      this.fail(err instanceof H1Error ? err : new H1Error('E_HANDLER', this.phase(), `a response handler threw: ${String((err as Error)?.message ?? err)}`, { cause: err }));
    }
  }

  /** FIN from the server: ends a close-delimited body, or cuts the response short. */
  private readonly onEnd = (): void => {
    if (this.req) {
      try {
        this.parser.finish();
      } catch (err) {
        this.fail(err as H1Error);
        return;
      }
    }
    this.destroy();
  };

  private readonly onError = (err: Error): void => {
    this.fail(socketError(err, this.phase(), this.owner.target.where));
  };

  private readonly onClose = (): void => {
    if (this.req) this.fail(closedEarly(this.phase(), this.owner.target.where, this.parser.bodyBytes));
    this.destroy();
    this.owner.closed(this);
  };

  private readonly onIdleTimeout = (): void => {
    if (this.idle) this.destroy();
  };

  /**
   * A reset or close on a connection that already carried a response, before one byte of this response: the
   * server closed it as idle while the request was on its way, so it cannot have answered (docs/reliability.md).
   */
  private stale(err: H1Error): boolean {
    return this.served > 0 && this.connected && this.parser.untouched && (err.code === 'ECONNRESET' || err.code === 'EPIPE');
  }

  /** The current request failed: destroy the socket, then tell the caller (or send it again, once, if stale). */
  private fail(err: H1Error): void {
    const p = this.req;
    this.req = null;
    if (p && !p.finished && this.stale(err)) {
      if (!p.resent) {
        p.resent = true;
        p.conn = null;
        this.owner.resend(p);
        this.destroy(); // gone() opens the new connection for it
        try {
          p.h.onRetry?.(err);
        } catch (e) {
          rethrow(e);
        }
        return;
      }
      err = new H1Error('E_STALE_SOCKET', 'headers', `reused keep-alive connection to ${this.owner.target.where} closed before any response byte, again after a retry on a new connection`, { cause: err });
    }
    this.destroy();
    if (!p || p.finished) return;
    p.finished = true;
    p.conn = null;
    try {
      p.h.onError(err);
    } catch (e) {
      rethrow(e);
    }
  }
}

/** A handler's exception after its request is over belongs to nobody here: surface it as uncaught. */
function rethrow(err: unknown): void {
  process.nextTick(() => {
    throw err;
  });
}
