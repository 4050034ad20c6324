// Connections before the clock: how many to open ahead of the load, and opening them on either transport.
import type { Dispatcher } from 'undici';
import { H1Pool } from './h1/index.js';
import type { ConnectGate } from './undici-trace.js';

export type PrewarmChoice = 'auto' | 'off' | number;

/** At most this many connects in flight while prewarming: far below common accept backlogs (Node 511, Linux somaxconn 4096). */
export const PREWARM_MAX_CONNECTING = 32;

/** Open loop: connections kept for this long of arrivals (rate × expected latency, the latency guessed as 2 s). */
export const PREWARM_OPEN_LOOP_S = 2;

/** Open loop without --concurrency: never more than this many ahead of the load (more open on demand). */
export const PREWARM_OPEN_LOOP_MAX = 1024;

export interface PrewarmOptions {
  maxConnecting: number;
  /** The cheap GET sent on each new connection to open it (the run's models path); its answer is dropped. */
  path: string;
  headers: Record<string, string>;
  /** Give a connection up when it is not open and answered within this (min(--timeout, PREWARM_DEADLINE_MS)). */
  timeoutMs?: number;
  /** The run's stop (Ctrl-C): connections still opening are given up at once. Not sent to worker threads. */
  signal?: AbortSignal;
}

/** Longest wait for one prewarm connection (connect, upgrade or first answer), unless --timeout is shorter. */
export const PREWARM_DEADLINE_MS = 10_000;

export interface PrewarmResult {
  opened: number;
  failed: number;
  ms: number;
}

/**
 * Connections to open before the run clock starts:
 * off → 0; a number n → min(n, concurrency ?? ∞);
 * auto, closed loop → concurrency (one per stream, 1 when not given);
 * auto, open loop → min(concurrency ?? PREWARM_OPEN_LOOP_MAX, ceil(rate × PREWARM_OPEN_LOOP_S)).
 * Either way never more than the requests the run sends (--requests plus --warmup): a connection no request can use
 * is only a descriptor spent. The open-file budget is applied after this (checkFdLimit, src/scheduler/fd-limit.ts).
 */
export function prewarmCount(choice: PrewarmChoice, load: { concurrency?: number; rate?: number; requests?: number }): number {
  if (choice === 'off') return 0;
  const cap = Math.min(load.concurrency ?? Infinity, load.requests ?? Infinity);
  if (typeof choice === 'number') return Math.min(choice, cap);
  if (load.rate === undefined) return Math.min(load.concurrency ?? 1, cap);
  return Math.min(load.concurrency ?? PREWARM_OPEN_LOOP_MAX, load.requests ?? Infinity, Math.ceil(load.rate * PREWARM_OPEN_LOOP_S));
}

/** Path and query of the URL a prewarm GET asks for (the query kept: a base URL's ?api-version=... or key applies to it too). */
export function warmPath(url: string): string {
  const u = new URL(url);
  return u.pathname + u.search;
}

/** The connect gate of an undici dispatcher made by agentFor (sender.ts). */
export const undiciGates = new WeakMap<object, ConnectGate>();

/**
 * Open `count` keep-alive connections on this thread's transport, each proven by one cheap GET answered (see
 * H1Pool.prewarm for why). undici picks connections itself, so all `count` GETs are dispatched at once (each takes
 * a connection of its own: one request per connection) while the connect gate lets `maxConnecting` connects run.
 */
export async function prewarmAgent(agent: Dispatcher | H1Pool, origin: string, count: number, o: PrewarmOptions): Promise<PrewarmResult> {
  const t0 = performance.now();
  if (count <= 0) return { opened: 0, failed: 0, ms: 0 };
  const headers = { ...o.headers };
  for (const k of Object.keys(headers)) if (k.toLowerCase() === 'content-type') delete headers[k];
  if (agent instanceof H1Pool) {
    const r = await agent.prewarm(count, { maxConnecting: o.maxConnecting, req: { method: 'GET', path: o.path, headers }, timeoutMs: o.timeoutMs, signal: o.signal }).catch(() => ({ opened: 0, failed: count }));
    return { ...r, ms: performance.now() - t0 };
  }
  const gate = undiciGates.get(agent);
  gate?.prewarming(Math.max(1, o.maxConnecting));
  let opened = 0;
  try {
    const outcomes = await Promise.allSettled(
      Array.from({ length: count }, () =>
        agent.request({ origin, path: o.path, method: 'GET', headers, headersTimeout: o.timeoutMs ?? PREWARM_DEADLINE_MS, bodyTimeout: o.timeoutMs ?? PREWARM_DEADLINE_MS, signal: o.signal }).then((r) => r.body.dump()),
      ),
    );
    for (const x of outcomes) if (x.status === 'fulfilled') opened++;
  } finally {
    gate?.prewarming(null);
  }
  return { opened, failed: count - opened, ms: performance.now() - t0 };
}
