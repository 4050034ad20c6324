// The fault table: every server misbehaviour yields one correctly classified record, and the run goes on.
import { describe, it, expect, afterEach } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { run } from '../src/run.js';
import { startScriptServer, chatChunk, usageChunk, DONE, type Script, type ScriptServer } from './fixtures/script-server.js';
import { tmpDir } from './helpers.js';
import type { RequestStatus } from '../src/metrics/record.js';

let server: ScriptServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const json = { 'content-type': 'application/json' };
const html = { 'content-type': 'text/html' };
const ok = (extra = ''): Script => ({ steps: [{ at: 0, write: chatChunk({ content: 'fine' }) + extra + usageChunk(8, 1) + DONE }] });

interface Case {
  name: string;
  script: Script;
  status: RequestStatus;
  error: RegExp;
  http?: number;
}

const httpCases: Case[] = [400, 401, 404, 429, 500, 502, 503].flatMap((code) => [
  { name: `${code} JSON body`, script: { status: code, headers: json, steps: [{ at: 0, write: `{"error":{"message":"json says ${code}"}}` }] }, status: 'http_error', http: code, error: new RegExp(`HTTP ${code}: .*json says ${code}`) },
  { name: `${code} HTML body`, script: { status: code, headers: html, steps: [{ at: 0, write: `<html><body><h1>${code} gateway says no</h1></body></html>` }] }, status: 'http_error', http: code, error: new RegExp(`HTTP ${code}: <html>`) },
  { name: `${code} empty body`, script: { status: code, headers: json, steps: [] }, status: 'http_error', http: code, error: new RegExp(`^HTTP ${code}$`) },
]);

const streamCases: Case[] = [
  { name: '429 with Retry-After', script: { status: 429, headers: { ...json, 'retry-after': '1' }, steps: [{ at: 0, write: '{"error":"slow down"}' }] }, status: 'http_error', http: 429, error: /slow down/ },
  { name: 'reset mid-stream', script: { steps: [{ at: 0, write: chatChunk({ content: 'a' }) }, { at: 10, destroy: true }] }, status: 'network_error', error: /ECONNRESET.*mid-(stream|body)|mid-stream/ },
  { name: 'malformed JSON in a chunk', script: { steps: [{ at: 0, write: 'data: {"choices": [\n\n' + chatChunk({ content: 'a' }) + DONE }] }, status: 'parse_error', error: /malformed JSON/ },
  { name: 'non-SSE content type on a stream', script: { status: 200, headers: html, steps: [{ at: 0, write: '<html>hello</html>' }] }, status: 'parse_error', error: /expected an event stream, got content-type "text\/html"/ },
  { name: '200 with an empty stream', script: { steps: [{ at: 0, write: DONE }] }, status: 'empty', error: /no tokens/ },
  { name: '200 with no bytes at all', script: { steps: [] }, status: 'empty', error: /no tokens/ },
  { name: 'stream that stalls (idle timeout)', script: { steps: [{ at: 0, write: chatChunk({ content: 'a' }) }], hang: true }, status: 'timeout', error: /stream stalled/ },
  { name: 'never answers (headers)', script: { headersAt: 60_000, steps: [] }, status: 'timeout', error: /no response headers/ },
  { name: 'error object inside a 200 stream', script: { steps: [{ at: 0, write: 'data: {"object":"error","message":"engine died","code":500}\n\n' }] }, status: 'http_error', error: /engine died/ },
];

async function runCases(cases: Case[], extra: Record<string, unknown> = {}) {
  server = await startScriptServer((_b, n) => (n < cases.length ? cases[n].script : ok()));
  const res = await run({ validate: false, baseUrl: server.baseUrl, requests: cases.length + 1, concurrency: 1, inputTokens: 8, outputTokens: 4, out: tmpDir(), quiet: true, ...extra });
  return res;
}

