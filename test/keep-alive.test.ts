// Keep-alive connections a server closes: the client never races the server's idle close, and a request caught by
// it (reused connection closed before any response byte) is sent once more on a new connection, on both transports.
import { describe, it, expect, afterEach } from 'vitest';
import { run } from '../src/run.js';
import { startRawServer, sseBody, response, type RawServer } from './fixtures/raw-server.js';
import { tmpDir } from './helpers.js';

let server: RawServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const sse = { 'content-type': 'text/event-stream' };
// Connection counts below assume the run opens its connections on demand (prewarm is tested in prewarm.test.ts).
const base = { inputTokens: 8, outputTokens: 4, quiet: true, prewarm: 'off' } as const;

describe.each(['h1', 'undici'] as const)('keep-alive closes by the server (transport %s)', (transport) => {
  it.each([1, 4])('a server closing every connection right after its response: all ok, re-sends marked (concurrency %i)', async (concurrency) => {
    server = await startRawServer((s) => {
      s.write(response(200, sseBody(), sse)); // no "Connection: close": the client believes it may reuse it
      s.end();
    });
    const res = await run({ validate: false, ...base, baseUrl: server.baseUrl, requests: 24, concurrency, out: tmpDir(), transport });
    const bad = res.records.filter((r) => r.status !== 'ok').map((r) => `${r.id}: ${r.status} ${r.error}`);
    expect(bad).toEqual([]);
    // One response per connection: every request got a connection of its own (plus the preflight's).
    expect(server.connections()).toBeGreaterThanOrEqual(25);
    const reconnected = res.records.filter((r) => r.reconnected);
    // A re-sent request still has one record, with its latency measured from the first send.
    expect(res.records).toHaveLength(24);
    for (const r of reconnected) expect(r.ttft_ms).toBeGreaterThan(0);
  });

  it('a request whose reused connection is closed before any response byte is sent once more, on a new connection', async () => {
    // The server answers the first request on each connection and closes the connection when a second arrives.
    server = await startRawServer((s, req) => (req.onSocket === 0 ? s.write(response(200, sseBody(), sse)) : s.end()));
    const res = await run({ validate: false, ...base, baseUrl: server.baseUrl, requests: 12, concurrency: 1, out: tmpDir(), transport });
    expect(res.records.map((r) => r.status)).toEqual(Array(12).fill('ok'));
    // Each request sent on a reused connection found it stale and was re-sent once: one record each. (h1 keeps
    // the re-send's connection, so all 11 later requests meet a stale one; undici closes it after the re-send,
    // so every other request starts on a new connection.)
    const reconnected = res.records.filter((r) => r.reconnected).length;
    expect(reconnected).toBeGreaterThanOrEqual(transport === 'h1' ? 11 : 6);
    expect(res.records[0].reconnected).toBe(false);
    expect(res.records.map((r) => r.attempt)).toEqual(Array(12).fill(1));
    expect(server.seen.filter((l) => l.startsWith('POST'))).toHaveLength(12 + reconnected);
    // The server saw more requests than there are records: the summary says how many were re-sent.
    expect(res.summary.requests.reconnected).toBe(reconnected);
  });

  it('re-sends always get a new connection, also with many connections idle and stale (concurrency 8)', async () => {
    server = await startRawServer((s, req) => (req.onSocket === 0 ? s.write(response(200, sseBody(), sse)) : s.end()));
    const res = await run({ validate: false, ...base, baseUrl: server.baseUrl, requests: 40, concurrency: 8, out: tmpDir(), transport });
    expect(res.records.filter((r) => r.status !== 'ok').map((r) => r.error)).toEqual([]);
    expect(res.records.some((r) => r.reconnected)).toBe(true);
  });

  it('honours Keep-Alive: timeout=1: idle connections are closed before the server closes them', async () => {
    server = await startRawServer((s) => {
      s.write(response(200, sseBody(), { ...sse, 'keep-alive': 'timeout=1' }));
      s.setTimeout(1000, () => s.end()); // the server's own idle close, as advertised
    });
    // One request a second: each next request is due just as the server closes the previous connection.
    const res = await run({ validate: false, ...base, baseUrl: server.baseUrl, requests: 5, rate: 1, arrival: 'constant', out: tmpDir(), transport });
    expect(res.records.map((r) => r.status)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
    expect(res.records.filter((r) => r.reconnected)).toEqual([]);
  });

  it('reuses connections within a longer Keep-Alive: timeout', async () => {
    server = await startRawServer((s) => s.write(response(200, sseBody(), { ...sse, 'keep-alive': 'timeout=5' })));
    const res = await run({ validate: false, ...base, baseUrl: server.baseUrl, requests: 6, rate: 4, arrival: 'constant', out: tmpDir(), transport });
    expect(res.records.every((r) => r.status === 'ok' && !r.reconnected)).toBe(true);
    // preflight + at most a couple for the run (a late timer may overlap two requests)
    expect(server.connections()).toBeLessThanOrEqual(4);
  });
});

describe.each(['h1', 'undici'] as const)('keep-alive resets by the server (transport %s)', (transport) => {
  it('a request whose reused connection is reset (RST) before any response byte is sent once more', async () => {
    // The server answers the first request on each connection and resets the connection when a second arrives.
    server = await startRawServer((s, req) => (req.onSocket === 0 ? s.write(response(200, sseBody(), sse)) : s.resetAndDestroy()));
    const res = await run({ validate: false, ...base, baseUrl: server.baseUrl, requests: 4, concurrency: 1, out: tmpDir(), transport });
    expect(res.records.map((r) => `${r.status} ${r.error ?? ''}`.trim())).toEqual(Array(4).fill('ok'));
    expect(res.records.filter((r) => r.reconnected).length).toBeGreaterThanOrEqual(transport === 'h1' ? 3 : 2);
  });
});
