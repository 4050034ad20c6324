// A keep-alive HTTP/1.1 connection pool for one origin, on node:net / node:tls: the load generator's transport.
//
// Why not undici: on the transport bench (bench/h1/, 1,000 SSE streams, quiet machine) undici dispatch() cost
// 19.3 µs of client CPU per streamed event and this pool 14.0 µs (request(): 20.4), with a 5× lower timing-error
// p50. Most of the gain is reading every socket into one shared buffer (net `onread`; 17.7 µs without it), so no
// Buffer is allocated per read. It does only what a load generator needs: one request at a time per connection
// (no pipelining), string bodies with Content-Length, responses framed by chunked / Content-Length / close.
// Not supported: HTTP/2, proxies, redirects,
// compression, request streaming, Expect: 100-continue, upgrades, retries (but for one: a request whose reused
// keep-alive connection closed before any response byte is sent again once, on a new connection).
import { Connection, Pending, type ConnectionOwner, type H1Handlers, type Target } from './connection.js';
import { H1Error } from './errors.js';
import { serializeRequest, type H1Request } from './request.js';
import type { ConnectionOptions } from 'node:tls';

export interface H1PoolOptions {
  /** Most connections open at once; null = no limit. Requests beyond it wait in FIFO order. */
  connections: number | null;
  /** How long an idle connection is kept, in ms (default 4000; shortened to a server's Keep-Alive: timeout − 1 s). */
  keepAliveMs?: number;
  /** Extra node:tls options for https origins (ca, rejectUnauthorized, …). */
  tls?: ConnectionOptions;
  /**
   * Read plain-TCP sockets into one buffer shared by the pool (net's `onread`), so a read allocates nothing
   * (default true). Safe because a read's callback runs to completion before the next read.
   */
  sharedReadBuffer?: boolean;
}

export interface H1Abort {
  abort(): void;
}

const READ_BUFFER_BYTES = 64 * 1024;
const DEFAULT_KEEP_ALIVE_MS = 4000;

export class H1Pool implements ConnectionOwner {
  readonly target: Target;
  private readonly limit: number;
  private readonly keepAliveMs: number;
  private readonly host: string;
  /** Idle connections, most recently used last (reused first: warm sockets stay warm). */
  private readonly idle: Connection[] = [];
  /** Requests waiting for a connection; `qHead` is the next one (aborted ones are skipped when reached). */
  private queue: Pending[] = [];
  private qHead = 0;
  /** Connections counted against the limit. */
  private slots = 0;
  /** Sockets not yet closed. */
  private sockets = 0;
  private closing = false;
  private onDrained: (() => void) | null = null;

  constructor(origin: string, opts: H1PoolOptions) {
    const u = new URL(origin);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new H1Error('E_INVALID_REQUEST', 'connect', `unsupported protocol ${u.protocol} in ${origin}`);
    const tls = u.protocol === 'https:';
    const host = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
    const port = u.port ? Number(u.port) : tls ? 443 : 80;
    this.host = u.host;
    this.limit = opts.connections ?? Infinity;
    this.keepAliveMs = opts.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS;
    const shared = opts.sharedReadBuffer ?? true;
    this.target = { tls, host, port, where: `${u.host}`, tlsOptions: opts.tls, readBuffer: shared && !tls ? Buffer.allocUnsafe(READ_BUFFER_BYTES) : null };
  }

  /** Open connections (busy + idle + connecting), waiting requests. */
  get stats(): { connections: number; idle: number; queued: number } {
    return { connections: this.slots, idle: this.idle.length, queued: this.queue.length - this.qHead };
  }

  /**
   * Send a request; its outcome arrives on the handlers (onHeaders, onData…, then onEnd or onError).
   * Throws E_INVALID_REQUEST (unsafe method, path or header) or E_POOL_CLOSED synchronously: nothing was sent.
   */
  request(req: H1Request, h: H1Handlers): H1Abort {
    if (this.closing) throw new H1Error('E_POOL_CLOSED', 'connect', `pool for ${this.target.where} is closed`);
    const p = new Pending(serializeRequest(req, this.host), req.method === 'HEAD', h);
    const c = this.idle.pop();
    if (c) {
      this.busy.add(c);
      c.start(p);
    }
    else if (this.slots < this.limit) this.open().start(p);
    else this.queue.push(p);
    return p;
  }

