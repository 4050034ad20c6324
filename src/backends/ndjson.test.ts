// The NDJSON parser: every line comes out whole and once, however the bytes are split.
import { describe, it, expect } from 'vitest';
import { NdjsonParser, isNdjsonType } from './ndjson.js';

function parse(chunks: Uint8Array[], max?: number): { lines: string[]; overflow: string | null } {
  const lines: string[] = [];
  const p = new NdjsonParser((l) => lines.push(l), max);
  for (const c of chunks) p.push(c);
  p.end();
  return { lines, overflow: p.overflow };
}

const body = '{"message":{"content":"héllo 👋"},"done":false}\r\n\n{"response":"日本","done":false}\n{"done":true,"eval_count":2}';
const whole = Buffer.from(body);

describe('NdjsonParser', () => {
  it('reads lines, CRLF and a last line without LF; a blank line is a keep-alive ("")', () => {
    const { lines } = parse([whole]);
    expect(lines).toEqual(['{"message":{"content":"héllo 👋"},"done":false}', '', '{"response":"日本","done":false}', '{"done":true,"eval_count":2}']);
    expect(lines.slice(0, 1).concat(lines.slice(2)).map((l) => JSON.parse(l))).toHaveLength(3);
  });

  it('gives the same lines for a split at every byte, and for one byte per chunk (multi-byte UTF-8 included)', () => {
    const expected = parse([whole]).lines;
    for (let i = 0; i <= whole.length; i++) expect(parse([whole.subarray(0, i), whole.subarray(i)]).lines).toEqual(expected);
    expect(parse([...whole].map((b) => Uint8Array.of(b))).lines).toEqual(expected);
  });

  it('does not keep a reference to a reused buffer', () => {
    const lines: string[] = [];
    const p = new NdjsonParser((l) => lines.push(l));
    const buf = Buffer.from('{"a":1');
    p.push(buf);
    buf.fill(0x20);
    p.push(Buffer.from('}\n'));
    expect(lines).toEqual(['{"a":1}']);
  });

  it('stops at a line longer than maxLineBytes, split or not', () => {
    expect(parse([Buffer.from('{"a":"0123456789"}\n')], 8).overflow).toMatch(/NDJSON line longer than 8 bytes/);
    const r = parse([Buffer.from('{"a":"01'), Buffer.from('23456789"}\n')], 8);
    expect(r.overflow).toMatch(/--max-line-bytes/);
    expect(r.lines).toEqual([]);
  });

  it('knows the media types an NDJSON backend reads line by line', () => {
    expect(isNdjsonType('application/x-ndjson')).toBe(true);
    expect(isNdjsonType('application/json')).toBe(true);
    expect(isNdjsonType('text/event-stream')).toBe(false);
    expect(isNdjsonType('text/html')).toBe(false);
  });
});
