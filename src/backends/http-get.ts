// One GET with a hard deadline and a size cap (preflight, /metrics scrapes, identity probes) on the h1 pool, or on undici loaded only when needed.
import { H1Pool } from './h1/index.js';
import type { GetClient, GetClientOptions, GetResponse } from './get-client.js';

export type { GetClient, GetClientOptions, GetOptions, GetResponse } from './get-client.js';

/** A GET client on `transport`; undici (about 15 MB and 0.1 CPU-s to load) is imported on the first GET it sends. */
export function getClient(o: GetClientOptions): GetClient {
  if (o.transport === 'h1' && !o.proxy) return h1GetClient(o);
  let undici: Promise<GetClient> | undefined;
  const load = () => (undici ??= import('./undici-agents.js').then((m) => m.undiciGetClient(o)));
  return {
    get: async (url, g) => (await load()).get(url, g),
    close: async () => {
      if (undici) await (await undici).close();
    },
  };
}

function h1GetClient(o: GetClientOptions): GetClient {
  const pools = new Map<string, H1Pool>();
  const poolFor = (origin: string): H1Pool => {
    let p = pools.get(origin);
    if (!p) pools.set(origin, (p = new H1Pool(origin, { connections: o.connections, keepAliveMs: o.keepAliveMs ?? 10_000 })));
    return p;
  };
  return {
    get: (url, g) =>
      new Promise((resolve, reject) => {
        const u = new URL(url);
        const chunks: Buffer[] = [];
        let n = 0;
        let status = 0;
        let headers: Record<string, string> = {};
        let settled = false;
        let req: { abort(): void } | undefined;
        const finish = (e: unknown, done?: GetResponse) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          g.signal?.removeEventListener('abort', onAbort);
          if (done) resolve(done);
          else reject(e);
        };
        const full = () => finish(null, { status, headers, text: Buffer.concat(chunks).toString('utf8') });
        const onAbort = () => {
          finish(g.signal!.reason ?? new Error('aborted'));
          req?.abort();
        };
        const timer = setTimeout(() => {
          finish(new Error(`no complete answer within ${g.deadlineMs} ms`));
          req?.abort();
        }, g.deadlineMs);
        if (g.signal?.aborted) return onAbort();
        g.signal?.addEventListener('abort', onAbort, { once: true });
        try {
          req = poolFor(u.origin).request(
            { method: 'GET', path: u.pathname + u.search, headers: g.headers },
            {
              onHeaders(s, h) {
                status = s;
                headers = h;
              },
              onData(chunk) {
                const room = g.maxBytes - n;
                // The chunk is valid only during the call: copied.
                chunks.push(Buffer.from(chunk.subarray(0, Math.max(0, room))));
                n += chunk.length;
                if (n >= g.maxBytes) {
                  full();
                  req?.abort();
                }
              },
              onEnd: full,
              onError: (e) => finish(e),
            },
          );
        } catch (e) {
          finish(e);
        }
      }),
    close: async () => {
      await Promise.all([...pools.values()].map((p) => p.destroy()));
      pools.clear();
    },
  };
}
