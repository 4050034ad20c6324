// Response reading against hostile servers: media types, compression, SSE error events, data after [DONE],
// absurd usage values and overlong lines, each classified the same way on both transports.
import { describe, it, expect, afterEach } from 'vitest';
import { createBrotliCompress, createDeflate, createDeflateRaw, createGzip, gzipSync } from 'node:zlib';
import type { Transform } from 'node:stream';
import { run } from '../src/run.js';
import { startScriptServer, chatChunk, usageChunk, DONE, type Script, type ScriptServer } from './fixtures/script-server.js';
import { tmpDir } from './helpers.js';
import type { RequestRecord } from '../src/metrics/record.js';

let server: ScriptServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const answer = (text: string, completion = 1) => chatChunk({ content: text }) + usageChunk(8, completion) + DONE;

/** Run one request per script, in order, and return the records. */
async function runScripts(scripts: Script[], extra: Record<string, unknown> = {}) {
  await server?.close();
  server = await startScriptServer((_b, n) => scripts[n]);
  const res = await run({ validate: false, baseUrl: server.baseUrl, requests: scripts.length, concurrency: 1, inputTokens: 8, outputTokens: 4, out: tmpDir(), quiet: true, ...extra });
  expect(res.records).toHaveLength(scripts.length);
  return res;
}

/** Compress `parts` as one stream, flushed after each part, so each part's bytes can be sent on their own. */
async function compressInParts(z: Transform, parts: string[]): Promise<Buffer[]> {
  const out: Buffer[][] = parts.map(() => []);
  let i = 0;
  z.on('data', (b: Buffer) => out[i].push(b));
  for (; i < parts.length - 1; i++) {
    z.write(parts[i]);
    await new Promise<void>((r) => (z as unknown as { flush(cb: () => void): void }).flush(r));
  }
  const ended = new Promise<void>((r) => z.on('end', r));
  z.end(parts[i]);
  await ended;
  return out.map((bs) => Buffer.concat(bs));
}

const statuses = (rs: RequestRecord[]) => rs.map((r) => r.status);

