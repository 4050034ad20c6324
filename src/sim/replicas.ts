// `serve --replicas N --router ...`: N simulated engines (each its own prefix cache) behind one port and a built-in router.
import { createServer, request, Agent, type IncomingMessage, type ServerResponse } from 'node:http';
import { createHashRing } from '../util/hash-ring.js';
import { sendError } from './http/errors.js';
import { parseSimServerOptions, type SimServerOptions } from './options.js';
import { startSimServer, type SimServerHandle } from './server.js';
import { listen } from './http/listen.js';
import { loadTokenizer } from '../dataset/tokenizer.js';
import { prefixTokensKey, sessionKey } from './router-keys.js';
import { UsageError } from '../errors.js';
import { resolveEngine } from './engine/config.js';
import { tuningOptions } from './engine/tuning.js';
import { createSharedPrefixStore, sharedCapacityBlocks, type SharedPrefixStore } from './engine/shared-prefix.js';

export const SIM_ROUTERS = ['round-robin', 'prefix-hash', 'session'] as const;
export type SimRouter = (typeof SIM_ROUTERS)[number];

/** The sim server, or with `replicas` > 1 that many behind a router on the requested port. */
export function startSim(opts: SimServerOptions = {}): Promise<SimServerHandle> {
  const o = parseSimServerOptions(opts);
  if (o.sharedPrefixCache && o.replicas < 2) throw new UsageError(['--shared-prefix-cache: shares a prefix cache between replicas; give --replicas N with N >= 2']);
  return o.replicas > 1 ? startReplicatedSimServer(opts) : startSimServer(opts);
}

/** The store of --shared-prefix-cache, sized in blocks of the replicas' engine (whole-model KV bytes per block). */
function sharedStoreFor(opts: SimServerOptions): SharedPrefixStore {
  const o = parseSimServerOptions(opts);
  const spec = resolveEngine({ gpu: o.gpu, model: o.modelProfile, tp: o.tp, weightDtype: o.weightDtype, kvDtype: o.kvDtype, blockSize: o.blockSize, ...tuningOptions(o) });
  return createSharedPrefixStore({
    capacityBlocks: sharedCapacityBlocks(o.sharedCacheGiB, spec.kvBytesPerToken * spec.blockSize),
    bytesPerSec: o.sharedCacheGBps * 1e9,
    latencyMs: o.sharedCacheLatencyMs,
  });
}

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });
}

export async function startReplicatedSimServer(opts: SimServerOptions): Promise<SimServerHandle> {
  const o = parseSimServerOptions(opts);
  const replicas: SimServerHandle[] = [];
  const sharedPrefix = o.sharedPrefixCache ? sharedStoreFor(opts) : undefined;
  try {
    // Each replica its own engine and KV cache, and its own prefix cache unless --shared-prefix-cache; seeds differ so
    // output lengths are not in lockstep.
    for (let i = 0; i < o.replicas; i++) replicas.push(await startSimServer({ ...opts, host: '127.0.0.1', port: 0, replicas: 1, seed: o.seed + i }, { sharedPrefix }));
  } catch (e) {
    await Promise.all(replicas.map((r) => r.close()));
    throw e;
  }
  const names = replicas.map((_, i) => `replica-${i}`);
  const ring = createHashRing(names);
  const agent = new Agent({ keepAlive: true });
  let next = 0;
  // The replicas' own tokenizer (they have loaded it already: a bad name failed above).
  const tok = o.router === 'prefix-hash' ? loadTokenizer(o.tokenizer) : undefined;
  const pick = (req: IncomingMessage, body: Buffer): number => {
    if (tok) return ring.pick(`prefix:${prefixTokensKey(body.toString('utf8'), tok, o.routerPrefixTokens)}`);
    const s = o.router === 'session' ? sessionKey(req.headers, o.sessionHeader) : undefined;
    // A request without the session header goes round-robin, as every request does under round-robin.
    return s !== undefined ? ring.pick(`session:${s}`) : next++ % replicas.length;
  };

  const forward = (i: number, req: IncomingMessage, res: ServerResponse, body: Buffer | undefined): void => {
    const headers = { ...req.headers, host: `127.0.0.1:${replicas[i].port}` };
    if (body) headers['content-length'] = String(body.length);
    const up = request({ host: '127.0.0.1', port: replicas[i].port, method: req.method, path: req.url, headers, agent }, (ur) => {
      res.writeHead(ur.statusCode ?? 502, { ...ur.headers, 'x-served-by': names[i] });
      ur.pipe(res);
    });
    up.on('error', (e) => sendError(res, 502, `tokenflood sim router: ${names[i]}: ${e.message}`));
    // The client went away: so does the replica's request (the engine aborts it).
    res.on('close', () => up.destroy());
    up.end(body);
  };

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0].replace(/\/+$/, '');
    if (path === '/metrics' || path === '/dcgm/metrics') {
      // One replica's series would be mistaken for the whole server's: each replica's are at its own port.
      res.setHeader('x-tokenflood-sim', '1');
      return sendError(res, 404, 'tokenflood sim router: /metrics is per replica');
    }
    if (req.method !== 'POST') return forward(0, req, res, undefined);
    readAll(req).then(
      (body) => forward(pick(req, body), req, res, body),
      () => res.destroy(),
    );
  });
  const { port, baseUrl, sockets } = await listen(server, o.port, o.host).catch(async (e: unknown) => {
    await Promise.all(replicas.map((r) => r.close()));
    throw e;
  });
  let closing: Promise<void> | undefined;
  return {
    baseUrl,
    port,
    host: o.host,
    description: `${o.replicas}x (${replicas[0].description})${sharedPrefix ? ', shared prefix cache' : ''}, router ${o.router}${o.router === 'session' ? ` (header ${o.sessionHeader})` : o.router === 'prefix-hash' ? ` (first ${o.routerPrefixTokens} tokens)` : ''}`,
    models: replicas[0].models,
    timeScale: replicas[0].timeScale,
    close() {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
          for (const s of sockets) s.destroy();
        });
        agent.destroy();
        await Promise.all(replicas.map((r) => r.close()));
      })();
      return closing;
    },
  };
}
