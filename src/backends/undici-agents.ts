// undici dispatchers (direct, proxied, for the run and for plain GETs): imported on demand, so an h1 run never loads undici.
import { Agent, EnvHttpProxyAgent, buildConnector, request, type Dispatcher } from 'undici';
import { withStaleRetry } from './stale-retry.js';
import { MAX_RESPONSE_HEAD_BYTES } from './transport-errors.js';
import { traceUndici, tracedConnector } from './undici-trace.js';
import { undiciGates } from './prewarm.js';
import type { ProxyChoice } from './proxy.js';
import type { GetClient, GetClientOptions, GetResponse } from './get-client.js';

/** An undici dispatcher that sends everything through `proxy` (CONNECT tunnels, as EnvHttpProxyAgent does). */
export function proxyAgent(proxy: ProxyChoice, opts: Omit<EnvHttpProxyAgent.Options, 'httpProxy' | 'httpsProxy' | 'noProxy'> = {}): Dispatcher {
  return new EnvHttpProxyAgent({ ...opts, httpProxy: proxy.uri, httpsProxy: proxy.uri, noProxy: '' });
}

/** The run's undici dispatcher: sized to the load, stale keep-alive re-sends, and for direct connections the traced, gated connector. */
export function undiciAgent(o: { connections: number | null; proxy?: ProxyChoice | null }): Dispatcher {
  const opts = { connections: o.connections, pipelining: 1, keepAliveTimeout: 60_000, keepAliveMaxTimeout: 600_000, maxHeaderSize: MAX_RESPONSE_HEAD_BYTES };
  traceUndici();
  if (o.proxy) return withStaleRetry(() => proxyAgent(o.proxy!, opts));
  // Direct connections go through undici's own connector, timed per socket and gated for prewarm.
  const { connect, gate } = tracedConnector(buildConnector);
  const agent = withStaleRetry(() => new Agent({ ...opts, connect }));
  undiciGates.set(agent, gate);
  return agent;
}

export function undiciGetClient(o: GetClientOptions): GetClient {
  const keepAliveTimeout = o.keepAliveMs ?? 10_000;
  const agent = o.proxy ? proxyAgent(o.proxy, { connections: o.connections, keepAliveTimeout }) : new Agent({ connections: o.connections, keepAliveTimeout });
  return {
    async get(url, g): Promise<GetResponse> {
      const stop = new AbortController();
      const timer = setTimeout(() => stop.abort(new Error(`no complete answer within ${g.deadlineMs} ms`)), g.deadlineMs);
      const onAbort = () => stop.abort(g.signal!.reason);
      if (g.signal?.aborted) onAbort();
      g.signal?.addEventListener('abort', onAbort, { once: true });
      try {
        const res = await request(url, { method: 'GET', headers: g.headers, dispatcher: agent, signal: stop.signal, headersTimeout: g.deadlineMs, bodyTimeout: g.deadlineMs });
        const chunks: Buffer[] = [];
        let n = 0;
        for await (const c of res.body as AsyncIterable<Buffer>) {
          chunks.push(c.subarray(0, Math.max(0, g.maxBytes - n)));
          n += c.length;
          if (n >= g.maxBytes) {
            res.body.destroy();
            break;
          }
        }
        return { status: res.statusCode, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') };
      } finally {
        clearTimeout(timer);
        g.signal?.removeEventListener('abort', onAbort);
      }
    },
    close: () => agent.destroy().catch(() => {}),
  };
}