describe.each(['h1', 'undici'] as const)('response reading (transport %s)', (transport) => {
  it('media types are case-insensitive and their parameters ignored (item 9)', async () => {
    const sse = ['Text/Event-Stream', 'TEXT/EVENT-STREAM; charset=UTF-8', 'text/event-stream;charset=utf-8', ' text/event-stream '];
    const scripts: Script[] = [
      ...sse.map((ct) => ({ headers: { 'content-type': ct }, steps: [{ at: 0, write: answer('fine') }] })),
      // a server that ignores stream: true and answers with one JSON body
      { headers: { 'content-type': 'Application/JSON; charset=UTF-8' }, steps: [{ at: 0, write: JSON.stringify({ choices: [{ message: { content: 'whole' }, finish_reason: 'stop' }], usage: { prompt_tokens: 8, completion_tokens: 1 } }) }] },
      { headers: { 'content-type': 'Text/HTML; charset=utf-8' }, steps: [{ at: 0, write: '<html>no</html>' }] },
    ];
    const res = await runScripts(scripts, { transport });
    expect(statuses(res.records)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'parse_error']);
    for (const r of res.records.slice(0, 4)) expect(r.answer_chars).toBe(4);
    expect(res.records[4].streamed).toBe(false);
    expect(res.records[4].answer_chars).toBe(5);
    expect(res.records[5].error).toMatch(/expected an event stream, got content-type "Text\/HTML; charset=utf-8"/);
  });

  it('asks for identity, and decodes gzip, deflate (zlib and raw) and br streams as they arrive (item 11)', async () => {
    const parts = [chatChunk({ content: 'first' }), chatChunk({ content: 'second' }) + usageChunk(8, 2) + DONE];
    const codings: [string, () => Transform][] = [
      ['gzip', () => createGzip()],
      ['deflate', () => createDeflate()],
      ['deflate', () => createDeflateRaw()],
      ['br', () => createBrotliCompress()],
    ];
    const scripts: Script[] = [];
    for (const [name, make] of codings) {
      const [a, b] = await compressInParts(make(), parts);
      scripts.push({ headers: { 'content-encoding': name }, steps: [{ at: 0, write: a }, { at: 600, write: b }] });
    }
    const res = await runScripts(scripts, { transport });
    expect(res.records.map((r) => [r.status, r.error])).toEqual([0, 1, 2, 3].map(() => ["ok", null]));
    for (const r of res.records) {
      expect(r.answer_chars).toBe('firstsecond'.length);
      expect(r.output_tokens).toBe(2);
      expect(r.event_kinds).toBe('aaud');
      // each event is timed when its decompressed bytes arrived, not when the body ended
      const [t1, t2] = r.event_times_ms;
      // sent 600 ms apart; the first write may itself be late on a loaded machine (seen: 120 ms), hence the margin
      expect(t2 - t1).toBeGreaterThanOrEqual(300);
    }
    const acceptEncoding = (h: string[]) => h.filter((x, j) => j % 2 === 1 && h[j - 1].toLowerCase() === 'accept-encoding');
    for (const h of server!.rawHeaders) expect(acceptEncoding(h)).toEqual(['identity']);
    // a user's own Accept-Encoding replaces tokenflood's
    const own = await runScripts([{ headers: { 'content-encoding': 'gzip' }, steps: [{ at: 0, write: gzipSync(answer('fine')) }] }], { transport, header: ['Accept-Encoding: gzip'] });
    expect(own.records[0].status).toBe('ok');
    expect(acceptEncoding(server!.rawHeaders[0])).toEqual(['gzip']);
  });

  it('an undecodable or corrupt compressed body is a parse_error saying so', async () => {
    const gz = gzipSync(answer('fine'));
    const scripts: Script[] = [
      { headers: { 'content-encoding': 'zstd' }, steps: [{ at: 0, write: Buffer.from('(zstd bytes)') }] },
      { headers: { 'content-encoding': 'gzip' }, steps: [{ at: 0, write: Buffer.concat([gz.subarray(0, 12), Buffer.from('not gzip at all')]) }] },
      { headers: { 'content-encoding': 'gzip' }, steps: [{ at: 0, write: gz }] },
    ];
    const res = await runScripts(scripts, { transport });
    expect(statuses(res.records)).toEqual(['parse_error', 'parse_error', 'ok']);
    expect(res.records[0].error).toMatch(/content-encoding "zstd" is not supported/);
    expect(res.records[1].error).toMatch(/could not decode the compressed body/);
  });

  it('an SSE `event: error` is an error carrying the server message (item 11)', async () => {
    const scripts: Script[] = [
      { steps: [{ at: 0, write: chatChunk({ content: 'a' }) + 'event: error\ndata: {"error":{"message":"model overloaded, try later"}}\n\n' }] },
      { steps: [{ at: 0, write: 'event: error\ndata: upstream timed out\n\n' }] },
      { steps: [{ at: 0, write: 'event: error\ndata: {"message":"quota exceeded","type":"rate_limit"}\n\n' }] },
    ];
    const res = await runScripts(scripts, { transport });
    expect(statuses(res.records)).toEqual(['http_error', 'http_error', 'http_error']);
    expect(res.records[0].error).toMatch(/^error event in stream: model overloaded, try later$/);
    expect(res.records[1].error).toMatch(/^error event in stream: upstream timed out$/);
    expect(res.records[2].error).toMatch(/^error event in stream: quota exceeded$/);
    expect(res.records[0].event_kinds).toBe('ae');
  });

  it('events after [DONE] are ignored and counted (item 11)', async () => {
    const after = chatChunk({ content: 'more text' }) + usageChunk(8, 50) + ': ping\n\n';
    const res = await runScripts([{ steps: [{ at: 0, write: answer('fine') + after }] }, { steps: [{ at: 0, write: answer('fine') }] }], { transport });
    const [r, clean] = res.records;
    expect(r.status).toBe('ok');
    expect(r.answer_chars).toBe(4);
    expect(r.output_tokens).toBe(1);
    expect(r.event_kinds).toBe('aud');
    expect(r.event_times_ms).toHaveLength(3);
    expect(r.events_after_done).toBe(3);
    expect(clean.events_after_done).toBe(0);
  });

  it('usage values that are not sane counts are ignored, counted with the tokenizer, and the record says why (item 10)', async () => {
    const bad: unknown[] = [-5, 2.5, 1e300, '12', 4 + 131_073];
    const usage = (completion: unknown) =>
      `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 8, completion_tokens: completion } })}\n\n`;
    const scripts: Script[] = bad.map((v) => ({ steps: [{ at: 0, write: chatChunk({ content: 'one two three' }) + usage(v) + DONE }] }));
    scripts.push({ steps: [{ at: 0, write: chatChunk({ content: 'one two three' }) + usage(3) + DONE }] });
    const res = await runScripts(scripts, { transport });
    expect(statuses(res.records)).toEqual(bad.map(() => 'ok').concat('ok'));
    const messages = [
      /^completion_tokens=-5 is not a non-negative integer$/,
      /^completion_tokens=2\.5 is not a non-negative integer$/,
      /^completion_tokens=1e\+300 is not a non-negative integer$/,
      /^completion_tokens="12" is not a non-negative integer$/,
      /^completion_tokens=131077 is more than max_tokens \(4\) \+ 131072$/,
    ];
    messages.forEach((m, i) => {
      const r = res.records[i];
      expect.soft(r.usage_rejected, String(bad[i])).toMatch(m);
      expect.soft(r.token_source, String(bad[i])).toBe('tokenizer');
      expect.soft(r.output_tokens, String(bad[i])).toBeGreaterThan(0);
      expect.soft(Number.isSafeInteger(r.output_tokens), String(bad[i])).toBe(true);
      expect.soft(r.input_tokens, String(bad[i])).toBe(8); // the sane prompt_tokens is kept
    });
    const good = res.records[bad.length];
    expect(good.usage_rejected).toBeNull();
    expect(good.token_source).toBe('usage');
    expect(good.output_tokens).toBe(3);
    const s = res.summary;
    for (const v of [s.output_throughput, s.total_token_throughput, s.output_speed_tok_s.max ?? 0]) {
      expect(Number.isFinite(v)).toBe(true);
      expect(v).toBeGreaterThanOrEqual(0);
    }
  });

  it('one 50 MB SSE line is a parse_error naming --max-line-bytes; a 6 MB line under the cap is read (item 15)', async () => {
    const huge = 'data: {"choices":[{"delta":{"content":"' + 'x'.repeat(50 * 1024 * 1024) + '"}}]}\n\n';
    const six = 'x'.repeat(6 * 1024 * 1024);
    const scripts: Script[] = [
      { steps: [{ at: 0, write: huge }] },
      { steps: [{ at: 0, write: chatChunk({ content: six }) + usageChunk(8, 2) + DONE }] },
      { headers: { 'content-type': 'application/json' }, steps: [{ at: 0, write: huge.slice(6) }] },
    ];
    const res = await runScripts(scripts, { transport, timeout: '60s' });
    expect(statuses(res.records)).toEqual(['parse_error', 'ok', 'parse_error']);
    expect(res.records[0].error).toBe('an SSE line longer than 8388608 bytes (--max-line-bytes)');
    expect(res.records[1].answer_chars).toBe(six.length);
    expect(res.records[2].error).toBe('a response body longer than 8388608 bytes (--max-line-bytes)');
    // the cap is a flag
    const small = await runScripts([{ steps: [{ at: 0, write: chatChunk({ content: 'y'.repeat(5000) }) + DONE }] }], { transport, maxLineBytes: 4096 });
    expect(small.records[0].status).toBe('parse_error');
    expect(small.records[0].error).toMatch(/longer than 4096 bytes/);
  }, 60_000);
});
