// Every fault a loopback server can produce yields one stable `code` on its record, the same on both transports.
import { describe, it, expect, afterEach } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../src/run.js';
import { simulate } from '../src/simulate.js';
import { startSimServer } from '../src/sim/server.js';
import { startScriptServer, chatChunk, usageChunk, DONE, type Script, type ScriptServer } from './fixtures/script-server.js';
import { startRawServer, type RawServer } from './fixtures/raw-server.js';
import { tmpDir } from './helpers.js';
import { codeStatus, legacyCode } from '../src/metrics/error-codes.js';
import { readRecords } from '../src/metrics/jsonl.js';
import type { RequestRecord } from '../src/metrics/record.js';

let server: ScriptServer | undefined;
let raw: RawServer | undefined;
/** Servers of runCases: one per run, so runs on the two transports may go side by side. */
const caseServers: ScriptServer[] = [];
afterEach(async () => {
  await server?.close();
  await raw?.close();
  await Promise.all(caseServers.splice(0).map((s) => s.close()));
  server = undefined;
  raw = undefined;
});

const json = { 'content-type': 'application/json' };
const html = { 'content-type': 'text/html' };
const ok = (): Script => ({ steps: [{ at: 0, write: chatChunk({ content: 'fine' }) + usageChunk(8, 1) + DONE }] });
const trickle = (ms: number): Script => ({ steps: Array.from({ length: ms / 100 }, (_, i) => ({ at: i * 100, write: ': keep-alive\n\n' })) });

interface Case {
  name: string;
  script: Script;
  code: string | null;
}

const streamCases: Case[] = [
  { name: 'ok', script: ok(), code: null },
  { name: '429 JSON body', script: { status: 429, headers: json, steps: [{ at: 0, write: '{"error":"slow down"}' }] }, code: 'E_HTTP_429' },
  { name: '503 HTML body', script: { status: 503, headers: html, steps: [{ at: 0, write: '<html>busy</html>' }] }, code: 'E_HTTP_503' },
  { name: '401 empty body', script: { status: 401, headers: json, steps: [] }, code: 'E_HTTP_401' },
  { name: 'malformed JSON in an SSE event', script: { steps: [{ at: 0, write: 'data: {"choices": [\n\n' + chatChunk({ content: 'a' }) + DONE }] }, code: 'E_SSE_PARSE' },
  { name: 'HTML where a stream was asked for', script: { headers: html, steps: [{ at: 0, write: '<html>hello</html>' }] }, code: 'E_CONTENT_TYPE' },
  { name: 'SSE line over --max-line-bytes', script: { steps: [{ at: 0, write: chatChunk({ content: 'y'.repeat(10_000) }) + DONE }] }, code: 'E_LINE_TOO_LONG' },
  { name: 'unsupported content-encoding', script: { headers: { 'content-encoding': 'zstd' }, steps: [{ at: 0, write: 'zzzz' }] }, code: 'E_CONTENT_ENCODING' },
  { name: 'gzip that is not gzip', script: { headers: { 'content-encoding': 'gzip' }, steps: [{ at: 0, write: 'not gzip at all' }] }, code: 'E_CONTENT_ENCODING' },
  { name: '200 with an empty stream', script: { steps: [{ at: 0, write: DONE }] }, code: 'E_EMPTY' },
  { name: 'error object inside a 200 stream', script: { steps: [{ at: 0, write: 'data: {"object":"error","message":"something broke"}\n\n' }] }, code: 'E_STREAM_ERROR_EVENT' },
  { name: 'event: error inside a 200 stream', script: { steps: [{ at: 0, write: 'event: error\ndata: {"error":{"message":"oom"}}\n\n' }] }, code: 'E_SERVER_OOM' },
  { name: 'stream that stalls', script: { steps: [{ at: 0, write: chatChunk({ content: 'a' }) }], hang: true }, code: 'E_STREAM_STALLED' },
  { name: 'no response headers', script: { headersAt: 60_000, steps: [] }, code: 'E_HEADERS_TIMEOUT' },
  // Heartbeats every 100 ms keep the idle timer quiet (1 s); the whole-request timeout (2.5 s) ends it.
  { name: 'never completes', script: trickle(8000), code: 'E_TIMEOUT' },
  { name: 'reset mid-stream', script: { steps: [{ at: 0, write: chatChunk({ content: 'a' }) }, { at: 10, destroy: true }] }, code: 'ECONNRESET' },
];

