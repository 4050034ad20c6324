import { afterEach, describe, expect, it } from 'vitest';
import { createServer as createHttpServer, type Server as HttpServer, type RequestListener } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import { createServer as createHttpsServer } from 'node:https';
import { H1Pool } from './pool.js';
import type { H1Handlers } from './connection.js';
import type { H1Error } from './errors.js';

interface Recorded {
  status: number | null;
  headers: Record<string, string> | null;
  body: Buffer;
  ended: boolean;
  error: H1Error | null;
}

/** Handlers that keep what they are told, and a promise of the outcome; completing twice is a test failure. */
function recorder(): { h: H1Handlers; done: Promise<Recorded>; chunks: () => number } {
  const rec: Recorded = { status: null, headers: null, body: Buffer.alloc(0), ended: false, error: null };
  const parts: Buffer[] = [];
  let resolve!: (r: Recorded) => void;
  const done = new Promise<Recorded>((r) => (resolve = r));
  const once = () => {
    if (rec.ended || rec.error) throw new Error('completed twice');
    rec.body = Buffer.concat(parts);
  };
  const h: H1Handlers = {
    onHeaders: (status, headers) => ((rec.status = status), (rec.headers = headers)),
    onData: (chunk) => parts.push(Buffer.from(chunk)), // copy: only valid during the call
    onEnd: () => (once(), (rec.ended = true), resolve(rec)),
    onError: (err) => (once(), (rec.error = err), resolve(rec)),
  };
  return { h, done, chunks: () => parts.length };
}

const servers: { close(): Promise<void> }[] = [];
const pools: H1Pool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.destroy()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function httpServer(handler: RequestListener): Promise<{ origin: string; server: HttpServer; connections: () => number }> {
  const server = createHttpServer({ keepAliveTimeout: 10_000 }, handler);
  let opened = 0;
  server.on('connection', () => opened++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push({ close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))) });
  return { origin: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server, connections: () => opened };
}

/** A TCP server that calls `answer(socket, n)` for every complete request head (+ Content-Length body) it reads. */
async function rawServer(answer: (s: Socket, n: number) => void): Promise<{ origin: string; server: TcpServer }> {
  const sockets = new Set<Socket>();
  let n = 0;
  const server = createTcpServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => {});
    let buf = '';
    s.on('data', (d) => {
      buf += d.toString('latin1');
      for (let end = buf.indexOf('\r\n\r\n'); end >= 0; end = buf.indexOf('\r\n\r\n')) {
        const len = Number(/content-length: (\d+)/i.exec(buf.slice(0, end))?.[1] ?? 0);
        if (buf.length < end + 4 + len) return;
        buf = buf.slice(end + 4 + len);
        answer(s, n++);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push({ close: () => new Promise<void>((r) => (sockets.forEach((s) => s.destroy()), server.close(() => r()))) });
  return { origin: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server };
}

function pool(origin: string, connections: number | null = 4, extra: object = {}): H1Pool {
  const p = new H1Pool(origin, { connections, ...extra });
  pools.push(p);
  return p;
}

function send(p: H1Pool, req: Partial<Parameters<H1Pool['request']>[0]> = {}): Promise<Recorded> & { abort(): void; chunks(): number } {
  const { h, done, chunks } = recorder();
  const handle = p.request({ method: 'POST', path: '/x', headers: { 'content-type': 'application/json' }, body: '{"a":1}', ...req }, h);
  return Object.assign(done, { abort: () => handle.abort(), chunks });
}

const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms));

/** Waits until `cond` holds (polled every 5 ms, up to 5 s on a loaded machine), so a test asserts states, not delays. */
async function until(cond: () => boolean): Promise<void> {
  for (const end = Date.now() + 5000; !cond() && Date.now() < end; ) await tick();
}

/** Resources that keep the event loop alive, by type (sockets, timers), minus those present at `base`. */
function leaked(base: string[]): string[] {
  const now = process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap');
  const left = [...base];
  return now.filter((r) => {
    const i = left.indexOf(r);
    if (i >= 0) left.splice(i, 1);
    return i < 0;
  });
}

