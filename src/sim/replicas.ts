// `serve --replicas N --router ...`: N simulated engines (each its own prefix cache) behind one port and a built-in router.
import { createServer, request, Agent, type IncomingMessage, type ServerResponse } from 'node:http';
import { createHashRing } from '../util/hash-ring.js';
import { sendError } from './http/errors.js';
import { parseSimServerOptions, type SimServerOptions } from './options.js';
import { startSimServer, type SimServerHandle } from './server.js';
import { listen } from './http/listen.js';

export const SIM_ROUTERS = ['round-robin', 'prefix-hash'] as const;
export type SimRouter = (typeof SIM_ROUTERS)[number];

/** Characters of the prompt's start that prefix-hash hashes: a shared system prompt differs from another well within them. */
export const PREFIX_KEY_CHARS = 256;

/** The sim server, or with `replicas` > 1 that many behind a router on the requested port. */
export function startSim(opts: SimServerOptions = {}): Promise<SimServerHandle> {
  const o = parseSimServerOptions(opts);
  return o.replicas > 1 ? startReplicatedSimServer(opts) : startSimServer(opts);
}

/** What prefix-hash hashes: the first message's content (a system prompt), else the prompt, cut to PREFIX_KEY_CHARS. */
export function bodyPrefixKey(body: string): string {
  try {
    const b = JSON.parse(body) as { messages?: { content?: unknown }[]; prompt?: unknown };
    const first = Array.isArray(b.messages) ? b.messages[0]?.content : b.prompt;
    const text = typeof first === 'string' ? first : JSON.stringify(first ?? '');
    return text.slice(0, PREFIX_KEY_CHARS);
  } catch {
    return body.slice(0, PREFIX_KEY_CHARS);
  }
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
  try {
    // Each replica its own engine, KV cache and prefix cache; seeds differ so output lengths are not in lockstep.
    for (let i = 0; i < o.replicas; i++) replicas.push(await startSimServer({ ...opts, host: '127.0.0.1', port: 0, replicas: 1, seed: o.seed + i }));
  } catch (e) {
    await Promise.all(replicas.map((r) => r.close()));
    throw e;
  }
  const names = replicas.map((_, i) => `replica-${i}`);
  const ring = createHashRing(names);
  const agent = new Agent({ keepAlive: true });
  let next = 0;
  const pick = (body: Buffer): number => (o.router === 'prefix-hash' ? ring.pick(bodyPrefixKey(body.toString('utf8'))) : next++ % replicas.length);

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
      (body) => forward(pick(body), req, res, body),
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
    description: `${o.replicas}x (${replicas[0].description}), router ${o.router}`,
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
