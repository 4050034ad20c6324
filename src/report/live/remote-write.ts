// --out prometheus-rw=URL: push the run's registry by Prometheus remote write every --out-interval and once at the end.
import { stripControls } from '../../util/terminal-text.js';
import { compress } from 'snappyjs';
import type { Registry } from 'prom-client';
import { encodeWriteRequest, samplesOf } from './write-request.js';
import { shownOutputUrl } from '../../config/live-metrics.js';

export interface RemoteWriter {
  /** Push once now (no-op while a push is in flight), never throwing. */
  push(): Promise<void>;
  /** Stop the interval, then push the final values (waits at most `finalTimeoutMs`). */
  close(): Promise<void>;
  /** Pushes that succeeded (2xx) and that failed, so far. */
  readonly stats: { ok: number; failed: number };
}

export interface RemoteWriteOptions {
  url: string;
  intervalMs: number;
  /** Called once, at the first failure: the run goes on, the warning says so. */
  warn: (line: string) => void;
  /** Deadline of one push (default min(interval, 10 s)). */
  timeoutMs?: number;
  now?: () => number;
}

/** The URL without user info, and the Basic authorization that user info stands for (fetch refuses URLs carrying credentials). */
export function splitCredentials(url: string): { url: string; authorization?: string } {
  const u = new URL(url);
  if (!u.username && !u.password) return { url };
  const auth = `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64')}`;
  u.username = '';
  u.password = '';
  return { url: u.toString(), authorization: auth };
}

/**
 * Start pushing. Pushes never overlap and never wait on the run: the timer is unref'd, a slow or failing endpoint
 * only costs its own request (bounded by the deadline), and its failure is warned once, without the URL's secrets.
 */
/** " to host:port" of a redirect's Location (never its path, query or user info, which may carry secrets); "" when absent or bad. */
function redirectHost(location: string | null, base: string): string {
  if (!location) return ' without a Location';
  try {
    return ` to ${stripControls(new URL(location, base).host)}`;
  } catch {
    return ' to an unreadable Location';
  }
}

export function startRemoteWrite(registry: Registry, o: RemoteWriteOptions): RemoteWriter {
  const { url, authorization } = splitCredentials(o.url);
  const timeoutMs = o.timeoutMs ?? Math.min(o.intervalMs, 10_000);
  const now = o.now ?? Date.now;
  const stats = { ok: 0, failed: 0 };
  let warned = false;
  let inFlight: Promise<void> | undefined;
  const fail = (why: string) => {
    stats.failed++;
    if (warned) return;
    warned = true;
    o.warn(`WARNING: remote write to ${shownOutputUrl(o.url)} failed (${why}); the run goes on, later failures are not reported`);
  };
  const once = async (): Promise<void> => {
    try {
      const body = compress(encodeWriteRequest(samplesOf(await registry.getMetricsAsJSON(), now())));
      const headers: Record<string, string> = {
        'content-type': 'application/x-protobuf',
        'content-encoding': 'snappy',
        'x-prometheus-remote-write-version': '0.1.0',
        'user-agent': 'tokenflood',
      };
      if (authorization) headers.authorization = authorization;
      // A redirect is not followed (the body and credentials would go wherever it points): it is reported as such.
      const res = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
      // The body is not read into anything shown: server text stays out of the terminal.
      await res.body?.cancel().catch(() => {});
      if (res.ok) stats.ok++;
      else if (res.status >= 300 && res.status < 400) fail(`HTTP ${res.status} redirect${redirectHost(res.headers.get('location'), url)}; redirects are not followed: give --remote-write the final URL`);
      else fail(`HTTP ${res.status}`);
    } catch (e) {
      const err = e as Error & { cause?: { code?: string } };
      fail(err.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (err.cause?.code ?? `${err.name}: ${stripControls(String(err.message)).slice(0, 120)}`));
    }
  };
  const push = (): Promise<void> => (inFlight ??= once().finally(() => (inFlight = undefined)));
  const timer = setInterval(() => void push(), o.intervalMs);
  timer.unref();
  return {
    push,
    stats,
    close: async () => {
      clearInterval(timer);
      await inFlight;
      await push();
    },
  };
}