describe('H1Pool against node:http', () => {
  it('sends method, path, Host, headers and body, and reads chunked, content-length and close-delimited bodies', async () => {
    const seen: { method?: string; url?: string; host?: string; ct?: string; body: string }[] = [];
    const { origin } = await httpServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, host: req.headers.host, ct: req.headers['content-type'], body });
        if (req.url === '/chunked') {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write('data: 1\n\n');
          res.write('data: 2\n\n');
          res.end();
        } else if (req.url === '/length') res.writeHead(200, { 'content-length': 5 }).end('hello');
        else {
          res.writeHead(200, { connection: 'close' }); // HTTP/1.1 without length: node closes to end the body
          res.useChunkedEncodingByDefault = false;
          res.end('until close');
        }
      });
    });
    const p = pool(origin);
    const a = await send(p, { path: '/chunked', body: '{"é":1}' });
    expect(a).toMatchObject({ status: 200, ended: true, error: null });
    expect(a.body.toString()).toBe('data: 1\n\ndata: 2\n\n');
    expect(a.headers?.['transfer-encoding']).toBe('chunked');
    expect(seen[0]).toEqual({ method: 'POST', url: '/chunked', host: new URL(origin).host, ct: 'application/json', body: '{"é":1}' });
    expect((await send(p, { path: '/length', method: 'GET', body: undefined })).body.toString()).toBe('hello');
    expect((await send(p, { path: '/close' })).body.toString()).toBe('until close');
  });

  it('reuses one keep-alive connection for sequential requests, and opens a new one after Connection: close', async () => {
    const { origin, connections } = await httpServer((req, res) => {
      if (req.url === '/close') res.setHeader('connection', 'close');
      res.end('ok');
    });
    const p = pool(origin, 1);
    for (let i = 0; i < 10; i++) expect((await send(p)).body.toString()).toBe('ok');
    expect(connections()).toBe(1);
    await send(p, { path: '/close' });
    await send(p);
    expect(connections()).toBe(2);
  });

  it('runs 500 concurrent requests on a pool of 16 connections, in order of arrival', async () => {
    let open = 0;
    let most = 0;
    const { origin, connections } = await httpServer((req, res) => {
      most = Math.max(most, ++open);
      setTimeout(() => (open--, res.end(req.url)), 1 + Math.random() * 3);
    });
    const p = pool(origin, 16);
    const all = await Promise.all(Array.from({ length: 500 }, (_, i) => send(p, { path: `/${i}` })));
    all.forEach((r, i) => expect(r.body.toString()).toBe(`/${i}`));
    expect(most).toBeLessThanOrEqual(16);
    expect(connections()).toBe(16);
    expect(p.stats).toEqual({ connections: 16, idle: 16, queued: 0 });
  });

  it('carries bodies of several MB both ways', async () => {
    const big = Buffer.alloc(8 * 1024 * 1024 + 7, 'x');
    big.write('start');
    big.write('end', big.length - 3);
    const { origin } = await httpServer((req, res) => {
      let n = 0;
      req.on('data', (d) => (n += d.length));
      req.on('end', () => {
        if (req.url === '/chunked') {
          for (let i = 0; i < big.length; i += 100_000) res.write(big.subarray(i, i + 100_000));
          res.end(String(n));
        } else res.writeHead(200, { 'content-length': big.length }).end(big);
      });
    });
    const p = pool(origin);
    const a = await send(p, { path: '/length' });
    expect(a.body.equals(big)).toBe(true);
    const b = await send(p, { path: '/chunked', body: 'y'.repeat(3_000_000) });
    expect(b.body.subarray(0, big.length).equals(big)).toBe(true);
    expect(b.body.subarray(big.length).toString()).toBe('3000000');
  });

  it('fails with ECONNREFUSED when nothing listens', async () => {
    const { origin, server } = await httpServer(() => {});
    await new Promise((r) => server.close(r));
    const r = await send(pool(origin));
    expect(r.error?.code).toBe('ECONNREFUSED');
    expect(r.error?.phase).toBe('connect');
    expect(r.error?.message).toMatch(/connection refused by 127\.0\.0\.1:\d+/);
  });

  it('aborts a waiting, a queued and a streaming request; destroys the streaming socket', async () => {
    let serverSockets = 0;
    const { origin } = await httpServer((req, res) => {
      serverSockets++;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
      res.on('close', () => serverSockets--);
    });
    const p = pool(origin, 1);
    const streaming = send(p);
    const queued = send(p);
    // The first request is streaming (its first chunk arrived) while the second waits for the one connection.
    await until(() => streaming.chunks() > 0);
    queued.abort();
    expect((await queued).error?.code).toBe('E_ABORTED');
    expect((await queued).error?.phase).toBe('connect');
    streaming.abort();
    const s = await streaming;
    expect(s.error).toMatchObject({ code: 'E_ABORTED', phase: 'body' });
    expect(s.body.toString()).toBe('data: 1\n\n');
    await until(() => serverSockets === 0);
    expect(serverSockets).toBe(0);
    // The pool is usable afterwards.
    const next = send(p);
    await tick(30);
    next.abort();
    expect((await next).error?.code).toBe('E_ABORTED');
  });

  it('leaves no socket or timer behind after close()', async () => {
    const base = process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap');
    const { origin } = await httpServer((_req, res) => res.end('ok'));
    const p = new H1Pool(origin, { connections: 8, keepAliveMs: 60_000 });
    await Promise.all(Array.from({ length: 20 }, () => send(p)));
    const aborted = send(p);
    aborted.abort();
    await aborted;
    await p.close();
    await servers.splice(0).map((s) => s.close())[0];
    await tick(20);
    expect(leaked(base)).toEqual([]);
    expect(() => send(p)).toThrow(/closed/);
  });

  it('closes idle connections after keepAliveMs, and they do not hold the process', async () => {
    const { origin } = await httpServer((_req, res) => res.end('ok'));
    const p = pool(origin, 2, { keepAliveMs: 50 });
    await Promise.all([send(p), send(p)]);
    expect(p.stats.idle).toBe(2);
    await tick(150);
    expect(p.stats).toEqual({ connections: 0, idle: 0, queued: 0 });
  });

  it('rejects header injection before sending anything', () => {
    const p = pool('http://127.0.0.1:9');
    expect(() => send(p, { headers: { 'x-a': 'v\r\nx-evil: 1' } })).toThrow(/CR, LF or NUL/);
    expect(() => send(p, { path: 'no-slash' })).toThrow(/bad path/);
    expect(p.stats.connections).toBe(0);
  });
});