const bodyCases: Case[] = [
  { name: 'ok JSON body', script: { headers: json, steps: [{ at: 0, write: JSON.stringify({ choices: [{ message: { content: 'whole' } }], usage: { prompt_tokens: 8, completion_tokens: 1 } }) }] }, code: null },
  { name: 'malformed JSON body', script: { headers: json, steps: [{ at: 0, write: '{"choices": [' }] }, code: 'E_JSON_PARSE' },
  { name: 'body over --max-line-bytes', script: { headers: json, steps: [{ at: 0, write: 'x'.repeat(10_000) }] }, code: 'E_LINE_TOO_LONG' },
];

async function runCases(cases: Case[], extra: Record<string, unknown>) {
  const srv = await startScriptServer((_b, n) => cases[n].script);
  caseServers.push(srv);
  const out = tmpDir();
  const res = await run({ validate: false, baseUrl: srv.baseUrl, requests: cases.length, concurrency: 1, inputTokens: 8, outputTokens: 4, out, quiet: true, maxLineBytes: 4096, ...extra });
  expect(res.records).toHaveLength(cases.length);
  return { res, out };
}

/** Each record has its case's code, a code of the table whose status is the record's, and one an old file would get back. */
function check(cases: Case[], records: RequestRecord[], label = '') {
  cases.forEach((c, i) => {
    const r = records[i];
    expect.soft(r.code, `${label}${c.name}: ${r.status} ${r.error}`).toBe(c.code);
    if (r.code !== null) expect.soft(codeStatus(r.code), label + c.name).toBe(r.status);
    expect.soft(legacyCode(r), `${label}${c.name} (derived from an old record)`).toBe(r.code);
  });
}

describe('error codes on records (transports h1 and undici side by side)', () => {
  // Most of this test is waiting on the idle and whole-request timeouts, so the two transports' runs (each with its
  // own server, 16 requests one at a time) go side by side.
  it('streamed faults: HTTP errors, parse errors, timeouts, resets', async () => {
    // allSettled: both runs end inside the test (and report their failures) even when one fails.
    const settled = await Promise.allSettled(
      (['h1', 'undici'] as const).map(async (transport) => {
        const { res, out } = await runCases(streamCases, { idleTimeout: '1s', timeout: '2.5s', transport });
        check(streamCases, res.records, `${transport}: `);
        // requests.jsonl carries the same codes, and the summary counts them
        expect(readRecords(join(out, 'requests.jsonl')).records.map((r) => r.code), transport).toEqual(streamCases.map((c) => c.code));
        const byCode = res.summary.requests.errors_by_code;
        expect(byCode.find((e) => e.code === 'E_CONTENT_ENCODING'), transport).toMatchObject({ kind: 'parse_error', count: 2 });
        expect(byCode.find((e) => e.code === 'E_STREAM_ERROR_EVENT'), transport).toMatchObject({ kind: 'http_error', count: 1 });
        // An error event that says the server ran out of memory is named for it.
        expect(byCode.find((e) => e.code === 'E_SERVER_OOM'), transport).toMatchObject({ kind: 'http_error', count: 1 });
        expect(byCode.reduce((n, e) => n + e.count, 0), transport).toBe(res.summary.requests.failed);
        const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
        expect(summary.requests.errors_by_code, transport).toEqual(byCode);
      }),
    );
    for (const r of settled) if (r.status === 'rejected') throw r.reason;
  });
});

