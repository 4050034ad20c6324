// The send time is never later than the moment the server could have received the request (docs/metrics.md#send-time),
// on both transports: a server in this process (one performance.now() clock) times its receipt of each request's
// last byte and its first response byte; the client's time to response headers can then not be shorter than that gap.
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { spawn, type ChildProcess } from 'node:child_process';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { run } from '../src/run.js';
import { sseBody } from './fixtures/raw-server.js';
import { tmpDir } from './helpers.js';

let server: Server | undefined;
const sockets = new Set<Socket>();
afterEach(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

/** Gap, server side, between the last request byte read and the first response byte written, per POST in order. */
async function startTimingServer(o: { close: boolean; delayMs: number }): Promise<{ baseUrl: string; gaps: number[] }> {
  const gaps: number[] = [];
  const body = sseBody();
  const models = '{"object":"list","data":[{"id":"m","object":"model"}]}';
  server = createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => {});
    let buf = Buffer.alloc(0);
    s.on('data', (d: Buffer) => {
      const readAt = performance.now();
      buf = Buffer.concat([buf, d]);
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buf.subarray(0, end).toString('latin1');
        const len = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (buf.length < end + 4 + len) return;
        buf = buf.subarray(end + 4 + len);
        const conn = o.close ? 'connection: close\r\n' : '';
        if (head.startsWith('GET')) {
          s.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n${conn}content-length: ${models.length}\r\n\r\n${models}`);
          continue;
        }
        const i = gaps.push(NaN) - 1;
        setTimeout(() => {
          gaps[i] = performance.now() - readAt;
          s.write(`HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n${conn}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
          if (o.close) s.end();
        }, o.delayMs);
      }
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, gaps };
}

// µs of slack: the time is taken right after the syscall that handed the bytes over, and records round to 1 µs.
const SLACK_MS = 0.05;

describe.each(['h1', 'undici'] as const)('send time never after the server has the request (transport %s)', (transport) => {
  const cases = [
    { name: 'reused connections, one stream', close: false, concurrency: 1, requests: 20, inputTokens: 16, prewarm: 'auto' },
    { name: 'a new connection per request, waves of 8', close: true, concurrency: 8, requests: 32, inputTokens: 16, prewarm: 'off' },
    // A body larger than the socket's send buffer: the kernel takes it in parts as the server reads.
    { name: 'request bodies of about 1 MB', close: false, concurrency: 2, requests: 6, inputTokens: 250_000, prewarm: 'auto' },
  ] as const;
  it.each(cases)('$name', async (k) => {
    const srv = await startTimingServer({ close: k.close, delayMs: 5 });
    const res = await run({ validate: false, baseUrl: srv.baseUrl, requests: k.requests, concurrency: k.concurrency, inputTokens: k.inputTokens, outputTokens: 4, prewarm: k.prewarm, out: tmpDir(), quiet: true, transport, serverMetrics: false });
    expect(res.records.filter((r) => r.status !== 'ok').map((r) => r.error)).toEqual([]);
    // Records and server gaps in send order: the server answers POSTs in the order it read them, per connection;
    // compare each record against the smallest gap (the check needs headers_ms ≥ its own gap ≥ ... ≥ min).
    const minGap = Math.min(...srv.gaps);
    const short = res.records.filter((r) => r.headers_ms! < minGap - SLACK_MS).map((r) => `${r.id}: headers ${r.headers_ms} ms < server gap ${minGap.toFixed(3)} ms`);
    expect(short).toEqual([]);
  });
});

