// The dashboard's HTTP server: the page, its assets, the event stream, downloads and controls, all behind the token.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { echartsSource } from '../report/html/echarts-source.js';
import { CSP, dashboardCss, dashboardHtml } from './page.js';
import { DASHBOARD_JS } from './client.js';
import { tokenMatches } from './token.js';
import { ARTIFACTS } from '../artifacts/registry.js';

/** A control request body larger than this is refused (a load change is a few bytes). */
const MAX_BODY_BYTES = 4096;
/** After a body over the limit, this much more is read and discarded so the 413 reaches the client; then the socket closes. */
const MAX_DISCARD_BYTES = 1024 * 1024;
/** A browser that reads its stream slower than this much backlog is disconnected (it reconnects and gets `init`). */
const MAX_CLIENT_BACKLOG = 4 * 1024 * 1024;
/** Event-stream connections at once (a page holds one; each costs a JSON frame per tick): more get 503. */
export const MAX_STREAM_CLIENTS = 16;

/** What the server asks of the dashboard behind it. */
export interface DashboardBackend {
  /** The event a (re)connecting page gets first. */
  init(): unknown;
  /** The statistics table as CSV. */
  statsCsv(): string;
  /** The current run's results directory (downloads), undefined before the first run started. */
  outDir(): string | undefined;
  /** Stop, as Ctrl-C would. */
  stop(): void;
  /** A load change: 200 with the new stage, or 400 with the problems. */
  load(body: Record<string, unknown>): { status: number; body: unknown };
}

export interface DashboardServer {
  readonly host: string;
  readonly port: number;
  /** The URL to open, token included. */
  readonly url: string;
  broadcast(event: string, data: unknown): void;
  /** Browsers connected to the event stream. */
  readonly clients: number;
  close(): Promise<void>;
}

const DOWNLOADS: Record<string, { file: string; type: string; attachment: boolean }> = {
  '/download/requests.jsonl': { file: ARTIFACTS.requests.file, type: 'application/x-ndjson', attachment: true },
  '/download/summary.json': { file: ARTIFACTS.summary.file, type: 'application/json', attachment: true },
  '/download/run.json': { file: ARTIFACTS.run.file, type: 'application/json', attachment: true },
  '/download/report.html': { file: ARTIFACTS.report.file, type: 'text/html; charset=utf-8', attachment: false },
};

function send(res: ServerResponse, status: number, type: string, body: string | Buffer, extra: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), ...extra });
  res.end(body);
}
const json = (res: ServerResponse, status: number, v: unknown) => send(res, status, 'application/json', JSON.stringify(v));

/** The CSP report.html declares for itself (hashes of its own inline scripts), so it can be served as a page. */
function reportCsp(html: string): string | undefined {
  return /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1];
}

/** The body as text; 'too large' past MAX_BODY_BYTES (the rest is drained, not kept, so the client reads the 413). */
function readBody(req: IncomingMessage): Promise<string | 'too large' | undefined> {
  return new Promise((resolve) => {
    let size = 0;
    const parts: Buffer[] = [];
    req.on('data', (b: Buffer) => {
      size += b.length;
      if (size > MAX_BODY_BYTES + MAX_DISCARD_BYTES) req.destroy();
      else if (size > MAX_BODY_BYTES) {
        parts.length = 0;
        resolve('too large');
      } else parts.push(b);
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? 'too large' : Buffer.concat(parts).toString('utf8')));
    req.on('error', () => resolve(undefined));
  });
}

