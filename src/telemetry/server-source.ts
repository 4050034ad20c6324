// The server-metrics timeline source: scrapes Prometheus text every interval on its own connection, writes server_metrics.jsonl.
import { entryFile } from '../package-root.js';
import { Worker } from 'node:worker_threads';
import type { ProxyChoice } from '../backends/proxy.js';
import { getClient } from '../backends/http-get.js';
import type { GetClientOptions } from '../backends/get-client.js';
import { resolveTransport } from '../backends/sender.js';
import { redactUrl } from '../util/url.js';
import { stripControls } from '../util/terminal-text.js';
import { scrapeOnce, type ScrapeRequest, type ScrapeResult } from './scrape-once.js';
import { SampleWriter, SERVER_METRICS_JSONL } from './sample-writer.js';
import { probeIdentity, type ServerIdentity } from './identity.js';
import type { SourceContext, SourceResult, TimelineSource } from './source.js';
import type { Engine } from './engines.js';

/** Default --scrape-max-bytes: a /metrics page is cut at its last whole line past this (vLLM's is tens of KiB). */
export const DEFAULT_SCRAPE_MAX_BYTES = 4 << 20;
/** Longest a scrape may take, whatever the interval: a hung one is aborted, never waited for. */
export const MAX_SCRAPE_DEADLINE_MS = 2000;
/** 65536 → "64 KiB", 4194304 → "4 MiB". */
const size = (b: number): string => (b >= 1 << 20 ? `${+(b / (1 << 20)).toFixed(1)} MiB` : `${+(b / 1024).toFixed(1)} KiB`);
/** Time a scrape's parse may add past its deadline before the worker's answer is given up on (counted as failed). */
const PARSE_GRACE_MS = 5000;

/** Fetches and parses /metrics pages: in a worker thread, so a page of any size is never parsed on the measuring thread. */
interface Scraper {
  /** Which thread parses: `worker`, or `in-thread` when the compiled worker is missing (tests run from sources without a build). */
  readonly where: 'worker' | 'in-thread';
  /** Resolves once the worker thread runs (or at once in-thread); a worker that fails to start resolves too, its scrapes then fail. */
  readonly ready: Promise<void>;
  scrape(req: ScrapeRequest): Promise<ScrapeResult>;
  close(): Promise<void>;
}

function workerFile(): URL | undefined {
  return entryFile(import.meta.url, './scrape-worker.js', 'telemetry/scrape-worker.js');
}

function createScraper(o: GetClientOptions): Scraper {
  const file = workerFile();
  if (!file) {
    const client = getClient(o);
    const stopAll = new AbortController();
    return { where: 'in-thread', ready: Promise.resolve(), scrape: (r) => scrapeOnce(client, r, stopAll.signal), close: async () => (stopAll.abort(), await client.close().catch(() => {})) };
  }
  const w = new Worker(file, { workerData: o });
  w.unref();
  const ready = new Promise<void>((resolve) => {
    w.on('message', (m: { ready?: true }) => m.ready && resolve());
    w.once('error', () => resolve());
    w.once('exit', () => resolve());
  });
  const waiting = new Map<number, (r: ScrapeResult) => void>();
  let next = 0;
  let dead: string | undefined;
  const failAll = (why: string): void => {
    dead ??= why;
    for (const done of waiting.values()) done({ ok: false, error: why });
    waiting.clear();
  };
  w.on('message', (m: { id: number; r: ScrapeResult }) => {
    const done = waiting.get(m.id);
    waiting.delete(m.id);
    done?.(m.r);
  });
  w.on('error', (e) => failAll(`scrape worker failed: ${e.message}`));
  w.on('exit', () => failAll('scrape worker ended'));
  return {
    where: 'worker',
    ready,
    scrape: (req) =>
      new Promise((resolve) => {
        if (dead) return resolve({ ok: false, error: dead });
        const id = next++;
        const guard = setTimeout(() => {
          waiting.delete(id);
          resolve({ ok: false, error: `no parsed answer within ${req.deadlineMs + PARSE_GRACE_MS} ms` });
        }, req.deadlineMs + PARSE_GRACE_MS);
        guard.unref();
        waiting.set(id, (r) => (clearTimeout(guard), resolve(r)));
        w.postMessage({ id, req });
      }),
    close: async () => {
      dead ??= 'stopped';
      w.postMessage({ stop: true });
      // The worker closes its connections and ends; terminate() is the bound if it does not within a second.
      const ended = new Promise<void>((r) => w.once('exit', () => r()));
      const t = setTimeout(() => void w.terminate(), 1000);
      await ended;
      clearTimeout(t);
    },
  };
}

export interface ServerMetricsOptions {
  /** Where /metrics is; `auto` = the target's origin, given up quietly (one line) when it is not Prometheus text. */
  url: string;
  auto: boolean;
  intervalMs: number;
  /** Headers sent with each scrape and identity probe (the run's credentials only when the user asked). */
  headers: Record<string, string>;
  /** The target's origin, for the identity probes (/version, /get_server_info). */
  origin: string;
  /** max_model_len of the model under test, as the preflight read it from /models. */
  maxModelLen: number | null;
  redact: (s: string) => string;
  /** The proxy HTTP_PROXY/HTTPS_PROXY/NO_PROXY name for the metrics URL: scrapes take the same way out as the run. */
  proxy: ProxyChoice | null;
  /** --scrape-max-bytes: a larger page is cut at its last whole line, with one warning. */
  maxBytes?: number;
}

