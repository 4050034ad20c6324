// The real driver: the wall clock and HTTP to a server (or the embedded simulated server), with client self-health.
import { availableParallelism } from 'node:os';
import { waitUntilUnixMs } from '../shard/start-at.js';
import { localLoad } from '../shard/plan.js';
import { warmupRequests, type RunConfig } from '../config/schema.js';
import { TokenfloodError, UsageError } from '../errors.js';
import { proxyForRun, redactProxyUrl, type ProxyChoice } from '../backends/proxy.js';
import { getClient } from '../backends/http-get.js';
import { inProcessSender, resolveTransport, type RequestSender, type Transport } from '../backends/sender.js';
import { senderPool } from '../backends/sender-pool.js';
import { prewarmCount, warmPath, PREWARM_DEADLINE_MS, PREWARM_MAX_CONNECTING } from '../backends/prewarm.js';
import type { BackendKind } from '../backends/registry.js';
import { getBackend } from '../backends/registry.js';
import type { Backend } from '../backends/backend.js';
import { webSocketUrl } from '../backends/websocket.js';
import { loadWebSocketConfig } from '../backends/ws/config.js';
import { openTarget, preflight, type Target } from '../target.js';
import { measureIdleFloor, startHealthMonitor, type HealthMonitor } from '../metrics/health.js';
import { mediaThreadsOf } from '../dataset/media-pool.js';
import { joinUrl, redactUrl } from '../util/url.js';
import { rampPlan, realWaits } from '../scheduler/scheduler.js';
import { checkFdLimit, type PlannedLoad } from '../scheduler/fd-limit.js';
import type { Driver, DriverClock, OpenedTarget } from './driver.js';
import type { TargetSpec } from '../config/routing.js';
import type { RequestSpec } from '../dataset/types.js';
import { createRouter, type Router } from '../backends/route-policies.js';
import { parseRouteSpec, type RouteSpec } from '../backends/route-rules.js';
import { createRouteTally, type RouteTally } from '../backends/route-tally.js';
import { runLadder, worst, type LadderResult } from './validate-ladder.js';

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

/**
 * Request headers: JSON, no compression unless asked, the API key as the backend carries it (a bearer token unless
 * it has its own auth headers, e.g. x-api-key), each unless the user sends that header with --header.
 */