// Both HTTP clients must classify every fault the same way.
describe.each(['h1', 'undici'] as const)('fault table (transport %s)', (transport) => {
  it('HTTP errors with JSON, HTML and empty bodies', async () => {
    const res = await runCases(httpCases, { transport });
    httpCases.forEach((c, i) => {
      const r = res.records[i];
      expect.soft(r.status, c.name).toBe(c.status);
      expect.soft(r.http_status, c.name).toBe(c.http);
      expect.soft(r.error ?? '', c.name).toMatch(c.error);
      expect.soft(r.ttft_ms, c.name).toBeNull();
    });
    // the run went on: the last request succeeded
    expect(res.records[httpCases.length].status).toBe('ok');
    expect(res.summary.requests.failed).toBe(httpCases.length);
    expect(res.summary.ttft_ms.count).toBe(1);
    for (const code of [400, 401, 404, 429, 500, 502, 503])
      expect(res.summary.requests.errors.find((e) => e.kind === 'http_error' && e.http_status === code)?.count).toBe(3);
  });

  it('stream faults: resets, malformed JSON, wrong content type, empty, stalls, hangs', async () => {
    const res = await runCases(streamCases, { idleTimeout: '0.5s', timeout: '3s', transport });
    streamCases.forEach((c, i) => {
      const r = res.records[i];
      expect.soft(r.status, c.name).toBe(c.status);
      expect.soft(r.error ?? '', c.name).toMatch(c.error);
      if (c.http) expect.soft(r.http_status, c.name).toBe(c.http);
      expect.soft(r.e2e_ms, c.name).toBeNull();
    });
    expect(res.records[streamCases.length].status).toBe('ok');
    expect(res.summary.requests.failed).toBe(streamCases.length);
  });

  it('connection reset before headers and connection refused are network errors', async () => {
    let posts = 0;
    const srv: Server = createServer((req, res) => {
      if (req.method === 'GET') {
        res.writeHead(200, json).end('{"data":[{"id":"m"}]}');
        return;
      }
      posts++;
      if (posts === 1) req.socket.destroy();
      else {
        // second request onwards: stop listening, so new connections are refused
        req.socket.destroy();
        srv.close();
      }
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const port = (srv.address() as AddressInfo).port;
    const res = await run({ validate: false, baseUrl: `http://127.0.0.1:${port}/v1`, requests: 4, concurrency: 1, inputTokens: 8, outputTokens: 4, out: tmpDir(), quiet: true, transport });
    srv.closeAllConnections?.();
    expect(res.records.map((r) => r.status)).toEqual(['network_error', 'network_error', 'network_error', 'network_error']);
    expect(res.records[0].error).toMatch(/before response headers/);
    expect(res.records[3].error).toMatch(/ECONNREFUSED/);
  });

  it('huge chunks, a first chunk with hundreds of tokens, and invalid UTF-8 are handled', async () => {
    const big = 'x'.repeat(4 * 1024 * 1024);
    const many = Array.from({ length: 300 }, (_, i) => `w${i}`).join(' ');
    const badUtf8 = Buffer.concat([Buffer.from('data: {"choices":[{"delta":{"content":"bad '), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}}]}\n\n')]);
    const scripts: Script[] = [
      { steps: [{ at: 0, write: chatChunk({ content: big }) }, { at: 5, write: chatChunk({ content: 'end' }) + usageChunk(8, 2) + DONE }] },
      { steps: [{ at: 0, write: chatChunk({ content: many }) + usageChunk(8, 300) + DONE }] },
      { steps: [{ at: 0, write: badUtf8 }, { at: 5, write: chatChunk({ content: 'ok' }) + DONE }] },
    ];
    server = await startScriptServer((_b, n) => scripts[n]);
    const res = await run({ validate: false, baseUrl: server.baseUrl, requests: 3, concurrency: 1, inputTokens: 8, outputTokens: 4, out: tmpDir(), quiet: true, transport });
    expect(res.records.map((r) => r.status)).toEqual(['ok', 'ok', 'ok']);
    expect(res.records[0].answer_chars).toBe(big.length + 3);
    expect(res.records[1].output_tokens).toBe(300);
    expect(res.records[1].tpot_ms).toBeNull(); // one chunk says nothing about decode pace
    expect(res.records[2].answer_chars).toBeGreaterThan(2);
  });

  it('--retry retries 429/503 honouring Retry-After; every attempt is a record and the failure still counts', async () => {
    const scripts: Script[] = [
      { status: 429, headers: { ...json, 'retry-after': '0.2' }, steps: [{ at: 0, write: '{"error":"slow"}' }] },
      ok(),
    ];
    server = await startScriptServer((_b, n) => scripts[n] ?? ok());
    const res = await run({ validate: false, baseUrl: server.baseUrl, requests: 2, concurrency: 1, inputTokens: 8, outputTokens: 4, out: tmpDir(), quiet: true, retry: 2, transport });
    expect(res.records.map((r) => [r.id, r.attempt, r.status])).toEqual([
      [0, 1, 'http_error'],
      [0, 2, 'ok'],
      [1, 1, 'ok'],
    ]);
    const gap = res.records[1].sent_at_ms - (res.records[0].sent_at_ms + res.records[0].end_ms!);
    expect(gap).toBeGreaterThanOrEqual(190);
    expect(res.summary.requests.retries).toBe(1);
    expect(res.summary.requests.failed).toBe(1);
  });

  it('--max-error-rate stops a run against a server that is down, with a clear reason', async () => {
    server = await startScriptServer(() => ({ status: 503, headers: json, steps: [{ at: 0, write: '{"error":"down"}' }] }));
    const res = await run({ validate: false, baseUrl: server.baseUrl, requests: 500, concurrency: 2, inputTokens: 8, outputTokens: 4, out: tmpDir(), quiet: true, maxErrorRate: '50%', transport });
    expect(res.records.length).toBeLessThan(60);
    expect(res.summary.run.stopped_reason).toBe('max_error_rate');
    expect(String(res.summary.run.stop_message)).toMatch(/more than 50.0% of requests failed/);
  });
});

