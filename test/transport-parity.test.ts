// Both transports (h1, undici) judge every response framing quirk alike, served byte-exact by a raw loopback server.
import { describe, it, expect, afterEach } from 'vitest';
import { run } from '../src/run.js';
import { startRawServer, sseBody, type RawServer } from './fixtures/raw-server.js';
import { tmpDir } from './helpers.js';

let server: RawServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const body = sseBody();
const len = Buffer.byteLength(body);
const hex = len.toString(16);
const sse = 'content-type: text/event-stream';
const ok200 = (extra = '') => `HTTP/1.1 200 OK\r\n${sse}\r\n${extra}content-length: ${len}\r\n\r\n${body}`;
const chunked = (sizeLine: string, afterData = '\r\n', last = '0\r\n\r\n') =>
  `HTTP/1.1 200 OK\r\n${sse}\r\ntransfer-encoding: chunked\r\n\r\n${sizeLine}${body}${afterData}${last}`;

/** Raw responses a real server might send; `ok` is what both transports make of them (Node's llhttp rules). */
const quirks: { name: string; bytes: string; ok: boolean }[] = [
  { name: 'well-formed', bytes: ok200(), ok: true },
  { name: '103 Early Hints first', bytes: `HTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\n${ok200()}`, ok: true },
  { name: 'empty line before the status line', bytes: `\r\n${ok200()}`, ok: true },
  { name: 'status line without reason', bytes: ok200().replace('200 OK', '200'), ok: true },
  { name: 'chunked with extension and trailer', bytes: chunked(`${hex};a=b\r\n`, '\r\n', '0\r\nx-t: 1\r\n\r\n'), ok: true },
  // The four of issue 10 item 12, then their relatives.
  { name: 'unsolicited 100 Continue', bytes: `HTTP/1.1 100 Continue\r\n\r\n${ok200()}`, ok: false },
  { name: 'duplicate equal Content-Length', bytes: ok200(`content-length: ${len}\r\n`), ok: false },
  { name: 'folded header', bytes: ok200('x-folded: a\r\n  b\r\n'), ok: false },
  { name: 'bare-LF line ends', bytes: ok200().replace(/\r\n/g, '\n'), ok: false },
  { name: 'Content-Length list', bytes: ok200().replace(`content-length: ${len}`, `content-length: ${len}, ${len}`), ok: false },
  { name: 'CR inside a header value', bytes: ok200('x-a: a\rb\r\n'), ok: false },
  { name: 'NUL inside a header value', bytes: ok200('x-a: a\0b\r\n'), ok: false },
  { name: 'DEL inside a header value', bytes: ok200('x-a: a\x7fb\r\n'), ok: false },
  { name: 'tab and obs-text in a header value', bytes: ok200('x-a: a\tcaf\xe9\r\n'), ok: true },
  { name: 'status code below 100', bytes: ok200().replace('200 OK', '099 OK'), ok: false },
  { name: 'Transfer-Encoding and Content-Length', bytes: chunked(`${hex}\r\n`).replace('\r\n\r\n', `\r\ncontent-length: ${len}\r\n\r\n`), ok: false },
  { name: 'chunk-size line ended by bare LF', bytes: chunked(`${hex}\n`), ok: false },
  { name: 'chunk data ended by bare LF', bytes: chunked(`${hex}\r\n`, '\n'), ok: false },
  { name: 'last chunk ended by bare LF', bytes: chunked(`${hex}\r\n`, '\r\n', '0\n\n'), ok: false },
  { name: 'whitespace after a chunk size', bytes: chunked(`${hex} \r\n`), ok: false },
  { name: 'whitespace before a chunk extension', bytes: chunked(`${hex} ;a=b\r\n`), ok: false },
];

async function records(transport: 'h1' | 'undici') {
  server = await startRawServer((s, req) => s.write(quirks[req.posts]?.bytes ?? quirks[0].bytes));
  const res = await run({ validate: false, baseUrl: server.baseUrl, requests: quirks.length, concurrency: 1, inputTokens: 8, outputTokens: 4, out: tmpDir(), quiet: true, transport });
  return res.records.map((r) => ({ name: quirks[r.id].name, status: r.status, error: r.error }));
}

describe('transport parity on response framing quirks', () => {
  it('h1 and undici give the same status for each quirk, and name a malformed response the same way', async () => {
    const h1 = await records('h1');
    await server?.close();
    const undici = await records('undici');
    expect(h1.map((r) => [r.name, r.status])).toEqual(undici.map((r) => [r.name, r.status]));
    for (const [i, q] of quirks.entries()) {
      for (const r of [h1[i], undici[i]]) {
        if (q.ok) expect.soft(r.status, q.name).toBe('ok');
        else {
          expect.soft(r.status, q.name).toBe('network_error');
          // (undici reports a status below 100 as an internal assertion, not as a parser error)
          if (q.name !== 'status code below 100' || r === h1[i]) expect.soft(r.error ?? '', q.name).toMatch(/^E_MALFORMED_RESPONSE: /);
        }
      }
    }
  });
});

describe('transport parity on repeated Content-Type and large heads (issue 25 item 22)', () => {
  const big = (n: number) => `x-big: ${'a'.repeat(n)}\r\n`;
  const cases: { name: string; bytes: string; status: string; error?: RegExp }[] = [
    // RFC 9110 §8.3: Content-Type is a singleton; two identical lines are one value.
    { name: 'Content-Type twice, identical', bytes: ok200(`${sse}\r\n`), status: 'ok' },
    // Two different media types: neither is guessed, the body is of no known type.
    { name: 'Content-Type twice, different', bytes: ok200('content-type: application/json\r\n'), status: 'parse_error', error: /content-type "text\/event-stream, application\/json"/ },
    { name: 'a 20 KB response head', bytes: ok200(big(20_000)), status: 'ok' },
    { name: 'a 60 KB response head', bytes: ok200(big(60_000)), status: 'ok' },
    { name: 'a 100 KB response head (over the 64 KiB limit)', bytes: ok200(big(100_000)), status: 'network_error', error: /^E_MALFORMED_RESPONSE: .*response head larger than 65536 bytes/ },
  ];
  it.each(['h1', 'undici'] as const)('%s', async (transport) => {
    server = await startRawServer((s, req) => s.write(cases[req.posts]?.bytes ?? cases[0].bytes));
    const res = await run({ validate: false, baseUrl: server.baseUrl, requests: cases.length, concurrency: 1, inputTokens: 8, outputTokens: 4, out: tmpDir(), quiet: true, transport });
    for (const r of res.records) {
      const c = cases[r.id];
      expect.soft(r.status, c.name).toBe(c.status);
      if (c.error) expect.soft(r.error ?? '', c.name).toMatch(c.error);
    }
  });
});
