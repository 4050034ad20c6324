import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ResponseParser } from './parser.js';
import { H1Error } from './errors.js';

interface Out {
  status: number | null;
  headers: Record<string, string> | null;
  body: string;
  complete: boolean;
  extra: boolean;
  keepAlive: boolean | null;
  error: string | null;
}

/** Parse `raw` delivered as `pieces` (each a separate push into a reused buffer); eof = the server closed after. */
function parse(pieces: Buffer[], opts: { isHead?: boolean; eof?: boolean } = {}): Out {
  const out: Out = { status: null, headers: null, body: '', complete: false, extra: false, keepAlive: null, error: null };
  const parts: Buffer[] = [];
  const p: ResponseParser = new ResponseParser(
    {
      onHead: (s, h) => ((out.status = s), (out.headers = { ...h })),
      onBody: (c) => parts.push(Buffer.from(c)),
      onComplete: (extra) => ((out.complete = true), (out.extra = extra), (out.keepAlive = p.keepAlive)),
    },
    'test:1',
  );
  p.reset(opts.isHead ?? false);
  // One scratch buffer reused for every piece, like the pool's shared read buffer: the parser must copy what it keeps.
  const scratch = Buffer.alloc(Math.max(1, ...pieces.map((x) => x.length)) + 16);
  try {
    for (const piece of pieces) {
      if (out.complete) {
        if (piece.length) out.extra = true;
        continue;
      }
      scratch.fill(0x41);
      piece.copy(scratch);
      p.push(scratch, 0, piece.length);
    }
    if (opts.eof) p.finish();
  } catch (e) {
    if (!(e instanceof H1Error)) throw e;
    out.error = e.code;
  }
  out.body = Buffer.concat(parts).toString('latin1');
  return out;
}

const b = (s: string) => Buffer.from(s, 'latin1');
/** Every way of cutting `raw` into two pieces, and into one-byte pieces. */
function splits(raw: string): Buffer[][] {
  const buf = b(raw);
  const out: Buffer[][] = [[buf]];
  for (let i = 1; i < buf.length; i++) out.push([buf.subarray(0, i), buf.subarray(i)]);
  out.push(Array.from(buf, (x) => Buffer.from([x])));
  return out;
}

const CHUNKED =
  'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nX-A: 1\r\nx-a: 2\r\n\r\n' +
  '5;name=val\r\nhello\r\n1A\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\nX-Trailer: t\r\n\r\n';