/** Start listening; `port` 0 picks a free one. */
export async function startDashboardServer(o: { host: string; port: number; token: string; backend: DashboardBackend }): Promise<DashboardServer> {
  const clients = new Set<ServerResponse>();
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // Every response: only this origin's scripts, no framing, no referrer (the URL holds the token), never cached.
    res.setHeader('content-security-policy', CSP);
    res.setHeader('x-content-type-options', 'nosniff');
    res.setHeader('referrer-policy', 'no-referrer');
    res.setHeader('cache-control', 'no-store');
    const url = new URL(req.url ?? '/', 'http://dashboard');
    const given = url.searchParams.get('token') ?? (req.headers['x-tokenflood-token'] as string | undefined);
    if (!tokenMatches(given, o.token)) return send(res, 403, 'text/plain; charset=utf-8', 'forbidden: this dashboard needs the token from the URL tokenflood printed\n');
    const path = url.pathname;
    const method = req.method ?? 'GET';
    if (method === 'POST') {
      if (path !== '/api/stop' && path !== '/api/load') return json(res, 404, { error: 'no such endpoint' });
      const raw = await readBody(req);
      if (raw === undefined) return void res.destroy();
      if (raw === 'too large') {
        res.setHeader('connection', 'close');
        return json(res, 413, { error: `request body too large: at most ${MAX_BODY_BYTES} bytes (a load change is a few bytes, e.g. {"concurrency": 8})` });
      }
      if (path === '/api/stop') {
        o.backend.stop();
        return json(res, 202, { stopping: true });
      }
      let body: unknown;
      try {
        body = JSON.parse(raw || '{}');
      } catch {
        return json(res, 400, { error: 'expected a JSON body such as {"concurrency": 8} or {"rate": 20}' });
      }
      if (!body || typeof body !== 'object' || Array.isArray(body)) return json(res, 400, { error: 'expected a JSON object' });
      const r = o.backend.load(body as Record<string, unknown>);
      return json(res, r.status, r.body);
    }
    if (method !== 'GET' && method !== 'HEAD') return json(res, 405, { error: 'method not allowed' });
    if (path === '/') return send(res, 200, 'text/html; charset=utf-8', dashboardHtml(o.token));
    if (path === '/assets/echarts.js') return send(res, 200, 'text/javascript; charset=utf-8', echartsSource());
    if (path === '/assets/dashboard.js') return send(res, 200, 'text/javascript; charset=utf-8', DASHBOARD_JS);
    if (path === '/assets/dashboard.css') return send(res, 200, 'text/css; charset=utf-8', dashboardCss());
    if (path === '/api/state') return json(res, 200, o.backend.init());
    if (path === '/download/stats.csv') return send(res, 200, 'text/csv; charset=utf-8', o.backend.statsCsv(), { 'content-disposition': `attachment; filename="${ARTIFACTS.stats.file}"` });
    if (path === '/api/events') {
      if (clients.size >= MAX_STREAM_CLIENTS)
        return send(res, 503, 'text/plain; charset=utf-8', `too many live pages: at most ${MAX_STREAM_CLIENTS} event streams at once; close another tab\n`, { 'retry-after': '10' });
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', connection: 'keep-alive', 'x-accel-buffering': 'no' });
      res.write(`retry: 2000\nevent: init\ndata: ${JSON.stringify(o.backend.init())}\n\n`);
      clients.add(res);
      req.on('close', () => clients.delete(res));
      return;
    }
    const dl = DOWNLOADS[path];
    const dir = o.backend.outDir();
    if (dl && dir) {
      const file = join(dir, dl.file);
      if (!existsSync(file) || !statSync(file).isFile()) return json(res, 404, { error: `${dl.file} is not written yet` });
      if (!dl.attachment) {
        // report.html runs only its own hashed inline scripts: its CSP replaces the dashboard's for this response.
        const html = readFileSync(file, 'utf8');
        const csp = reportCsp(html);
        if (!csp) return send(res, 200, 'application/octet-stream', html, { 'content-disposition': `attachment; filename="${dl.file}"` });
        res.setHeader('content-security-policy', csp);
        return send(res, 200, dl.type, html);
      }
      res.writeHead(200, { 'content-type': dl.type, 'content-disposition': `attachment; filename="${dl.file}"` });
      createReadStream(file).on('error', () => res.destroy()).pipe(res);
      return;
    }
    return json(res, 404, { error: 'no such endpoint' });
  };
  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) json(res, 500, { error: 'internal error' });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = o.host.includes(':') ? `[${o.host}]` : o.host;
  return {
    host: o.host,
    port,
    url: `http://${shownHost}:${port}/?token=${o.token}`,
    get clients() {
      return clients.size;
    },
    broadcast(event, data) {
      if (!clients.size) return;
      const frame = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
      for (const c of clients) {
        if (c.writableLength > MAX_CLIENT_BACKLOG) {
          c.destroy();
          clients.delete(c);
        } else c.write(frame);
      }
    },
    close() {
      for (const c of clients) c.end();
      clients.clear();
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