describe('no leaks', () => {
  it('10,000 failing requests leave no sockets, timers or memory behind', async () => {
    server = await startScriptServer(() => ({ status: 500, headers: json, steps: [{ at: 0, write: '{"error":"nope"}' }] }));
    const gc = (globalThis as { gc?: () => void }).gc;
    expect(gc, 'tests run with --expose-gc').toBeTypeOf('function');
    // A first, smaller run warms up JIT and module caches so the measured run shows only growth.
    await run({ validate: false, baseUrl: server.baseUrl, requests: 1000, concurrency: 32, inputTokens: 8, outputTokens: 4, out: tmpDir(), quiet: true });
    await new Promise((r) => setTimeout(r, 50));
    gc!();
    const baseline = process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap');
    const heapBefore = process.memoryUsage().heapUsed;
    let res = await run({ validate: false, baseUrl: server.baseUrl, requests: 10_000, concurrency: 32, inputTokens: 8, outputTokens: 4, out: tmpDir(), quiet: true, idleTimeout: '5s' });
    expect(res.summary.requests.failed).toBe(10_000);
    expect(res.summary.requests.errors).toEqual([expect.objectContaining({ kind: 'http_error', http_status: 500, count: 10_000 })]);
    res = undefined as never;
    await new Promise((r) => setTimeout(r, 50));
    gc!();
    const after = process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap');
    // Same kinds and counts of live handles as before the run: no socket, timer or file left open.
    const count = (xs: string[]) => xs.reduce<Record<string, number>>((m, x) => ((m[x] = (m[x] ?? 0) + 1), m), {});
    const a = count(after);
    const b = count(baseline);
    for (const k of Object.keys(a)) expect.soft(a[k], k).toBeLessThanOrEqual((b[k] ?? 0) + (k === 'TCPSocketWrap' ? 2 : 1));
    const heapGrowthMb = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
    expect(heapGrowthMb).toBeLessThan(16);
  }, 120_000);
});

describe('faults injected by the simulated server', () => {
  it('every injected fault becomes a classified record and the run goes on', async () => {
    const { startSimServer } = await import('../src/sim/server.js');
    // every Nth request gets one fault; the periods are co-prime so most requests see at most one
    const sim = await startSimServer({
      timeScale: 20,
      faults: {
        http429: { every: 7, retryAfterSeconds: 0 },
        http503: { every: 11 },
        drop: { every: 13, afterTokens: 3 },
        malformed: { every: 17, afterTokens: 2 },
        stall: { every: 19, afterTokens: 2, ms: 1500 },
        // 1 ms: a stream here lasts ~6 ms of wall time (16 tokens at time scale 20), so a slower ping could miss it.
        heartbeat: { every: 5, intervalMs: 1 },
      },
    });
    try {
      const res = await run({ validate: false, baseUrl: sim.baseUrl, requests: 120, concurrency: 8, inputTokens: 32, outputTokens: 16, out: tmpDir(), quiet: true, idleTimeout: '1s' });
      const by = (s: string) => res.records.filter((r) => r.status === s);
      expect(res.records).toHaveLength(120);
      expect(by('http_error').some((r) => r.http_status === 429)).toBe(true);
      expect(by('http_error').some((r) => r.http_status === 503)).toBe(true);
      expect(by('network_error').length).toBeGreaterThan(0);
      expect(by('parse_error').length).toBeGreaterThan(0);
      expect(by('timeout').every((r) => /stream stalled/.test(r.error ?? ''))).toBe(true);
      expect(by('timeout').length).toBeGreaterThan(0);
      // heartbeats are comments: they appear in the raw events of successful requests but never as tokens
      const ok = by('ok');
      expect(ok.length).toBeGreaterThan(60);
      expect(ok.some((r) => r.event_kinds.includes('c'))).toBe(true);
      for (const r of ok) expect(r.output_tokens).toBe(16);
      expect(res.summary.ttft_ms.count).toBe(ok.length);
    } finally {
      await sim.close();
    }
  });
});
