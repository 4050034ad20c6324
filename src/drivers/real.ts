// The real driver: the wall clock and HTTP to a server (or the embedded simulated server), with client self-health.
import { availableParallelism } from 'node:os';
import type { RunConfig } from '../config/schema.js';
import { TokenfloodError } from '../errors.js';
import { proxyForRun, redactProxyUrl, type ProxyChoice } from '../backends/proxy.js';
import { getClient } from '../backends/http-get.js';
import { inProcessSender, resolveTransport, type RequestSender } from '../backends/sender.js';
import { senderPool } from '../backends/sender-pool.js';
import { prewarmCount, warmPath, PREWARM_MAX_CONNECTING } from '../backends/prewarm.js';
import type { BackendKind } from '../backends/registry.js';
import { getBackend } from '../backends/registry.js';
import { openTarget, preflight, type Target } from '../target.js';
import { startHealthMonitor, type HealthMonitor } from '../metrics/health.js';
import { joinUrl, redactUrl } from '../util/url.js';
import { realWaits } from '../scheduler/scheduler.js';
import type { Driver, DriverClock, OpenedTarget } from './driver.js';

/**
 * --workers auto: one thread for light loads; for heavy loads one per core except the one the main thread
 * (scheduling, records) needs. Worker threads add cores, not cheaper work: on 2 cores two threads received
 * 30% fewer tokens than one (docs/performance.md), so a 2-core machine stays at 1.
 */
export function resolveWorkers(c: Pick<RunConfig, 'workers' | 'concurrency' | 'rate'>): number {
  if (c.workers !== 'auto') return c.workers;
  const heavy = (c.concurrency ?? 0) > 64 || (c.rate ?? 0) > 100;
  return heavy ? Math.max(1, availableParallelism() - 1) : 1;
}

/** Request headers: JSON, no compression unless asked, the API key as a bearer token unless the user sends their own Authorization. */
export function requestHeaders(apiKey: string | undefined, extra: Record<string, string>): Record<string, string> {
  // identity: a compressed stream delays and batches events (tokenflood still decodes one, see content.ts).
  const headers: Record<string, string> = { 'content-type': 'application/json', 'accept-encoding': 'identity', ...extra };
  for (const k of Object.keys(extra)) if (k !== 'accept-encoding' && k.toLowerCase() === 'accept-encoding') delete headers['accept-encoding'];
  const ownAuth = Object.keys(extra).some((k) => k.toLowerCase() === 'authorization');
  if (apiKey && !ownAuth) headers.authorization = `Bearer ${apiKey}`;
  return headers;
}

/** The wall clock, re-based when the run starts (worker threads take a while to boot). */
function wallClock(): DriverClock & { restart(): number } {
  let t0 = performance.now();
  const now = () => performance.now() - t0;
  return {
    now,
    ...realWaits(now),
    restart: () => (t0 = performance.now()),
  };
}

export function createRealDriver(c: RunConfig, extraHeaders: Record<string, string>, backend: BackendKind, redact: (s: string) => string): Driver {
  const headers = requestHeaders(c.apiKey, extraHeaders);
  const clock = wallClock();
  let target: Target | undefined;
  let proxy: ProxyChoice | null = null;
  let url = '';
  let sender: RequestSender | undefined;
  let health: HealthMonitor | undefined;
  const workers = resolveWorkers(c);

  return {
    kind: 'real',
    clock,
    needsBody: true,
    get health() {
      return health;
    },
    async open(signal): Promise<OpenedTarget> {
      target = await openTarget(c.baseUrl, c.tokenizer, c);
      // HTTP_PROXY/HTTPS_PROXY/NO_PROXY (src/backends/proxy.ts): a proxy, when one applies, carries the preflight and the run.
      proxy = proxyForRun(target.baseUrl, c.transport);
      const via = proxy;
      // On the run's transport: an h1 run never loads undici.
      const probe = getClient({ transport: resolveTransport(c.transport, target.baseUrl, via !== null), proxy: via, connections: 1 });
      const pf = await preflight(target.baseUrl, headers, c.model, probe, { signal, redact })
        .catch((e: unknown) => {
          if (via && e instanceof TokenfloodError && e.code === 'E_UNREACHABLE') e.message += ` (through the proxy ${redactProxyUrl(via.uri)} from ${via.source})`;
          throw e;
        })
        .finally(() => probe.close().catch(() => {}));
      url = joinUrl(target.baseUrl, getBackend(backend).path);
      // The model id comes from the server: it is requested as given, but shown and stored redacted.
      const shownModel = redact(pf.model);
      const shownBaseUrl = redactUrl(target.baseUrl);
      return {
        model: pf.model,
        shownModel,
        shownBaseUrl,
        embedded: target.embedded,
        metaHead: { target_url: shownBaseUrl, embedded_server: target.embedded, embedded_server_isolation: target.isolation },
        metaTail: { sim_time_scale: pf.simTimeScale ?? null },
        baseUrl: target.baseUrl,
        maxModelLen: pf.maxModelLen,
      };
    },
    async start() {
      const t = target as Target;
      const transport = resolveTransport(c.transport, t.baseUrl, proxy !== null);
      const poolOpts = { connections: c.concurrency ?? null, origin: new URL(t.baseUrl).origin, transport, proxy };
      sender = workers > 1 ? await senderPool(workers, poolOpts, performance.timeOrigin + clock.restart(), backend) : await inProcessSender(poolOpts, clock.now, backend);
      // Connections before the clock (issue 12): open what the load needs, a bounded number of connects at a time,
      // so the first wave does not overflow the server's accept queue. Failures are counted, never fatal.
      const warm = await sender.prewarm(prewarmCount(c.prewarm, c), { maxConnecting: PREWARM_MAX_CONNECTING, path: warmPath(joinUrl(t.baseUrl, '/models')), headers });
      // The run clock starts once the sender is ready and warm.
      sender.setOrigin(performance.timeOrigin + clock.restart());
      // Client self-health: event-loop delay of this thread, process CPU judged against the threads doing request work.
      health = startHealthMonitor(clock.now, { threads: workers });
      return { workers, transport, proxy: proxy ? redactProxyUrl(proxy.uri) : null, connections: { prewarmed: warm.opened, failed: warm.failed, ms: Math.round(warm.ms * 10) / 10 } };
    },
    execute: (inp) => (sender as RequestSender).execute({ ...inp, url, headers }),
    cancelAll: () => sender?.cancelAll(),
    contentEvents: () => sender?.contentEvents() ?? 0,
    drive: (main) => main(),
    finish: () => ({ client_health: health?.stop() }),
    async close() {
      await sender?.close();
      await target?.close();
    },
  };
}