export function serverMetricsSource(o: ServerMetricsOptions): TimelineSource {
  // Scrapes on the worker's own connection, identity probes on this one: a probe never holds up a scrape.
  // On tokenflood's h1 pool for plain http without a proxy (no undici to load), as the run's requests.
  const clientOptions: GetClientOptions = { transport: resolveTransport('auto', o.url, o.proxy !== null), proxy: o.proxy, connections: 1, keepAliveMs: 10_000 };
  const client = getClient(clientOptions);
  let scraper: Scraper | undefined;
  const maxBytes = o.maxBytes ?? DEFAULT_SCRAPE_MAX_BYTES;
  let truncatedWarned = false;
  let rejected = 0;
  const deadlineMs = Math.min(o.intervalMs, MAX_SCRAPE_DEADLINE_MS);
  const shownUrl = redactUrl(o.url);
  let ctx: SourceContext | undefined;
  let writer: SampleWriter | undefined;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;
  let stopped = false;
  let found = false;
  let failed = 0;
  let engine: Engine | null = null;
  let identity: Promise<ServerIdentity> | undefined;
  let lastError = '';
  /** Server text made inert and free of credentials before it is printed. */
  const shown = (s: string): string => stripControls(o.redact(s)).slice(0, 200);

  /** With --server-metrics auto, the first scrape, done by prepare() on this thread before the run clock starts. */
  let first: ScrapeResult | undefined;

  /** One scrape: its sample is written when it parses; a failure is counted (and never thrown). */
  async function scrape(): Promise<boolean> {
    scraper ??= createScraper(clientOptions);
    return take(await scraper.scrape({ url: o.url, headers: o.headers, deadlineMs, maxBytes, engine }));
  }

  /** A scrape's result into the timeline; `atMs` dates a sample taken before the run clock started. */
  function take(r: ScrapeResult, atMs?: number): boolean {
    if (!r.ok) {
      failed++;
      lastError = shown(r.error);
      return false;
    }
    // Dated when the response arrived, before the parse: the run clock is this thread's.
    const t = atMs ?? ctx!.now() - r.lagMs;
    const sample = r.sample;
    sample.t_ms = Math.round(t * 1000) / 1000;
    engine ??= sample.engine;
    if (r.truncated && !truncatedWarned) {
      truncatedWarned = true;
      ctx!.notice(`server metrics page at ${shownUrl} is larger than --scrape-max-bytes (${size(maxBytes)}): only its first ${size(maxBytes)} are read each scrape; series past that are missing`);
    }
    if (sample.rejected) {
      if (!rejected) ctx!.notice(`server metrics at ${shownUrl}: a value out of range was dropped (${shown(sample.rejected.first)}); such values are counted, not used (docs/telemetry.md#sanity)`);
      rejected += sample.rejected.count;
    }
    (writer ??= new SampleWriter(ctx!.outDir, o.redact)).write(sample);
    ctx!.onSample?.({ source: 'server', tMs: t, line: sample as unknown as Record<string, unknown> });
    return true;
  }

  function schedule(next: number): void {
    if (stopped) return;
    timer = setTimeout(() => {
      // A scrape still running when the next is due is left to finish: the next one is skipped, not queued.
      if (!inFlight) inFlight = scrape().then(() => void (inFlight = undefined));
      schedule(next + o.intervalMs);
    }, Math.max(0, next - ctx!.now()));
    timer.unref?.();
  }

  return {
    name: 'server-metrics',
    async prepare() {
      // With --server-metrics auto the first scrape decides whether there are metrics at all. It is done here, on this
      // thread before any request: a server without them (test servers, many gateways) then costs no worker thread,
      // which is a whole V8 isolate, ~10 MB and ~0.1 CPU-s (docs/performance.md#issue-30-start-up-and-memory).
      if (o.auto) first = await scrapeOnce(client, { url: o.url, headers: o.headers, deadlineMs, maxBytes, engine: null });
      if (first && !first.ok) return;
      // The worker thread starts before the run clock does: spawning it takes tens of ms, which the first scrape in
      // start() would otherwise spend on the clock before the first request.
      scraper ??= createScraper(clientOptions);
      await scraper.ready;
    },
    async start(c) {
      ctx = c;
      // The first scrape is done before the first request (by prepare() under auto: dated at the clock's start).
      found = first ? take(first, c.now()) : await scrape();
      first = undefined;
      if (found) identity = probeIdentity(o.origin, engine, { client, headers: o.headers, redact: o.redact });
      if (!found) c.notice(`server metrics not found at ${shownUrl} (${lastError})${o.auto ? '; running without them (--no-server-metrics skips the check)' : '; still trying every interval'}`);
      if (!found && o.auto) {
        stopped = true;
        return;
      }
      schedule(c.now() + o.intervalMs);
    },
    async stop(): Promise<SourceResult> {
      if (!stopped && ctx) {
        stopped = true;
        clearTimeout(timer);
        await inFlight;
        // One last sample after the last answer, so every request's observations are inside the window.
        if (found || !o.auto) found = (await scrape()) || found;
      }
      stopped = true;
      clearTimeout(timer);
      await scraper?.close();
      await writer?.close();
      const id = identity ? await identity : {};
      await client.close().catch(() => {});
      const samples = writer?.written ?? 0;
      const meta: Record<string, unknown> = {
        server_metrics: { url: shownUrl, found, engine, samples, failed_scrapes: found ? failed : Math.max(0, failed - 1), interval_ms: o.intervalMs, max_bytes: maxBytes, rejected_values: rejected, parsed_in: scraper?.where ?? null, ...(writer?.failure ? { write_error: writer.failure } : {}) },
        ...(found ? { server_identity: { engine, ...id, max_model_len: o.maxModelLen } } : {}),
      };
      return { meta, files: samples > 0 && !writer?.failure ? [SERVER_METRICS_JSONL] : [] };
    },
  };
}