describe('ResponseParser', () => {
  it('parses a chunked response with extensions, trailers and repeated headers, split at every byte', () => {
    for (const pieces of splits(CHUNKED)) {
      const o = parse(pieces);
      expect(o).toMatchObject({ status: 200, body: 'helloabcdefghijklmnopqrstuvwxyz', complete: true, extra: false, keepAlive: true, error: null });
      expect(o.headers).toEqual({ 'content-type': 'text/event-stream', 'transfer-encoding': 'chunked', 'x-a': '1, 2' });
    }
  });

  it('parses Content-Length bodies split at every byte', () => {
    for (const pieces of splits('HTTP/1.1 201 Created\r\nContent-Length: 11\r\n\r\nhello world'))
      expect(parse(pieces)).toMatchObject({ status: 201, body: 'hello world', complete: true, keepAlive: true });
  });

  it('reads a body without length until the server closes, and never reuses that connection', () => {
    for (const pieces of splits('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil close')) {
      expect(parse(pieces)).toMatchObject({ complete: false, body: 'until close' });
      expect(parse(pieces, { eof: true })).toMatchObject({ complete: true, body: 'until close', keepAlive: false });
    }
  });

  it('skips 1xx responses other than 100 and completes bodiless ones (HEAD, 204, 304, Content-Length: 0)', () => {
    expect(parse([b('HTTP/1.1 103 Early Hints\r\nLink: x\r\nContent-Length: 1\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok')])).toMatchObject({ status: 200, body: 'ok', headers: { 'content-length': '2' } });
    expect(parse([b('HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n')], { isHead: true })).toMatchObject({ complete: true, body: '' });
    expect(parse([b('HTTP/1.1 204 No Content\r\n\r\n')])).toMatchObject({ status: 204, complete: true });
    expect(parse([b('HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n')])).toMatchObject({ status: 304, complete: true });
    expect(parse([b('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n')])).toMatchObject({ complete: true, keepAlive: true });
  });

  it('decides keep-alive by version and Connection, and refuses reuse of a close-delimited body', () => {
    expect(parse([b('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n')]).keepAlive).toBe(false);
    expect(parse([b('HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n')]).keepAlive).toBe(false);
    expect(parse([b('HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n')]).keepAlive).toBe(true);
    expect(parse([b('HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nxx')], { eof: true }).keepAlive).toBe(false);
    expect(parse([b('HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nxEXTRA')])).toMatchObject({ complete: true, extra: true, body: 'x' });
  });

  it('is as strict as llhttp: bare LF, obs-fold, CR in a field, repeated or listed Content-Length, TE with CL, unsolicited 100', () => {
    const strict = [
      'HTTP/1.1 200 OK\nContent-Length: 0\n\n',
      'HTTP/1.1 200 OK\r\nContent-Length: 0\n\r\n',
      'HTTP/1.1 200 OK\r\nX-Long: a\r\n  b\r\nContent-Length: 0\r\n\r\n',
      'HTTP/1.1 200 OK\r\nX-A: a\rb\r\nContent-Length: 0\r\n\r\n',
      'HTTP/1.1 200 OK\r\nX-A: a\0b\r\nContent-Length: 0\r\n\r\n',
      'HTTP/1.1 099 OK\r\nContent-Length: 0\r\n\r\n',
      'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok',
      'HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\n\r\nok',
      'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n',
      'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\nok\r\n0\r\n\r\n',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\n0\r\n\r\n',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2 \r\nok\r\n0\r\n\r\n',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2 ;a=b\r\nok\r\n0\r\n\r\n',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2;a\nok\r\n0\r\n\r\n',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\nX-T: 1\n\r\n',
    ];
    for (const raw of strict) for (const pieces of splits(raw)) expect(parse(pieces).error, JSON.stringify(raw)).toBe('E_MALFORMED_RESPONSE');
  });

  it('rejects malformed responses with E_MALFORMED_RESPONSE', () => {
    const bad = [
      'HTTP/2 200 OK\r\n\r\n',
      'HTTP/1.1 20 OK\r\n\r\n',
      'garbage\r\n\r\n',
      'HTTP/1.1 200 OK\r\nBad Header: x\r\n\r\n',
      'HTTP/1.1 200 OK\r\nNoColon\r\n\r\n',
      'HTTP/1.1 200 OK\r\nContent-Length: 5, 6\r\n\r\n',
      'HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\r\n',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabXY',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\rX',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffff\r\n',
      'HTTP/1.1 200 OK\r\nX: ' + 'a'.repeat(70_000) + '\r\n\r\n',
    ];
    for (const raw of bad) expect(parse([b(raw)]).error, raw.slice(0, 60)).toBe('E_MALFORMED_RESPONSE');
    expect(parse([b('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n')]).error).toBe('E_UNSUPPORTED');
  });

  it('reports a response cut short by the server closing as ECONNRESET', () => {
    expect(parse([b('HTTP/1.1 200 OK\r\nContent-Le')], { eof: true }).error).toBe('ECONNRESET');
    expect(parse([b('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc')], { eof: true })).toMatchObject({ error: 'ECONNRESET', body: 'abc' });
    expect(parse([b('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n')], { eof: true }).error).toBe('ECONNRESET');
  });

  it('property: any response, cut anywhere, parses to the same status, headers and body', () => {
    const chunkArb = fc.record({
      data: fc.string({ minLength: 1, maxLength: 40 }),
      ext: fc.option(fc.constantFrom(';a=1', ';x', ';q="v"'), { nil: undefined }),
      upper: fc.boolean(),
    });
    const respArb = fc.record({
      status: fc.integer({ min: 200, max: 599 }).filter((s) => s !== 204 && s !== 304),
      framing: fc.constantFrom('chunked', 'length', 'close'),
      chunks: fc.array(chunkArb, { maxLength: 8 }),
      headers: fc.array(fc.tuple(fc.constantFrom('X-One', 'x-two', 'Server', 'Set-Cookie'), fc.stringMatching(/^[a-z0-9=;]{0,12}$/)), { maxLength: 5 }),
      trailer: fc.boolean(),
      cuts: fc.array(fc.integer({ min: 0, max: 2000 }), { maxLength: 12 }),
    });
    fc.assert(
      fc.property(respArb, (r) => {
        const nl = '\r\n';
        const body = r.chunks.map((c) => c.data).join('');
        let head = `HTTP/1.1 ${r.status} X${nl}`;
        const expected: Record<string, string> = {};
        for (const [k, v] of r.headers) {
          head += `${k}: ${v}${nl}`;
          const key = k.toLowerCase();
          expected[key] = expected[key] === undefined ? v : `${expected[key]}, ${v}`;
        }
        let rest = '';
        if (r.framing === 'chunked') {
          head += `Transfer-Encoding: chunked${nl}`;
          for (const c of r.chunks) {
            const size = Buffer.byteLength(c.data).toString(16);
            rest += `${c.upper ? size.toUpperCase() : size}${c.ext ?? ''}\r\n${c.data}\r\n`;
          }
          rest += `0\r\n${r.trailer ? 'X-T: 1\r\n' : ''}\r\n`;
        } else if (r.framing === 'length') {
          head += `Content-Length: ${Buffer.byteLength(body)}${nl}`;
          rest = body;
        } else rest = body;
        const raw = Buffer.from(`${head}${nl}${rest}`, 'utf8');
        const cuts = [...new Set(r.cuts.map((c) => c % (raw.length + 1)))].sort((a, b) => a - b);
        const pieces: Buffer[] = [];
        let prev = 0;
        for (const c of cuts) {
          pieces.push(raw.subarray(prev, c));
          prev = c;
        }
        pieces.push(raw.subarray(prev));
        const o = parse(pieces, { eof: r.framing === 'close' });
        expect(o.error).toBe(null);
        expect(o.status).toBe(r.status);
        expect(o.complete).toBe(true);
        expect(o.extra).toBe(false);
        expect(Buffer.from(o.body, 'latin1').toString('utf8')).toBe(body);
        for (const [k, v] of Object.entries(expected)) expect(o.headers?.[k]).toBe(v);
      }),
      { numRuns: 2000 },
    );
  });
});