describe('H1Pool against a misbehaving server', () => {
  it('reports a reset before headers and a close mid-body as ECONNRESET, with the phase', async () => {
    const { origin } = await rawServer((s, n) => {
      if (n === 0) s.resetAndDestroy();
      else {
        s.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial');
        setTimeout(() => s.destroy(), 20);
      }
    });
    const p = pool(origin, 1);
    const a = await send(p);
    expect(a.error).toMatchObject({ code: 'ECONNRESET', phase: 'headers' });
    const b = await send(p);
    expect(b.error).toMatchObject({ code: 'ECONNRESET', phase: 'body' });
    expect(b.error?.message).toMatch(/mid-body after 7 body bytes/);
    expect(b.body.toString()).toBe('partial');
  });

  it('parses responses written one byte per packet, including chunk-size lines and trailers', async () => {
    const resp = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;x=y\r\nabcd\r\nA\r\n0123456789\r\n0\r\nT: 1\r\n\r\n';
    const { origin } = await rawServer(async (s) => {
      for (const c of resp) {
        s.write(c);
        await tick(1);
      }
    });
    const p = pool(origin, 1);
    for (let i = 0; i < 2; i++) {
      const r = await send(p);
      expect(r).toMatchObject({ status: 200, ended: true });
      expect(r.body.toString()).toBe('abcd0123456789');
    }
    expect(p.stats.connections).toBe(1);
  });

  it('does not reuse a connection that sent bytes after the response', async () => {
    const { origin } = await rawServer((s) => s.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokJUNK'));
    const p = pool(origin, 1);
    expect((await send(p)).body.toString()).toBe('ok');
    expect((await send(p)).body.toString()).toBe('ok');
  });

  it('sends a request again, once, on a new connection when its reused one closes before any response byte', async () => {
    // Per connection: answer the first request, close on the second (a server's idle close racing the request).
    const perSocket = new Map<Socket, number>();
    let accepted = 0;
    const { origin, server } = await rawServer((s) => {
      const n = perSocket.get(s) ?? 0;
      perSocket.set(s, n + 1);
      if (n === 0) s.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
      else s.end();
    });
    server.on('connection', () => accepted++);
    const p = pool(origin, 1);
    expect((await send(p)).body.toString()).toBe('ok');
    const { h, done } = recorder();
    const retries: string[] = [];
    p.request({ method: 'POST', path: '/x', headers: {}, body: '{}' }, { ...h, onRetry: (e) => retries.push(e.code) });
    const r = await done;
    expect(r.error).toBeNull();
    expect(r.body.toString()).toBe('ok');
    expect(retries).toEqual(['ECONNRESET']);
    expect(accepted).toBe(2);
    // A reset on a fresh connection is not retried.
    const { origin: o2 } = await rawServer((s) => s.destroy());
    expect((await send(pool(o2, 1))).error?.code).toBe('ECONNRESET');
  });

  it('reports a malformed response and closes that connection', async () => {
    const { origin } = await rawServer((s) => s.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nnot-hex\r\n'));
    const r = await send(pool(origin, 1));
    expect(r.error).toMatchObject({ code: 'E_MALFORMED_RESPONSE', phase: 'body' });
  });

  it('turns a throwing handler into E_HANDLER on that request only', async () => {
    const { origin } = await httpServer((_req, res) => res.end('ok'));
    const p = pool(origin, 1);
    const { h, done } = recorder();
    p.request({ method: 'GET', path: '/', headers: {} }, { ...h, onData: () => { throw new Error('boom'); } });
    expect((await done).error).toMatchObject({ code: 'E_HANDLER' });
    expect((await send(p)).ended).toBe(true);
  });
});

/** A self-signed certificate for localhost / 127.0.0.1 (test only; the key protects nothing). */
const TEST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgKn94JS+my7cVn9Yx
fMrYLDyDHy5uUlWkXvfvid0d42yhRANCAAQQ+qPumAtk1To/iVx7rsPx6hm3BSo1
liw3yE8zlk3LGNBQ3mZ1QPSL7jD8aO2zpgL1DEaG7l8EUkL+inhavfMZ
-----END PRIVATE KEY-----`;
const TEST_CERT = `-----BEGIN CERTIFICATE-----
MIIBmzCCAUGgAwIBAgIUJitPBTwhDBsAXL+vHETSZ0DHjd4wCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTEzMDE0NTA0MFoYDzIxMjYxMTA2
MTQ1MDQwWjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAAQQ+qPumAtk1To/iVx7rsPx6hm3BSo1liw3yE8zlk3LGNBQ3mZ1QPSL
7jD8aO2zpgL1DEaG7l8EUkL+inhavfMZo28wbTAdBgNVHQ4EFgQUpw5OzSuhZj+K
nYheATAGu3evWlIwHwYDVR0jBBgwFoAUpw5OzSuhZj+KnYheATAGu3evWlIwDwYD
VR0TAQH/BAUwAwEB/zAaBgNVHREEEzARgglsb2NhbGhvc3SHBH8AAAEwCgYIKoZI
zj0EAwIDSAAwRQIgPFxkfzkD8co5qpr/NSF3ulcmG5kx9qfeRJgrH+EmzpcCIQCv
CaFnA+Nwmc1hTMwbXoND0YtIGpQwqApJcDEZurdE7w==
-----END CERTIFICATE-----`;

describe('H1Pool over TLS', () => {
  it('talks https with keep-alive, and rejects an untrusted certificate with E_TLS', async () => {
    let opened = 0;
    const server = createHttpsServer({ key: TEST_KEY, cert: TEST_CERT }, (_req, res) => res.end('secure'));
    server.on('secureConnection', () => opened++);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    servers.push({ close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))) });
    const origin = `https://localhost:${(server.address() as { port: number }).port}`;
    const p = pool(origin, 2, { tls: { ca: TEST_CERT } });
    for (let i = 0; i < 3; i++) expect((await send(p)).body.toString()).toBe('secure');
    expect(opened).toBe(1);
    const untrusted = await send(pool(origin, 1));
    expect(untrusted.error).toMatchObject({ code: 'E_TLS', phase: 'connect' });
  });
});