  /**
   * Open up to `count` connections ahead of the load (never past the limit), each with one cheap request `req`
   * (its response read and dropped), at most `maxConnecting` at a time; they then wait idle. A connection counts
   * once answered, not at its TCP handshake: a client sees the handshake done while a server with a full accept
   * queue has dropped its last ACK and accepts it only after a 1 s retransmit. Failures are counted, not thrown.
   */
  prewarm(count: number, opts: { maxConnecting: number; req: H1Request; timeoutMs?: number; signal?: AbortSignal }): Promise<{ opened: number; failed: number }> {
    const timeoutMs = opts.timeoutMs ?? 10_000;
    const bytes = serializeRequest(opts.req, this.host);
    const want = Math.max(0, Math.min(count, this.limit - this.slots));
    const most = Math.max(1, opts.maxConnecting);
    let started = 0;
    let connecting = 0;
    let opened = 0;
    let failed = 0;
    const live = new Set<Pending>();
    // The run's stop (Ctrl-C): connections still opening are given up at once, no new ones are started.
    const onAbort = () => [...live].forEach((p) => p.abort());
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    return new Promise((resolve) => {
      const done = (ok: boolean): void => {
        connecting--;
        if (ok) opened++;
        else failed++;
        pump();
      };
      const pump = (): void => {
        while (connecting < most && started < want && !this.closing && this.slots < this.limit && !opts.signal?.aborted) {
          started++;
          connecting++;
          // A server that never answers must not hold the run: the connection is given up (aborted) after timeoutMs.
          let timer: NodeJS.Timeout | undefined = undefined;
          const end = (ok: boolean) => {
            clearTimeout(timer);
            live.delete(p);
            done(ok);
          };
          const h: H1Handlers = { onHeaders() {}, onData() {}, onEnd: () => end(true), onError: () => end(false) };
          const p: Pending = new Pending(bytes, opts.req.method === 'HEAD', h);
          live.add(p);
          timer = setTimeout(() => p.abort(), timeoutMs);
          this.open().start(p);
        }
        if (connecting === 0) {
          opts.signal?.removeEventListener('abort', onAbort);
          resolve({ opened, failed });
        }
      };
      pump();
    });
  }

  /** Stop taking requests, let queued and running ones finish, close every socket; resolves when all are closed. */
  close(): Promise<void> {
    this.closing = true;
    for (const c of this.idle.splice(0)) c.destroy();
    return this.drained();
  }

  /** Fail queued and running requests with E_POOL_CLOSED and close every socket; resolves when all are closed. */
  destroy(): Promise<void> {
    this.closing = true;
    const err = (phase: 'connect' | 'headers' | 'body') => new H1Error('E_POOL_CLOSED', phase, `pool for ${this.target.where} was destroyed`);
    for (let p = this.next(); p; p = this.next()) {
      p.finished = true;
      p.h.onError(err('connect'));
    }
    for (const c of this.idle.splice(0)) c.destroy();
    for (const c of [...this.busy]) {
      const p = c.req;
      c.detachAndDestroy();
      if (p && !p.finished) {
        p.finished = true;
        p.conn = null;
        p.h.onError(err(c.phase()));
      }
    }
    return this.drained();
  }

  // ---- ConnectionOwner ----------------------------------------------------------------------------------------

  /** Busy connections, for destroy(). */
  private readonly busy = new Set<Connection>();

  release(c: Connection, reusable: boolean): void {
    if (!reusable) {
      c.destroy(); // gone() hands a queued request a new connection
      return;
    }
    const p = this.next();
    if (p) {
      c.start(p);
      return;
    }
    if (this.closing) {
      c.destroy();
      return;
    }
    // Close a second before the server would, so a request never races the server's own idle close.
    const hint = c.keepAliveHintMs();
    const ms = hint === null ? this.keepAliveMs : Math.min(this.keepAliveMs, hint - 1000);
    if (ms <= 0) {
      c.destroy();
      return;
    }
    this.busy.delete(c);
    c.park(ms);
    this.idle.push(c);
  }

  gone(c: Connection): void {
    this.slots--;
    this.busy.delete(c);
    if (c.idle) {
      const i = this.idle.lastIndexOf(c);
      if (i >= 0) this.idle.splice(i, 1);
    }
    if (this.slots < this.limit) {
      const p = this.next();
      if (p) this.open().start(p);
    }
    this.checkDrained();
  }

  resend(p: Pending): void {
    this.queue.splice(this.qHead, 0, p);
  }

  closed(): void {
    this.sockets--;
    this.checkDrained();
  }

  // ---- internals ----------------------------------------------------------------------------------------------

  private open(): Connection {
    this.slots++;
    this.sockets++;
    const c = new Connection(this);
    this.busy.add(c);
    return c;
  }

  /** The next queued request that has not been aborted, or undefined. */
  private next(): Pending | undefined {
    const q = this.queue;
    while (this.qHead < q.length) {
      const p = q[this.qHead++];
      if (!p.finished) {
        this.compact();
        return p;
      }
    }
    if (this.qHead > 0) {
      this.queue = [];
      this.qHead = 0;
    }
    return undefined;
  }

  private compact(): void {
    if (this.qHead > 1024 && this.qHead * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.qHead);
      this.qHead = 0;
    }
  }

  private drained(): Promise<void> {
    return new Promise((resolve) => {
      this.onDrained = resolve;
      this.checkDrained();
    });
  }

  private checkDrained(): void {
    if (this.onDrained && this.sockets === 0 && this.slots === 0 && this.qHead >= this.queue.length) {
      const r = this.onDrained;
      this.onDrained = null;
      r();
    }
  }
}

export type { H1Handlers, H1Request };
