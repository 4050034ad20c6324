// The websocket backend's request sender: one connection per in-flight stream, kept for the next request when allowed.
import { WebSocket } from 'ws';
import type { ExecuteResult } from '../execute.js';
import { PREWARM_DEADLINE_MS, type PrewarmOptions, type PrewarmResult } from '../prewarm.js';
import { firstTokenBuffer, inFlightSet, type RequestSender, type WireInput } from '../sender.js';
import { wsClassifier } from './classify.js';
import type { WebSocketConfig } from './config.js';
import { WsExchange } from './exchange.js';
import { render } from './template.js';

export interface WsSenderOptions {
  url: string;
  /** Sent on the upgrade request (authorization, --header). */
  headers: Record<string, string>;
  config: WebSocketConfig;
  /** Run clock, ms since run start. */
  now: () => number;
  /** Longest message accepted (--max-line-bytes); a longer one fails its request as E_LINE_TOO_LONG. */
  maxMessageBytes: number;
}

/** How long close() waits for a server to answer a close frame before dropping the connection. */
const CLOSE_WAIT_MS = 500;

interface Conn {
  ws: WebSocket;
  /** The request this connection is serving, null while idle. */
  current: WsExchange | null;
}

/** The messages of one request: the config's template filled from the body facts (websocket.ts) and the request id. */
export function requestMessages(config: WebSocketConfig, body: string, id: number): string[] {
  const facts = { ...(JSON.parse(body) as Record<string, unknown>), request_id: String(id) };
  return config.request.map((t) => JSON.stringify(render(t, facts)));
}

export function wsSender(o: WsSenderOptions): RequestSender {
  const classify = wsClassifier(o.config);
  const live = inFlightSet();
  const idle: Conn[] = [];
  const all = new Set<Conn>();
  let events = 0;
  const now = o.now;
  const firsts = firstTokenBuffer();
  const onContent = (first: number | null) => {
    events++;
    if (first !== null) firsts.push(first);
  };
  // The upgrade is a GET without a body: the JSON content type of the HTTP backends does not belong on it.
  const headers = Object.fromEntries(Object.entries(o.headers).filter(([k]) => k.toLowerCase() !== 'content-type'));

  /** A new connection; its events go to whichever request it is serving. */
  function connect(): Conn {
    const ws = new WebSocket(o.url, { headers, perMessageDeflate: false, maxPayload: o.maxMessageBytes });
    const conn: Conn = { ws, current: null };
    all.add(conn);
    ws.on('message', (data) => conn.current?.message(data));
    ws.on('ping', () => conn.current?.ping());
    ws.on('unexpected-response', (_req, res) => {
      conn.current?.rejected(res.statusCode ?? 0);
      res.resume();
      ws.terminate();
    });
    ws.on('error', (err) => conn.current?.fail(err));
    ws.on('close', (code, reason) => {
      all.delete(conn);
      const i = idle.indexOf(conn);
      if (i >= 0) idle.splice(i, 1);
      conn.current?.closed(code, reason.toString('utf8'));
    });
    return conn;
  }

  /** The request is over: keep the connection for the next one, or drop it. */
  function release(conn: Conn, broken: boolean): void {
    conn.current = null;
    if (!broken && o.config.reuseConnection && conn.ws.readyState === WebSocket.OPEN) idle.push(conn);
    else if (broken) conn.ws.terminate();
    else conn.ws.close(1000);
  }

  function attach(conn: Conn, ex: WsExchange): void {
    conn.current = ex;
    ex.onRelease = (broken) => release(conn, broken);
  }

  function execute(inp: WireInput): Promise<ExecuteResult> {
    return new Promise((resolve) => {
      const ex = new WsExchange({ ...inp, now, register: live.register, onContent }, classify, resolve);
      let messages: string[];
      try {
        messages = requestMessages(o.config, typeof inp.body === 'string' ? inp.body : Buffer.from(inp.body).toString('utf8'), inp.id);
      } catch (e) {
        return ex.fail(e);
      }
      let conn: Conn | undefined;
      while ((conn = idle.pop()) && conn.ws.readyState !== WebSocket.OPEN);
      if (conn) {
        attach(conn, ex);
        ex.connected(true, null);
        ex.send(conn.ws, messages);
        return;
      }
      const t0 = performance.now();
      let fresh: Conn;
      try {
        fresh = connect();
      } catch (e) {
        return ex.fail(e); // a URL the client cannot use: a failed record, never a crash
      }
      attach(fresh, ex);
      fresh.ws.once('open', () => {
        if (ex.isSettled) return;
        ex.connected(false, performance.now() - t0);
        ex.send(fresh.ws, messages);
      });
    });
  }

  /**
   * Open `count` connections before the clock, at most `maxConnecting` handshakes at a time; failures are counted.
   * Each gives up after `timeoutMs` (a server that accepts TCP and never answers the upgrade must not hold the run),
   * and all stop at once when the run is stopped (Ctrl-C).
   */
  async function prewarm(count: number, p: PrewarmOptions): Promise<PrewarmResult> {
    const t0 = performance.now();
    let opened = 0;
    let failed = 0;
    let next = 0;
    const deadline = p.timeoutMs ?? PREWARM_DEADLINE_MS;
    const one = (): Promise<void> =>
      new Promise((r) => {
        let conn: Conn;
        try {
          conn = connect();
        } catch {
          failed++;
          return r();
        }
        const timer = setTimeout(() => conn.ws.terminate(), deadline);
        const onAbort = () => conn.ws.terminate();
        p.signal?.addEventListener('abort', onAbort, { once: true });
        const done = (ok: boolean) => {
          clearTimeout(timer);
          p.signal?.removeEventListener('abort', onAbort);
          conn.ws.off('open', onOpen);
          conn.ws.off('close', onClose);
          if (ok) (opened++, idle.push(conn));
          else failed++;
          r();
        };
        const onOpen = () => done(true);
        const onClose = () => done(false);
        conn.ws.once('open', onOpen);
        conn.ws.once('close', onClose);
      });
    const lane = async () => {
      while (next < count && !p.signal?.aborted) {
        next++;
        await one();
      }
    };
    await Promise.all(Array.from({ length: Math.max(0, Math.min(p.maxConnecting, count)) }, lane));
    return { opened, failed, ms: performance.now() - t0 };
  }

  return {
    workers: 1,
    execute,
    contentEvents: () => events,
    firstTokens: firsts.drain,
    setOrigin: () => {}, // `now` is the caller's clock, already re-based by the caller
    cancelAll: live.abortAll,
    prewarm,
    async close() {
      await Promise.all(
        [...all].map(
          (c) =>
            new Promise<void>((r) => {
              if (c.ws.readyState === WebSocket.CLOSED) return r();
              const t = setTimeout(() => (c.ws.terminate(), r()), CLOSE_WAIT_MS);
              c.ws.once('close', () => (clearTimeout(t), r()));
              if (c.ws.readyState === WebSocket.OPEN) c.ws.close(1000);
              else c.ws.terminate();
            }),
        ),
      );
    },
  };
}
