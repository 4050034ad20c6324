// The run's timeline sources from its config: --server-metrics [URL] / --no-server-metrics, --scrape-interval.
import type { OpenedTarget } from '../drivers/driver.js';
import { requestHeaders } from '../drivers/real.js';
import { proxyFor, type ProxyChoice } from '../backends/proxy.js';
import { serverMetricsSource } from '../telemetry/server-source.js';
import type { TimelineSource } from '../telemetry/source.js';

export interface TelemetryConfig {
  serverMetrics: boolean;
  serverMetricsUrl?: string;
  scrapeInterval: number;
  serverMetricsAuth: boolean;
  scrapeMaxBytes?: number;
  apiKey?: string;
}

/** A factory the lifecycle calls once the target is known: the server-metrics source, unless turned off. */
export function serverMetricsSources(c: TelemetryConfig, extraHeaders: Record<string, string>, redact: (s: string) => string): (t: OpenedTarget) => TimelineSource[] {
  return (t) => {
    if (!c.serverMetrics || !t.baseUrl) return [];
    const origin = new URL(t.baseUrl).origin;
    // Credentials go to the metrics endpoint only when asked: it may be another host than the one the key is for.
    const headers = c.serverMetricsAuth ? requestHeaders(c.apiKey, extraHeaders) : { 'accept-encoding': 'identity' };
    delete headers['content-type'];
    const url = c.serverMetricsUrl ?? `${origin}/metrics`;
    let proxy: ProxyChoice | null = null;
    try {
      proxy = proxyFor(url);
    } catch {
      proxy = null; // a bad proxy URL has already stopped the run in the driver's preflight
    }
    return [
      serverMetricsSource({
        url,
        proxy,
        auto: c.serverMetricsUrl === undefined,
        intervalMs: c.scrapeInterval * 1000,
        headers: { ...headers, accept: 'text/plain;version=0.0.4, */*;q=0.1' },
        origin,
        maxModelLen: t.maxModelLen ?? null,
        maxBytes: c.scrapeMaxBytes,
        redact,
      }),
    ];
  };
}
