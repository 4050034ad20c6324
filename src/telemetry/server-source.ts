// The server-metrics timeline source: scrapes Prometheus text every interval on its own connection, writes server_metrics.jsonl.
import { join } from 'node:path';
import type { ProxyChoice } from '../backends/proxy.js';
import { getClient } from '../backends/http-get.js';
import { resolveTransport } from '../backends/sender.js';
import { redactUrl } from '../util/url.js';
import { getCapped } from './fetch-capped.js';
import { isPromText, parsePromText, type PromText } from './prom-text.js';
import { normalizeScrape } from './normalize.js';
import { SampleWriter, SERVER_METRICS_JSONL } from './sample-writer.js';
import { probeIdentity, type ServerIdentity } from './identity.js';
import type { SourceContext, SourceResult, TimelineSource } from './source.js';
import type { Engine } from './engines.js';

/** A /metrics body larger than this is cut (and then fails to parse): vLLM's is tens of KiB. */
const MAX_SCRAPE_BYTES = 16 << 20;
/** Longest a scrape may take, whatever the interval: a hung one is aborted, never waited for. */
export const MAX_SCRAPE_DEADLINE_MS = 2000;

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
}

export function serverMetricsSource(o: ServerMetricsOptions): TimelineSource {
  // Two connections: an identity probe never holds up a scrape.
  // On tokenflood's h1 pool for plain http without a proxy (no undici to load), as the run's requests.
  const client = getClient({ transport: resolveTransport('auto', o.url, o.proxy !== null), proxy: o.proxy, connections: 2, keepAliveMs: 10_000 });
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
  const stopAll = new AbortController();
  let lastError = '';

  /** One scrape: its sample is written when it parses; a failure is counted (and never thrown). */
  async function scrape(): Promise<boolean> {
    let parsed: PromText | undefined;
    try {
      const r = await getCapped(o.url, { client, headers: o.headers, deadlineMs, maxBytes: MAX_SCRAPE_BYTES, signal: stopAll.signal });
      if (r.status < 200 || r.status >= 300) throw new Error(`HTTP ${r.status}`);
      try {
        parsed = parsePromText(r.text);
      } catch {
        parsed = undefined;
      }
      if (!isPromText(r.contentType, parsed)) throw new Error('not Prometheus text');
    } catch (e) {
      failed++;
      lastError = o.redact((e as Error).message ?? String(e));
      return false;
    }
    const t = ctx!.now();
    const sample = normalizeScrape(t, parsed, engine);
    engine ??= sample.engine;
    (writer ??= new SampleWriter(join(ctx!.outDir, SERVER_METRICS_JSONL), o.redact)).write(sample);
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
    async start(c) {
      ctx = c;
      // The first scrape decides whether the server has metrics at all; it is done before the first request.
      found = await scrape();
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
      stopAll.abort();
      await writer?.close();
      const id = identity ? await identity : {};
      await client.close().catch(() => {});
      const samples = writer?.written ?? 0;
      const meta: Record<string, unknown> = {
        server_metrics: { url: shownUrl, found, engine, samples, failed_scrapes: found ? failed : Math.max(0, failed - 1), interval_ms: o.intervalMs, ...(writer?.failure ? { write_error: writer.failure } : {}) },
        ...(found ? { server_identity: { engine, ...id, max_model_len: o.maxModelLen } } : {}),
      };
      return { meta, files: samples > 0 && !writer?.failure ? [SERVER_METRICS_JSONL] : [] };
    },
  };
}