describe('H1Pool.prewarm and send timings', () => {
  const warmReq = { method: 'GET', path: '/models', headers: {} };
  it('opens N connections with at most maxConnecting unanswered at once; requests then reuse them', async () => {
    let outstanding = 0;
    let most = 0;
    const { origin, connections } = await httpServer((req, res) => {
      if (req.method !== 'GET') return void res.end('ok');
      outstanding++;
      most = Math.max(most, outstanding);
      // Held a little, so several connects would overlap if nothing bounded them.
      setTimeout(() => (outstanding--, res.end('[]')), 15);
    });
    const p = pool(origin, 20);
    expect(await p.prewarm(20, { maxConnecting: 4, req: warmReq })).toEqual({ opened: 20, failed: 0 });
    expect(most).toBeLessThanOrEqual(4);
    expect(connections()).toBe(20);
    expect(p.stats).toEqual({ connections: 20, idle: 20, queued: 0 });
    const sent: boolean[] = [];
    const { h, done } = recorder();
    p.request({ method: 'POST', path: '/x', headers: {}, body: '{}' }, { ...h, onSent: (t) => sent.push(t.reused) });
    expect((await done).body.toString()).toBe('ok');
    expect(sent).toEqual([true]);
    expect(connections()).toBe(20);
  });

  it('gives up on a connection whose GET is never answered (timeoutMs): failed, not hung', async () => {
    const { origin } = await rawServer(() => {}); // reads requests, never answers
    const p = pool(origin, 2);
    expect(await p.prewarm(2, { maxConnecting: 2, req: warmReq, timeoutMs: 50 })).toEqual({ opened: 0, failed: 2 });
    expect(p.stats.connections).toBe(0);
  });

  it('counts connections that fail (refused) and never throws', async () => {
    const { origin, server } = await httpServer((_req, res) => res.end('x'));
    await new Promise<void>((r) => server.close(() => r()));
    expect(await pool(origin, 3).prewarm(3, { maxConnecting: 2, req: warmReq })).toEqual({ opened: 0, failed: 3 });
  });

  it('onSent: a new connection reports connecting and (https) TLS time; a reused one reports 0', async () => {
    const server = createHttpsServer({ key: TEST_KEY, cert: TEST_CERT }, (_req, res) => res.end('secure'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    servers.push({ close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))) });
    const p = pool(`https://localhost:${(server.address() as { port: number }).port}`, 1, { tls: { ca: TEST_CERT } });
    const timings: import('./connection.js').H1SendTiming[] = [];
    for (let i = 0; i < 2; i++) {
      const { h, done } = recorder();
      p.request({ method: 'POST', path: '/x', headers: {}, body: '{}' }, { ...h, onSent: (t) => timings.push(t) });
      await done;
    }
    expect(timings.map((t) => t.reused)).toEqual([false, true]);
    expect(timings[0].connectingMs).toBeGreaterThan(0);
    expect(timings[0].tlsMs).toBeGreaterThan(0);
    expect(timings[1]).toMatchObject({ connectingMs: 0, tlsMs: 0 });
    for (const t of timings) expect(t.sendingMs).toBeGreaterThanOrEqual(0);
  });
});
