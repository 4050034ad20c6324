// Request senders send requests and record them: in this thread, or spread over worker threads each with its own HTTP pool.
import type { Dispatcher } from 'undici';
import type { ProxyChoice } from './proxy.js';
import { H1Pool } from './h1/index.js';
import { executeRequest, type ExecuteInput, type ExecuteResult } from './execute.js';
import { getBackend, type BackendKind } from './registry.js';
import type { Abortable } from './exchange-timers.js';
import { prewarmAgent, type PrewarmOptions, type PrewarmResult } from './prewarm.js';

/** What crosses a thread boundary: the request minus the dispatcher, clock, cancel registration and the backend's classifier. */
export type WireInput = Omit<ExecuteInput, 'dispatcher' | 'now' | 'register' | 'onContent' | 'classifier'>;

/** The requests in flight on one thread, so all can be cancelled at once. */
export function inFlightSet(): { register: (ac: Abortable) => () => void; abortAll: () => void } {
  const live = new Set<Abortable>();
  return {
    register: (ac) => {
      live.add(ac);
      return () => live.delete(ac);
    },
    abortAll: () => {
      for (const ac of [...live]) ac.abort();
    },
  };
}

/** Sends requests (not to be confused with the scheduler's executors, which decide when). */
export interface RequestSender {
  readonly workers: number;
  execute(inp: WireInput): Promise<ExecuteResult>;
  /** Move the run clock's origin (absolute ms, performance.timeOrigin-based) once setup is done. */
  setOrigin(originAbsMs: number): void;
  /** Content events (answer/reasoning chunks) received so far by every thread: the live line's token counter. */
  contentEvents(): number;
  /** The TTFTs (ms) of measured requests whose first token arrived since the last call: the live TTFT, before they end. */
  firstTokens?(): number[];
  /** Abort every request in flight (they end as `cancelled`). */
  cancelAll(): void;
  /** Open `count` keep-alive connections to the origin before the measured phase (src/backends/prewarm.ts). */
  prewarm(count: number, o: PrewarmOptions): Promise<PrewarmResult>;
  close(): Promise<void>;
}

export type Transport = 'h1' | 'undici';

export interface PoolOptions {
  /** Max connections per origin for this pool; null = unlimited (open loop without a cap). */
  connections: number | null;
  /** The server's origin (scheme, host, port). */
  origin: string;
  transport: Transport;
  /** The proxy that carries the requests (undici only), or null/absent for direct connections. */
  proxy?: ProxyChoice | null;
}

/**
 * --transport auto: tokenflood's HTTP/1.1 pool for http:// (measured cheaper per event), undici for https:// and
 * whenever a proxy applies (the pool has no proxy support).
 */
export function resolveTransport(choice: 'auto' | Transport, origin: string, proxied = false): Transport {
  if (choice !== 'auto') return choice;
  return origin.startsWith('http://') && !proxied ? 'h1' : 'undici';
}

export async function agentFor(o: PoolOptions): Promise<Dispatcher | H1Pool> {
  // The pool is sized to the load: never a hidden cap on concurrency.
  if (o.transport === 'h1') return new H1Pool(o.origin, { connections: o.connections, keepAliveMs: 60_000 });
  // undici costs ~15 MB and ~0.1 CPU-s to load: only runs that use it import it.
  return (await import('./undici-agents.js')).undiciAgent(o);
}

/** TTFTs noted at first token until the live view drains them; bounded when nothing drains (no live display). */
export const FIRST_TOKENS_MAX = 10_000;

export function firstTokenBuffer(): { push: (ms: number) => void; drain: () => number[] } {
  let xs: number[] = [];
  return {
    push: (ms) => {
      if (xs.length < FIRST_TOKENS_MAX) xs.push(ms);
    },
    drain: () => {
      const out = xs;
      xs = [];
      return out;
    },
  };
}

/** Sends requests on this thread's event loop; `backend` reads their responses. */
export async function inProcessSender(o: PoolOptions, now: () => number, backend: BackendKind): Promise<RequestSender> {
  const agent = await agentFor(o);
  const classifier = getBackend(backend);
  const live = inFlightSet();
  let events = 0;
  const firsts = firstTokenBuffer();
  const onContent = (first: number | null) => {
    events++;
    if (first !== null) firsts.push(first);
  };
  return {
    workers: 1,
    execute: (inp) => executeRequest({ ...inp, dispatcher: agent, now, register: live.register, onContent, classifier }),
    contentEvents: () => events,
    firstTokens: firsts.drain,
    setOrigin: () => {}, // `now` is the caller's clock, already re-based by the caller
    cancelAll: live.abortAll,
    prewarm: (count, p) => prewarmAgent(agent, o.origin, count, p),
    close: () => agent.close().catch(() => {}),
  };
}