describe.each(['h1', 'undici'] as const)('error codes on records (transport %s)', (transport) => {

  it('non-streamed bodies: malformed JSON and overlong bodies', async () => {
    const { res } = await runCases(bodyCases, { stream: false, transport });
    check(bodyCases, res.records);
  });

  it('a malformed response, a reset before headers and a refused connection keep their network codes', async () => {
    raw = await startRawServer((s, req) => {
      if (req.posts === 0) s.write('HTTP/1.1 200 OK\ncontent-type: text/event-stream\ncontent-length: 2\n\nhi');
      else if (req.posts === 1) s.destroy();
      else {
        // third request onwards: stop listening, so the fourth connection is refused
        s.destroy();
        void raw?.close();
      }
    });
    const res = await run({ validate: false, baseUrl: raw.baseUrl, requests: 4, concurrency: 1, inputTokens: 8, outputTokens: 4, out: tmpDir(), quiet: true, transport });
    raw = undefined;
    expect(res.records.map((r) => r.status)).toEqual(['network_error', 'network_error', 'network_error', 'network_error']);
    check(
      [
        { name: 'bare-LF response', script: ok(), code: 'E_MALFORMED_RESPONSE' },
        { name: 'reset before headers', script: ok(), code: 'ECONNRESET' },
        { name: 'reset before headers, then no longer listening', script: ok(), code: 'ECONNRESET' },
        { name: 'refused', script: ok(), code: 'ECONNREFUSED' },
      ],
      res.records,
    );
  });

  it('--retry: each attempt carries its own code', async () => {
    const scripts: Script[] = [{ status: 503, headers: { ...json, 'retry-after': '0' }, steps: [{ at: 0, write: '{"error":"busy"}' }] }, ok()];
    server = await startScriptServer((_b, n) => scripts[n] ?? ok());
    const res = await run({ validate: false, baseUrl: server.baseUrl, requests: 1, concurrency: 1, inputTokens: 8, outputTokens: 4, out: tmpDir(), quiet: true, retry: 1, transport });
    expect(res.records.map((r) => [r.attempt, r.status, r.code])).toEqual([
      [1, 'http_error', 'E_HTTP_503'],
      [2, 'ok', null],
    ]);
    expect(res.summary.requests.errors_by_code).toEqual([{ code: 'E_HTTP_503', kind: 'http_error', count: 1, example: 'HTTP 503: {"error":"busy"}', hint: expect.stringContaining('overloaded') }]);
  });

  it('a request cancelled when the run stops is E_CANCELLED', async () => {
    let posts = 0;
    const srv: Server = createServer((req, res) => {
      if (req.method === 'GET') return void res.writeHead(200, json).end('{"data":[{"id":"m"}]}');
      posts++;
      res.writeHead(200, { 'content-type': 'text/event-stream' }); // and never more
      res.flushHeaders();
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const ac = new AbortController();
    const port = (srv.address() as AddressInfo).port;
    const done = run({ validate: false, baseUrl: `http://127.0.0.1:${port}/v1`, requests: 2, concurrency: 2, inputTokens: 8, outputTokens: 4, out: tmpDir(), quiet: true, gracePeriod: '0.1s', transport }, { signal: ac.signal });
    while (posts < 2) await new Promise((r) => setTimeout(r, 10));
    ac.abort();
    const res = await done;
    srv.closeAllConnections();
    srv.close();
    expect(res.records.map((r) => [r.status, r.code])).toEqual([
      ['cancelled', 'E_CANCELLED'],
      ['cancelled', 'E_CANCELLED'],
    ]);
  });
});

describe('error codes of simulated records', () => {
  it('simulate records the code a real run against the sim server records (E_CONTEXT_TOO_LONG over max_model_len, null when ok)', async () => {
    const opts = { requests: 4, concurrency: 2, inputTokens: 512, outputTokens: 256, quiet: true };
    const sim = await simulate({ ...opts, numGpuBlocksOverride: 40, out: tmpDir() });
    const simServer = await startSimServer({ numGpuBlocksOverride: 40, timeScale: 20 });
    try {
      const real = await run({ validate: false, ...opts, baseUrl: simServer.baseUrl, out: tmpDir() });
      expect(sim.records.map((r) => r.code)).toEqual(real.records.map((r) => r.code));
      expect(sim.records[0].code).toBe('E_CONTEXT_TOO_LONG');
      const ok = await simulate({ requests: 2, concurrency: 1, inputTokens: 16, outputTokens: 4, quiet: true, out: tmpDir() });
      expect(ok.records.map((r) => r.code)).toEqual([null, null]);
    } finally {
      await simServer.close();
    }
  });
});
