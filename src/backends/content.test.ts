import { describe, it, expect } from 'vitest';
import { gzipSync, deflateSync, deflateRawSync, brotliCompressSync } from 'node:zlib';
import { BodyDecoder, contentCoding, isJsonType, mediaType, type Coding } from './content.js';

describe('mediaType', () => {
  it('lowercases and drops parameters and whitespace', () => {
    expect(mediaType('Text/Event-Stream; charset=UTF-8')).toBe('text/event-stream');
    expect(mediaType(' APPLICATION/JSON ')).toBe('application/json');
    expect(mediaType(['text/html;q=1', 'x'])).toBe('text/html');
    expect(mediaType(undefined)).toBe('');
    expect(isJsonType(mediaType('Application/Problem+JSON'))).toBe(true);
    expect(isJsonType('text/json+x')).toBe(false);
  });
});

describe('contentCoding', () => {
  it('names codings it decodes, ignores identity, and refuses others with a message', () => {
    expect(contentCoding(undefined)).toEqual({ coding: null, error: null });
    expect(contentCoding('Identity')).toEqual({ coding: null, error: null });
    expect(contentCoding(' GZIP ').coding).toBe('gzip');
    expect(contentCoding('x-gzip').coding).toBe('gzip');
    expect(contentCoding('br').coding).toBe('br');
    expect(contentCoding('zstd').error).toMatch(/content-encoding "zstd" is not supported/);
    expect(contentCoding('gzip, br').error).toMatch(/"gzip, br" is not supported/);
  });
});

describe('BodyDecoder', () => {
  const text = 'data: {"a":1}\n\n'.repeat(50);
  const cases: [Coding, Buffer][] = [
    ['gzip', gzipSync(text)],
    ['deflate', deflateSync(text)],
    ['deflate', deflateRawSync(text)],
    ['br', brotliCompressSync(text)],
  ];
  it.each(cases)('decodes %s fed in small pieces', async (coding, bytes) => {
    const out: Buffer[] = [];
    const err = await new Promise<Error | null>((resolve) => {
      const d = new BodyDecoder(coding, (b) => out.push(b), resolve);
      for (let i = 0; i < bytes.length; i += 7) d.write(bytes.subarray(i, i + 7));
      d.end();
    });
    expect(err).toBeNull();
    expect(Buffer.concat(out).toString()).toBe(text);
  });

  it('reports a truncated body as an error', async () => {
    const err = await new Promise<Error | null>((resolve) => {
      const d = new BodyDecoder('gzip', () => {}, resolve);
      d.write(gzipSync(text).subarray(0, 20));
      d.end();
    });
    expect(err?.message).toMatch(/unexpected end of file/);
  });
});
