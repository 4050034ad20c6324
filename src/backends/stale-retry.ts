// undici interceptor: a request whose reused keep-alive connection closed before any response byte is sent once more.
//
// Why: a server may close an idle keep-alive connection at any moment (RFC 9112 §9.5), and one that closes right
// after each response races the next request written to it. Such a request got no byte back from a connection the
// server had already closed, so the server did not answer it; real LLM clients (the OpenAI SDKs, browsers) send
// it again, once, on a new connection. The record says so (`reconnected: true`). tokenflood's own pool does the
// same (h1/connection.ts).
import { subscribe } from 'node:diagnostics_channel';
import type { Dispatcher } from 'undici';

type Dispatch = Dispatcher['dispatch'];

/** A handler that wants to hear of the re-send (the Exchange in execute.ts). */
interface ReconnectAware {
  onReconnect?(): void;
}

/**
 * undici's sign of a stale connection: "other side closed" before any response header, on a socket that had
 * read bytes before (an earlier response: undici does not say whether this response had begun, so a fresh
 * connection cut inside a first status line would count too; one retry at most keeps that harmless).
 */
export function isStaleUndici(err: unknown): boolean {
  const e = err as { code?: string; message?: string; socket?: { bytesRead?: number } };
  return e?.code === 'UND_ERR_SOCKET' && (e.message === 'other side closed' || e.message === 'closed') && (e.socket?.bytesRead ?? 0) > 0;
}

/** How a request went out, for the errors that do not carry their socket (a reset: ECONNRESET, EPIPE). */
interface SendFacts {
  /** The socket had carried a request before this one. */
  reused: boolean;
  socket: { bytesRead?: number } | null;
  /** socket.bytesRead when the request's head was written: more later = a response byte arrived. */
  readAtSend: number;
}

/**
 * A reset (RST: ECONNRESET, or EPIPE on the write) of a reused connection before one byte of this response: the
 * same race as a close, seen as a reset by servers that close with unread input (Node's http server does).
 */
export function isStaleReset(err: unknown, f: SendFacts | null): boolean {
  const code = (err as { code?: string })?.code;
  if (!f || !f.reused || (code !== 'ECONNRESET' && code !== 'EPIPE')) return false;
  return (f.socket?.bytesRead ?? 0) === f.readAtSend;
}

// undici tells handlers nothing of sockets: in client-h1.js one synchronous writeH1 runs the handler's
// onRequestStart and then publishes sendHeaders with the socket (as undici-trace.ts relies on too).
const writes = new WeakMap<object, number>();
let starting: StaleRetryHandler | null = null;
let subscribed = false;
function watchSends(): void {
  if (subscribed) return;
  subscribed = true;
  subscribe('undici:client:sendHeaders', (m) => {
    const socket = (m as { socket: { bytesRead?: number } }).socket;
    const n = writes.get(socket) ?? 0;
    writes.set(socket, n + 1);
    if (starting) starting.sent = { reused: n > 0, socket, readAtSend: socket.bytesRead ?? 0 };
    starting = null;
  });
}

export class StaleConnectionError extends Error {
  readonly code = 'E_STALE_SOCKET';
  constructor(cause: unknown) {
    super('reused keep-alive connection closed before any response byte, again after sending the request once more', { cause });
    this.name = 'StaleConnectionError';
  }
}

class StaleRetryHandler implements Dispatcher.DispatchHandler {
  private started = false;
  private resent = false;
  sent: SendFacts | null = null;

  constructor(
    /** Where the re-send goes: a dispatcher whose connections are never reused, so it gets a new one. */
    private readonly dispatch: Dispatch,
    private readonly opts: Dispatcher.DispatchOptions,
    private readonly inner: Dispatcher.DispatchHandler & ReconnectAware,
  ) {}

  onRequestStart(c: Dispatcher.DispatchController, context: unknown): void {
    this.sent = null;
    starting = this;
    this.inner.onRequestStart?.(c, context);
  }
  onRequestUpgrade(c: Dispatcher.DispatchController, status: number, headers: Record<string, string | string[] | undefined>, socket: import('node:stream').Duplex): void {
    this.inner.onRequestUpgrade?.(c, status, headers, socket);
  }
  onResponseStart(c: Dispatcher.DispatchController, status: number, headers: Record<string, string | string[] | undefined>, message: string): void {
    this.started = true;
    this.inner.onResponseStart?.(c, status, headers, message);
  }
  onResponseData(c: Dispatcher.DispatchController, chunk: Buffer): void {
    this.inner.onResponseData?.(c, chunk);
  }
  onResponseEnd(c: Dispatcher.DispatchController, trailers: Record<string, string | string[] | undefined>): void {
    this.inner.onResponseEnd?.(c, trailers);
  }
  onResponseError(c: Dispatcher.DispatchController, err: Error): void {
    if (!this.started && (isStaleUndici(err) || isStaleReset(err, this.sent)) && !c.aborted) {
      if (!this.resent) {
        this.resent = true;
        this.inner.onReconnect?.();
        // Once undici has finished with the dead socket: dispatching from inside its error path leaves the
        // client closing every later connection after one response.
        setImmediate(() => this.dispatch({ ...this.opts, reset: true }, this));
        return;
      }
      err = new StaleConnectionError(err);
    }
    this.inner.onResponseError?.(c, err);
  }
}

/** The interceptor: re-sends go through `resend` (default: the same dispatcher). */
export function staleRetry(resend?: () => Dispatcher): Dispatcher.DispatcherComposeInterceptor {
  watchSends();
  return (dispatch) => (opts, handler) => {
    const again: Dispatch = resend ? (o, h) => resend().dispatch(o, h) : dispatch;
    return dispatch(opts, new StaleRetryHandler(again, opts, handler as Dispatcher.DispatchHandler & ReconnectAware));
  };
}

/**
 * `make()` with stale re-sends: each goes, with `reset: true` (closed after its response), through a second
 * dispatcher made on first need, so it always gets a new connection, never another idle one that may be stale too.
 */
export function withStaleRetry(make: () => Dispatcher): Dispatcher {
  let fresh: Dispatcher | null = null;
  const composed = make().compose(staleRetry(() => (fresh ??= make())));
  const close = () => Promise.all([composed.close(), fresh?.close()]).then(() => {});
  // compose() returns a Proxy of the agent itself: wrap it again rather than change the agent's own close.
  return new Proxy(composed, { get: (t, k) => (k === 'close' ? close : Reflect.get(t, k)) });
}
