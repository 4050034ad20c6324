// Per-request connection facts for undici: which socket a request went out on, its connect timings, when it was sent.
//
// undici says nothing of sockets to a dispatch handler, so these come from its diagnostics channels. In
// client-h1.js one synchronous call (writeH1) runs the handler's onRequestStart, publishes sendHeaders (with the
// socket) and, after socket.write of a string/Buffer body returned, publishes bodySent: the request whose
// onRequestStart ran last is the one both messages are about.
import { subscribe } from 'node:diagnostics_channel';
import type { buildConnector } from 'undici';

/** What the connector measured for one socket; `served` counts requests written on it. */
export interface SocketFacts {
  served: number;
  /** performance.now() when the connect began (after any wait at the gate), or null when not measured (proxy). */
  connectStartAt: number | null;
  connectingMs: number | null;
  /** TLS handshake; null for http or when not measured. */
  tlsMs: number | null;
}

/** The handler side: the Exchange in execute.ts. */
export interface TracedRequest {
  tracedSocket(reused: boolean, facts: SocketFacts): void;
  /** performance.now() right after the request's last byte was written to the socket. */
  tracedSent(at: number): void;
}

const sockets = new WeakMap<object, SocketFacts>();
let current: TracedRequest | null = null;
let currentRequest: unknown = null;
let subscribed = false;

function factsOf(socket: object): SocketFacts {
  let f = sockets.get(socket);
  if (!f) sockets.set(socket, (f = { served: 0, connectStartAt: null, connectingMs: null, tlsMs: null }));
  return f;
}

/** Subscribe this thread once to the two channels (only undici runs need it). */
export function traceUndici(): void {
  if (subscribed) return;
  subscribed = true;
  subscribe('undici:client:sendHeaders', (m) => {
    const { request, socket } = m as { request: unknown; socket: object };
    const f = factsOf(socket);
    const reused = f.served++ > 0;
    const ex = current;
    if (!ex) return; // a request that is not a run's (prewarm)
    currentRequest = request;
    ex.tracedSocket(reused, f);
  });
  subscribe('undici:request:bodySent', (m) => {
    const at = performance.now();
    if (current && (m as { request: unknown }).request === currentRequest) current.tracedSent(at);
    current = null;
    currentRequest = null;
  });
}

/** Called from onRequestStart: the next sendHeaders/bodySent on this thread are this request's. */
export function traceStart(ex: TracedRequest): void {
  current = ex;
  currentRequest = null;
}

/**
 * Caps connections being opened while prewarming: a slot is held from the connect until the first response byte
 * (a server with a full accept queue drops the handshake's last ACK and accepts only after a 1 s retransmit, while
 * the client already counts the socket connected). null = no cap: during the run undici opens connections as always.
 */
export interface ConnectGate {
  prewarming(maxConnecting: number | null): void;
}

/** undici's own connector, timed per socket and behind a gate of at most N connects in flight. */
export function tracedConnector(build: typeof buildConnector): { connect: buildConnector.connector; gate: ConnectGate } {
  const base = build({}) as unknown as (o: buildConnector.Options, cb: buildConnector.Callback) => { once?(ev: string, f: () => void): void } | undefined;
  let limit = Infinity;
  let holding = false;
  let active = 0;
  const waiting: (() => void)[] = [];
  const pump = () => {
    while (active < limit && waiting.length) waiting.shift()!();
  };
  const connect: buildConnector.connector = (opts, cb) => {
    const go = () => {
      active++;
      const hold = holding;
      const startAt = performance.now();
      let tcpAt = 0;
      let done = false;
      const release = () => {
        if (done) return;
        done = true;
        active--;
        pump();
      };
      const s = base(opts, (err, sock) => {
        // 'readable' only signals: undici reads the socket itself (paused mode), so listening takes nothing from it.
        if (!err && sock && hold) {
          const ev = sock as unknown as { once(ev: string, f: () => void): void };
          ev.once('readable', release);
          ev.once('close', release);
        } else release();
        const t = performance.now();
        if (!err && sock) {
          const f = factsOf(sock);
          const tcp = tcpAt || t;
          f.connectStartAt = startAt;
          f.connectingMs = tcp - startAt;
          f.tlsMs = opts.protocol === 'https:' ? t - tcp : null;
        }
        (cb as (e: Error | null, s: unknown) => void)(err, sock);
      });
      // For https the TCP connect comes first ('connect'), then 'secureConnect' calls back; for http only one.
      s?.once?.('connect', () => (tcpAt = performance.now()));
    };
    waiting.push(go);
    pump();
  };
  return {
    connect,
    gate: {
      prewarming(n: number | null) {
        limit = n ?? Infinity;
        holding = n !== null;
        pump();
      },
    },
  };
}
