// One GET with a hard deadline (headers and body) and a size cap, on a given dispatcher: for scrapes and identity probes.
import { request, type Dispatcher } from 'undici';

export interface CappedResponse {
  status: number;
  contentType: string | undefined;
  text: string;
}

/** GET `url`; rejects when the whole exchange takes longer than `deadlineMs` or `signal` aborts. Bodies past `maxBytes` are cut. */
export async function getCapped(url: string, o: { dispatcher: Dispatcher; headers: Record<string, string>; deadlineMs: number; maxBytes: number; signal?: AbortSignal }): Promise<CappedResponse> {
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(new Error(`no complete answer within ${o.deadlineMs} ms`)), o.deadlineMs);
  const onAbort = () => stop.abort(o.signal!.reason);
  o.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const res = await request(url, { method: 'GET', headers: o.headers, dispatcher: o.dispatcher, signal: stop.signal, headersTimeout: o.deadlineMs, bodyTimeout: o.deadlineMs });
    const chunks: Buffer[] = [];
    let n = 0;
    for await (const c of res.body as AsyncIterable<Buffer>) {
      n += c.length;
      if (n > o.maxBytes) {
        res.body.destroy();
        break;
      }
      chunks.push(c);
    }
    const ct = res.headers['content-type'];
    return { status: res.statusCode, contentType: Array.isArray(ct) ? ct[0] : ct, text: Buffer.concat(chunks).toString('utf8') };
  } finally {
    clearTimeout(timer);
    o.signal?.removeEventListener('abort', onAbort);
  }
}