// The same server in another process: it reads the request while this thread is still busy in the task that
// wrote it. The busy task here is a 40 ms spin queued right after each new connection's connect, standing for
// the rest of a wave of sends or a GC: a send time taken in the write callback (which waits for it) would come
// 40 ms late, after the server had the request (the h1 pool did that for a connection still opening).
const CHILD_SERVER = `
const { createServer } = require('node:net');
const body = ${JSON.stringify(sseBody())};
const models = '{"object":"list","data":[{"id":"m","object":"model"}]}';
const srv = createServer((s) => {
  s.on('error', () => {});
  let buf = Buffer.alloc(0);
  s.on('data', (d) => {
    buf = Buffer.concat([buf, d]);
    for (;;) {
      const end = buf.indexOf('\\r\\n\\r\\n');
      if (end < 0) return;
      const head = buf.subarray(0, end).toString('latin1');
      const len = Number((/content-length: *(\\d+)/i.exec(head) || [0, 0])[1]);
      if (buf.length < end + 4 + len) return;
      buf = buf.subarray(end + 4 + len);
      if (head.startsWith('GET')) { s.write('HTTP/1.1 200 OK\\r\\ncontent-type: application/json\\r\\nconnection: close\\r\\ncontent-length: ' + models.length + '\\r\\n\\r\\n' + models); s.end(); continue; }
      setTimeout(() => { s.write('HTTP/1.1 200 OK\\r\\ncontent-type: text/event-stream\\r\\nconnection: close\\r\\ncontent-length: ' + Buffer.byteLength(body) + '\\r\\n\\r\\n' + body); s.end(); }, Number(process.env.GAP_MS || 20));
    }
  });
});
srv.listen(0, '127.0.0.1', () => console.log(srv.address().port));
`;

describe.each(['h1', 'undici'] as const)('send time with the server in another process and a busy client (transport %s)', (transport) => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    child?.kill();
    child = undefined;
  });
  it('a new connection per request: headers never arrive sooner after the send than the server waited', async () => {
    child = spawn(process.execPath, ['-e', CHILD_SERVER], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, GAP_MS: '20' } });
    const port = await new Promise<number>((r) => child!.stdout!.once('data', (d: Buffer) => r(Number(String(d).trim()))));
    const spin = () => {
      const until = performance.now() + 40;
      while (performance.now() < until);
    };
    const onSocket = (m: unknown) => (m as { socket: Socket }).socket.once('connect', () => process.nextTick(spin));
    subscribe('net.client.socket', onSocket);
    try {
      const res = await run({ validate: false, baseUrl: `http://127.0.0.1:${port}/v1`, model: 'm', requests: 4, concurrency: 1, inputTokens: 16, outputTokens: 4, prewarm: 'off', out: tmpDir(), quiet: true, transport, serverMetrics: false });
      expect(res.records.filter((r) => r.status !== 'ok').map((r) => r.error)).toEqual([]);
      // The server waits 20 ms (its timers may fire up to ~1 ms early) between reading a request and answering it.
      const short = res.records.filter((r) => r.headers_ms! < 19).map((r) => `${r.id}: headers after ${r.headers_ms} ms < 19 ms`);
      expect(short).toEqual([]);
    } finally {
      unsubscribe('net.client.socket', onSocket);
    }
  });
});

describe.each(['h1', 'undici'] as const)('send time, waves of new connections, server in another process (transport %s)', (transport) => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    child?.kill();
    child = undefined;
  });
  it('no response sooner after the send than the server waited', async () => {
    child = spawn(process.execPath, ['-e', CHILD_SERVER], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, GAP_MS: '2' } });
    const port = await new Promise<number>((r) => child!.stdout!.once('data', (d: Buffer) => r(Number(String(d).trim()))));
    const res = await run({ validate: false, baseUrl: `http://127.0.0.1:${port}/v1`, model: 'm', requests: 128, concurrency: 32, inputTokens: 16, outputTokens: 4, prewarm: 'off', out: tmpDir(), quiet: true, transport, serverMetrics: false });
    expect(res.records.filter((r) => r.status !== 'ok').map((r) => r.error)).toEqual([]);
    // 2 ms server timers fire at the earliest ~1 ms after they were set (Node's loop time is whole ms).
    const short = res.records.filter((r) => r.headers_ms! < 0.9).map((r) => `${r.id}: ${r.headers_ms}`);
    expect(short).toEqual([]);
  });
});
