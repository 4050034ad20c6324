// The shards' start barrier and status, over HTTP between the pods (a headless Service names them): no shared volume needed.
import { createServer, type Server } from 'node:http';
import { createReadStream, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Port of every shard's coordination server (the headless Service's port). */
export const COORD_PORT = 7070;

/** What a shard's /status says: waiting at the barrier, running, or finished with the run's exit code. */
export type ShardState = { state: 'waiting' | 'running' } | { state: 'done' | 'failed'; exit_code: number; message?: string };

export interface CoordServer {
  server: Server;
  setStart(ms: number): void;
  setState(s: ShardState): void;
  /** Resolves when a gatherer POSTed /collected (it has what it needs, the shard may exit). */
  collected: Promise<void>;
  close(): Promise<void>;
}

/** Regular files of `dir` (one level: a results directory is flat), name → size. */
function filesOf(dir: string): Record<string, number> {
  const out: Record<string, number> = {};
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const n of names) {
    const s = statSync(join(dir, n), { throwIfNoEntry: false });
    if (s?.isFile()) out[n] = s.size;
  }
  return out;
}

/**
 * One shard's coordination server: GET /ready (200 once up), GET /start (200 {start_at_ms} once the leader chose
 * it, else 503), GET /status, GET /files and /files/NAME (the results directory, once finished), POST /collected.
 */
export function startCoordServer(host: string, port: number, resultsDir: string): Promise<CoordServer> {
  let startMs: number | undefined;
  let state: ShardState = { state: 'waiting' };
  let onCollected!: () => void;
  const collected = new Promise<void>((r) => (onCollected = r));
  const json = (res: import('node:http').ServerResponse, code: number, v: unknown) => (res.writeHead(code, { 'content-type': 'application/json' }), res.end(JSON.stringify(v)));
  const server = createServer((req, res) => {
    const url = (req.url ?? '/').split('?')[0];
    if (req.method === 'POST' && url === '/collected') return (json(res, 200, { ok: true }), onCollected());
    if (req.method !== 'GET') return json(res, 405, { error: 'method' });
    if (url === '/ready') return json(res, 200, { ready: true });
    if (url === '/start') return startMs === undefined ? json(res, 503, { start_at_ms: null }) : json(res, 200, { start_at_ms: startMs });
    if (url === '/status') return json(res, 200, state);
    const finished = state.state === 'done' || state.state === 'failed';
    if (url === '/files') return finished ? json(res, 200, filesOf(resultsDir)) : json(res, 409, { error: 'not finished' });
    if (url.startsWith('/files/') && finished) {
      const name = decodeURIComponent(url.slice('/files/'.length));
      // Only a plain file name of the results directory: no path separators, no dot files.
      if (!/^[A-Za-z0-9_][A-Za-z0-9._-]*$/.test(name) || !(name in filesOf(resultsDir))) return json(res, 404, { error: 'no such file' });
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      return void createReadStream(join(resultsDir, name)).pipe(res);
    }
    json(res, 404, { error: 'not found' });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () =>
      resolve({
        server,
        setStart: (ms) => (startMs = ms),
        setState: (s) => (state = s),
        collected,
        close: () => new Promise((r) => (server.closeAllConnections(), server.close(() => r()))),
      }),
    );
  });
}

/** The base URL of shard i from a template with {i}, e.g. http://tokenflood-shards-{i}.tokenflood-shards:7070. */
export const peerUrl = (template: string, i: number): string => template.replace(/\{i\}/g, String(i));

/** GET a peer's JSON, or undefined when it does not answer (yet); 2 s per try. */
export async function getJson(url: string): Promise<{ status: number; body: unknown } | undefined> {
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(2000) });
    return { status: r.status, body: await r.json().catch(() => null) };
  } catch {
    return undefined;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface BarrierOptions {
  index: number;
  count: number;
  peers: string;
  /** How long after every shard is ready the run starts: its preparation (dataset, preflight, prewarm) fits in it. */
  marginMs: number;
  timeoutMs: number;
  pollMs?: number;
  now?: () => number;
}

/**
 * Wait until all shards are up and agree on one start time. Shard 0 (the leader) polls every peer's /ready; once
 * all answer it sets start = now + margin on its /start. The others poll the leader's /start. Resolves with the
 * start time (epoch ms); rejects naming the shards that never answered within the timeout.
 */
export async function barrier(coord: CoordServer, o: BarrierOptions): Promise<number> {
  const poll = o.pollMs ?? 500;
  const now = o.now ?? Date.now;
  const deadline = now() + o.timeoutMs;
  if (o.index === 0) {
    const ready = new Set<number>([0]);
    while (ready.size < o.count) {
      await Promise.all(
        Array.from({ length: o.count }, (_, i) => i)
          .filter((i) => !ready.has(i))
          .map(async (i) => ((await getJson(`${peerUrl(o.peers, i)}/ready`))?.status === 200 ? ready.add(i) : undefined)),
      );
      if (ready.size === o.count) break;
      if (now() > deadline) {
        const missing = Array.from({ length: o.count }, (_, i) => i).filter((i) => !ready.has(i));
        throw new Error(`start barrier: shard${missing.length > 1 ? 's' : ''} ${missing.slice(0, 20).map((i) => `${i}/${o.count}`).join(', ')} not ready after ${Math.round(o.timeoutMs / 1000)} s (pending pod, image pull, unschedulable?): no shard started`);
      }
      await sleep(poll);
    }
    const start = now() + o.marginMs;
    coord.setStart(start);
    return start;
  }
  const leader = `${peerUrl(o.peers, 0)}/start`;
  for (;;) {
    const r = await getJson(leader);
    const v = (r?.body as { start_at_ms?: unknown } | null)?.start_at_ms;
    if (r?.status === 200 && typeof v === 'number' && Number.isFinite(v)) return v;
    if (now() > deadline) throw new Error(`start barrier: shard 0/${o.count} (the leader, ${peerUrl(o.peers, 0)}) gave no start time within ${Math.round(o.timeoutMs / 1000)} s: this shard did not start`);
    await sleep(poll);
  }
}
