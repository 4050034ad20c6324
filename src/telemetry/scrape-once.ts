// One /metrics scrape, fetched, parsed and normalized where it runs (the scrape worker; in-thread only without a build).
import { performance } from 'node:perf_hooks';
import type { GetClient } from '../backends/http-get.js';
import { getCapped } from './fetch-capped.js';
import { isPromText, parsePromText, type PromText } from './prom-text.js';
import { normalizeScrape, type ServerSample } from './normalize.js';
import type { Engine } from './engines.js';

export interface ScrapeRequest {
  url: string;
  headers: Record<string, string>;
  deadlineMs: number;
  maxBytes: number;
  engine: Engine | null;
}

/**
 * ok: the mapped sample (t_ms 0: the caller stamps it on the run clock), whether the page was cut at `maxBytes`,
 * and `lagMs` from the response's arrival to the result, so the caller can date the sample to the arrival.
 */
export type ScrapeResult = { ok: true; sample: ServerSample; truncated: boolean; bytes: number; lagMs: number } | { ok: false; error: string };

/** The text up to its last whole line: a page cut at the byte cap loses its partial last line, not its parse. */
const wholeLines = (text: string): string => {
  const nl = text.lastIndexOf('\n');
  return nl >= 0 ? text.slice(0, nl + 1) : '';
};

export async function scrapeOnce(client: GetClient, r: ScrapeRequest, signal?: AbortSignal): Promise<ScrapeResult> {
  try {
    const res = await getCapped(r.url, { client, headers: r.headers, deadlineMs: r.deadlineMs, maxBytes: r.maxBytes, signal });
    const arrived = performance.now();
    if (res.status < 200 || res.status >= 300) throw new Error(`HTTP ${res.status}`);
    const bytes = Buffer.byteLength(res.text);
    const truncated = bytes >= r.maxBytes;
    let parsed: PromText | undefined;
    try {
      parsed = parsePromText(truncated ? wholeLines(res.text) : res.text);
    } catch {
      parsed = undefined;
    }
    if (!isPromText(res.contentType, parsed)) throw new Error('not Prometheus text');
    const sample = normalizeScrape(0, parsed, r.engine);
    return { ok: true, sample, truncated, bytes, lagMs: performance.now() - arrived };
  } catch (e) {
    return { ok: false, error: (e as Error)?.message ?? String(e) };
  }
}
