// One GET with a hard deadline (headers and body) and a size cap, on a given GET client: for scrapes and identity probes.
import type { GetClient } from '../backends/http-get.js';

export interface CappedResponse {
  status: number;
  contentType: string | undefined;
  text: string;
}

/** GET `url`; rejects when the whole exchange takes longer than `deadlineMs` or `signal` aborts. Bodies past `maxBytes` are cut. */
export async function getCapped(url: string, o: { client: GetClient; headers: Record<string, string>; deadlineMs: number; maxBytes: number; signal?: AbortSignal }): Promise<CappedResponse> {
  const res = await o.client.get(url, { headers: o.headers, deadlineMs: o.deadlineMs, maxBytes: o.maxBytes, signal: o.signal });
  const ct = res.headers['content-type'];
  return { status: res.status, contentType: Array.isArray(ct) ? ct[0] : ct, text: res.text };
}