export function requestHeaders(apiKey: string | undefined, extra: Record<string, string>, auth?: Backend['authHeaders'], contentType = 'application/json'): Record<string, string> {
  // identity: a compressed stream delays and batches events (tokenflood still decodes one, see content.ts).
  const headers: Record<string, string> = { 'content-type': contentType, 'accept-encoding': 'identity', ...extra };
  for (const k of Object.keys(extra)) if (k !== 'accept-encoding' && k.toLowerCase() === 'accept-encoding') delete headers['accept-encoding'];
  const own = new Set(Object.keys(extra).map((k) => k.toLowerCase()));
  const authHeaders = auth ? auth(apiKey) : apiKey ? { authorization: `Bearer ${apiKey}` } : {};
  for (const [k, v] of Object.entries(authHeaders)) if (!own.has(k)) headers[k] = v;
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

/** One endpoint of the run: its URL, headers, model and its own sender (pool, threads), preflight and prewarm. */
interface Endpoint {
  /** Target name in records; undefined in a run with one endpoint (records then carry none). */
  name: string | undefined;
  spec: TargetSpec | undefined;
  target: Target;
  proxy: ProxyChoice | null;
  headers: Record<string, string>;
  url: string;
  model: string;
  weight: number;
  sender?: RequestSender;
}

/** Hash ids of a trace request that prefix-hash keys on: a trace's first block is often shared by every request. */
export const PREFIX_HASH_IDS = 2;

/**
 * Prefix-hash's key: the prefix group when the workload has one, else a trace request's first PREFIX_HASH_IDS hash ids,
 * else the start of the first message (a system prompt).
 */
export function prefixKey(spec: RequestSpec): string {
  if (spec.prefixGroup !== undefined) return `group:${spec.prefixGroup}`;
  if (spec.hashIds?.length) return `hash:${spec.hashIds.slice(0, PREFIX_HASH_IDS).join(',')}`;
  return (spec.messages[0]?.content ?? spec.prompt).slice(0, 256);
}

/** --session-header NAME: the endpoint's headers plus NAME: <session id> for a request of a session (else unchanged). */
export function sessionHeaders(headers: Record<string, string>, name: string | undefined, sessionId: string | undefined): Record<string, string> {
  return name !== undefined && sessionId !== undefined ? { ...headers, [name]: sessionId } : headers;
}

/**
 * `livePool`: the load may be raised during the run (a LoadControl), so the pool is not capped at the starting
 * --concurrency (the executor still bounds what is in flight). `embedded`: an embedded simulated server started by
 * the caller for several runs (--runs N), used instead of starting one when no --base-url is given, and left open.
 */
/** The most requests this process will keep in flight, as far as the config says (a shard's own share). */
export function plannedLoad(c: RunConfig): PlannedLoad {
  const local = localLoad(c);
  const ramp = rampPlan(c);
  const peakVus = ramp?.of === 'vus' && ramp.stages.length ? Math.max(...ramp.stages.map((s) => s.target)) : undefined;
  const peakRate = ramp?.of === 'rate' && ramp.stages.length ? Math.max(...ramp.stages.map((s) => s.target)) : local.rate;
  if (peakVus !== undefined && c.stages !== undefined) return { inFlight: peakVus, flag: '--stages' };
  if (local.concurrency !== undefined) return { inFlight: local.concurrency, flag: '--concurrency' };
  if (peakRate !== undefined) return { rate: peakRate, timeoutS: c.timeout };
  return { inFlight: 1, flag: '--concurrency' };
}

/** The most requests the run sends (--requests plus --warmup N), or undefined when a duration or the data decides. */
function runRequests(c: RunConfig): number | undefined {
  return c.requests === undefined ? undefined : c.requests + warmupRequests(c);
}

export function createRealDriver(c: RunConfig, extraHeaders: Record<string, string>, backend: BackendKind, redact: (s: string) => string, targets: readonly TargetSpec[] = [], opts: { livePool?: boolean; embedded?: Target } = {}): Driver {
  const auth = getBackend(backend).authHeaders;
  const contentType = getBackend(backend).contentType;
  const headers = requestHeaders(c.apiKey, extraHeaders, auth, contentType);
  const clock = wallClock();
  let endpoints: Endpoint[] = [];
  let router: Router | undefined;
  let routed: RouteTally | undefined;
  let health: HealthMonitor | undefined;
  /** Connections to prewarm, planned and fitted to the open-file limit in open(). */
  let prewarmTotal = 0;
  const workers = backend === 'websocket' ? 1 : resolveWorkers({ ...c, ...localLoad(c) });
  /** The websocket section (validated with the rest of the config before the driver exists). */
  const wsConfig = () => {
    const r = loadWebSocketConfig(c.backendConfig);
    return 'config' in r ? r.config : undefined;
  };

  /** Open one endpoint: the proxy that applies to it and its preflight (the model it serves). */
  const openEndpoint = async (t: TargetSpec | undefined, signal: AbortSignal | undefined): Promise<{ ep: Endpoint; pf: Awaited<ReturnType<typeof preflight>> }> => {
    const shared = !t && c.baseUrl === undefined ? opts.embedded : undefined;
    const target = shared ? { ...shared, close: async () => {} } : await openTarget(t ? t.baseUrl : c.baseUrl, c.tokenizer, c);
    const h = t ? requestHeaders(t.apiKey ?? c.apiKey, { ...extraHeaders, ...t.headers }, auth, contentType) : headers;
    // HTTP_PROXY/HTTPS_PROXY/NO_PROXY (src/backends/proxy.ts): a proxy, when one applies, carries the preflight and the run.
    const via = proxyForRun(target.baseUrl, c.transport);
    // On the run's transport: an h1 run never loads undici.
    const probe = getClient({ transport: resolveTransport(c.transport, target.baseUrl, via !== null), proxy: via, connections: 1 });
    // A WebSocket service need not speak HTTP: with --model given there is nothing to ask GET /models.
    const skip = backend === 'websocket' && c.model !== undefined;
    const pf = await (skip ? Promise.resolve({ model: c.model!, models: [c.model!], simTimeScale: undefined, maxModelLen: null }) : preflight(target.baseUrl, h, t?.model ?? c.model, probe, { signal, redact }))
      .catch((e: unknown) => {
        if (via && e instanceof TokenfloodError && e.code === 'E_UNREACHABLE') e.message += ` (through the proxy ${redactProxyUrl(via.uri)} from ${via.source})`;
        throw t ? namedFailure(t.name, e) : e;
      })
      .finally(() => probe.close().catch(() => {}));
    const b = getBackend(backend);
    const ep: Endpoint = { name: t?.name, spec: t, target, proxy: via, headers: h, url: backend === 'websocket' ? webSocketUrl(wsConfig()?.url, target.baseUrl, joinUrl) : joinUrl(target.baseUrl, b.pathFor ? b.pathFor(pf.model) : b.path), model: pf.model, weight: t?.weight ?? 1 };
    return { ep, pf };
  };

  return {
    kind: 'real',
    clock,
    needsBody: true,
    get health() {
      return health;
    },
    async open(signal): Promise<OpenedTarget> {
      // The open-file limit against the planned connections, before the preflight's first request (docs/reliability.md#the-clients-open-file-limit).
      // The prewarm counted too: its connections open all at once, before the clock (an open loop's auto prewarm is
      // up to 1024), so it is cut to what the limit leaves rather than running the process out of descriptors.
      const fd = checkFdLimit({ ...plannedLoad(c), prewarm: prewarmCount(c.prewarm, { ...localLoad(c), requests: runRequests(c) }) });
      prewarmTotal = fd.prewarm;
      if (fd.problem) throw new UsageError([fd.problem]);
      if (fd.notice) process.stderr.write(`tokenflood: ${fd.notice}\n`);
      const opened: Awaited<ReturnType<typeof openEndpoint>>[] = [];
      try {
        for (const t of targets.length ? targets : [undefined]) opened.push(await openEndpoint(t, signal));
      } finally {
        endpoints = opened.map((o) => o.ep);
      }
      const { ep, pf } = opened[0];
      if (targets.length) {
        const spec = parseRouteSpec(c.route) as RouteSpec; // checked with the config
        router = createRouter(spec.policy, endpoints.map((e) => ({ name: e.name!, weight: e.weight })));
        routed = createRouteTally(c.route, spec.rule, endpoints.map((e) => e.name!));
      }
      // The model id comes from the server: it is requested as given, but shown and stored redacted.
      const shownModel = redact(pf.model);
      const shownBaseUrl = redactUrl(ep.target.baseUrl);
      const many = targets.length
        ? {
            route: c.route,
            targets: endpoints.map((e) => ({ name: e.name, url: redactUrl(e.target.baseUrl), weight: e.weight, model: redact(e.model) })),
          }
        : {};
      return {
        model: pf.model,
        shownModel,
        shownBaseUrl: targets.length > 1 ? `${shownBaseUrl} and ${targets.length - 1} more (--route ${c.route})` : shownBaseUrl,
        embedded: ep.target.embedded,
        metaHead: { target_url: shownBaseUrl, embedded_server: ep.target.embedded, embedded_server_isolation: ep.target.isolation, ...many },
        metaTail: { sim_time_scale: pf.simTimeScale ?? null },
        baseUrl: ep.target.baseUrl,
        maxModelLen: pf.maxModelLen,
      };
    },
    async start(so) {
      // A shard opens its own part of the connections (--shard: its streams, its share of the rate).
      const total = prewarmTotal;
      const sumW = endpoints.reduce((a, e) => a + e.weight, 0);
      const warm = { opened: 0, failed: 0, ms: 0 };
      let transport: Transport = 'h1';
      for (const ep of endpoints) {
        transport = resolveTransport(c.transport, ep.target.baseUrl, ep.proxy !== null);
        const poolOpts = { connections: opts.livePool ? null : (localLoad(c).concurrency ?? null), origin: new URL(ep.target.baseUrl).origin, transport, proxy: ep.proxy };
        const ws = backend === 'websocket' ? wsConfig() : undefined;
        // WebSocket streams are sent from this thread (one connection per stream), whatever --workers says.
        // The ws package is loaded only by WebSocket runs.
        if (ws) ep.sender = (await import('../backends/ws/sender.js')).wsSender({ url: ep.url, headers: ep.headers, config: ws, now: clock.now, maxMessageBytes: c.maxLineBytes });
        else ep.sender = workers > 1 ? await senderPool(workers, poolOpts, performance.timeOrigin + clock.restart(), backend) : await inProcessSender(poolOpts, clock.now, backend);
        // Connections before the clock (issue 12): open what the load needs, a bounded number of connects at a time,
        // so the first wave does not overflow the server's accept queue. Failures are counted, never fatal.
        // Several endpoints: each gets its share of the connections (1/N for round-robin, w/Σw otherwise).
        const share = endpoints.length === 1 ? 1 : c.route === 'round-robin' ? 1 / endpoints.length : ep.weight / sumW;
        if (so?.signal?.aborted) break; // Ctrl-C while prewarming: open nothing more
        const timeoutMs = Math.min(c.timeout * 1000, PREWARM_DEADLINE_MS);
        const w = await ep.sender.prewarm(Math.ceil(total * share), { maxConnecting: PREWARM_MAX_CONNECTING, path: warmPath(joinUrl(ep.target.baseUrl, '/models')), headers: ep.headers, timeoutMs, signal: so?.signal });
        warm.opened += w.opened;
        warm.failed += w.failed;
        warm.ms += w.ms;
      }
      // The host's noise floor (issue 25): the idle client's timer lateness, sampled before the clock starts.
      const idleFloor = await measureIdleFloor();
      // --start-at: the shards' clocks start together, after each one's senders are ready and warm.
      const late = so?.startAtUnixMs !== undefined ? await waitUntilUnixMs(so.startAtUnixMs, so.signal) : undefined;
      // The run clock starts once every sender is ready and warm.
      const origin = performance.timeOrigin + clock.restart();
      const sync = so?.sync ? { clock_origin_unix_ms: Date.now(), started_late_ms: late !== undefined ? Math.round(late * 10) / 10 : null } : {};
      for (const ep of endpoints) ep.sender!.setOrigin(origin);
      // Client self-health: event-loop delay of this thread, process CPU judged against the threads doing request work.
      health = startHealthMonitor(clock.now, { threads: workers * endpoints.length + mediaThreadsOf(c), idleFloor });
      const proxy = endpoints[0].proxy;
      return { workers, transport: backend === 'websocket' ? 'websocket' : transport, proxy: proxy ? redactProxyUrl(proxy.uri) : null, connections: { prewarmed: warm.opened, failed: warm.failed, ms: Math.round(warm.ms * 10) / 10 }, ...sync };
    },
    route: targets.length
      ? (spec) => {
          const fixed = routed!.fixed(spec);
          const i = fixed ?? router!.pick({ prefixKey: prefixKey(spec), ...(spec.sessionId !== undefined ? { sessionKey: spec.sessionId } : {}) });
          return { target: i, endpoint: endpoints[i].name!, model: endpoints[i].model };
        }
      : undefined,
    async validate(spec, say, signal) {
      const results: LadderResult[] = [];
      for (const ep of endpoints) {
        const who = endpoints.length > 1 ? `target ${ep.name}: ` : '';
        const r = await runLadder({ url: ep.url, headers: ep.headers, model: ep.model, backend: getBackend(backend), stream: c.stream, ignoreEos: c.ignoreEos, timeoutMs: c.timeout * 1000, spec, proxy: ep.proxy, redact }, (l) => say(who + l), signal).catch((e: unknown) => {
          if (e instanceof TokenfloodError && who) e.message = who + e.message;
          throw e;
        });
        results.push(endpoints.length > 1 ? { ...r, target: ep.name } : r);
      }
      return results.length === 1 ? results[0] : { verdict: worst(results.map((r) => r.verdict)), steps: results.flatMap((r) => r.steps), targets: results, ...(results.some((r) => r.interrupted) ? { interrupted: true as const } : {}) };
    },
    execute(inp, spec, target = 0) {
      const ep = endpoints[target];
      const headers = sessionHeaders(ep.headers, c.sessionHeader, spec?.sessionId);
      if (!router) return ep.sender!.execute({ ...inp, url: ep.url, headers });
      router.started(target);
      return ep.sender!.execute({ ...inp, url: ep.url, headers }).finally(() => router!.finished(target));
    },
    cancelAll: () => {
      for (const ep of endpoints) ep.sender?.cancelAll();
    },
    contentEvents: () => endpoints.reduce((a, ep) => a + (ep.sender?.contentEvents() ?? 0), 0),
    firstTokens: () => endpoints.flatMap((ep) => ep.sender?.firstTokens?.() ?? []),
    drive: (main) => main(),
    finish: () => ({ client_health: health?.stop(), ...(routed ? { routing: routed.summary() } : {}) }),
    async close() {
      for (const ep of endpoints) {
        await ep.sender?.close();
        await ep.target.close();
      }
    },
  };
}

/** A preflight failure of one of several endpoints, naming it (never its URL's credentials: the message is already redacted). */
function namedFailure(name: string, e: unknown): unknown {
  if (e instanceof UsageError) return new UsageError(e.problems.map((p) => `target ${name}: ${p}`));
  if (e instanceof TokenfloodError) e.message = `target ${name}: ${e.message}`;
  return e;
}
