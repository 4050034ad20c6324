import { describe, it, expect, vi } from 'vitest';
import fc from 'fast-check';
import { SseParser, type SseEvent } from './sse.js';

function parseAll(chunks: Uint8Array[]): SseEvent[] {
  const out: SseEvent[] = [];
  const p = new SseParser((e) => out.push(e));
  for (const c of chunks) p.push(c);
  p.end();
  return out;
}

const enc = (s: string) => new Uint8Array(Buffer.from(s, 'utf8'));

describe('SseParser', () => {
  it('parses data events, comments, event names and multi-line data', () => {
    const text = ': ping\n\nevent: message\ndata: {"a":1}\n\ndata: line1\ndata: line2\n\ndata: [DONE]\n\n';
    expect(parseAll([enc(text)])).toEqual([
      { type: 'comment', text: 'ping' },
      { type: 'data', data: '{"a":1}', event: 'message' },
      { type: 'data', data: 'line1\nline2', event: undefined },
      { type: 'data', data: '[DONE]', event: undefined },
    ]);
  });

  it('accepts CRLF and bare CR line ends, also when CRLF is split across chunks', () => {
    const crlf = 'data: x\r\n\r\ndata: y\r\r';
    expect(parseAll([enc(crlf)]).map((e) => (e.type === 'data' ? e.data : ''))).toEqual(['x', 'y']);
    const bytes = enc('data: a\r\n\r\ndata: b\r\n\r\n');
    for (let cut = 0; cut <= bytes.length; cut++) {
      const ev = parseAll([bytes.subarray(0, cut), bytes.subarray(cut)]);
      expect(ev.map((e) => (e.type === 'data' ? e.data : '?'))).toEqual(['a', 'b']);
    }
  });

  it('reassembles an event split at every byte boundary, including inside UTF-8 characters', () => {
    const text = 'data: {"content":"你好, wörld 🚀"}\n\n: hb\n\ndata: [DONE]\n\n';
    const bytes = enc(text);
    const whole = parseAll([bytes]);
    for (let cut = 0; cut <= bytes.length; cut++) {
      expect(parseAll([bytes.subarray(0, cut), bytes.subarray(cut)])).toEqual(whole);
    }
    // one byte at a time
    expect(parseAll([...bytes].map((b) => Uint8Array.of(b)))).toEqual(whole);
  });

  it('dispatches a final event that lacks the trailing blank line', () => {
    expect(parseAll([enc('data: last')])).toEqual([{ type: 'data', data: 'last', event: undefined }]);
  });

  it('never throws, loses or invents an event under random splits (property)', () => {
    const payload = fc.array(fc.string({ unit: 'grapheme', maxLength: 20 }).filter((s) => !/[\r\n]/.test(s)), {
      maxLength: 20,
    });
    fc.assert(
      fc.property(payload, fc.array(fc.nat(), { maxLength: 10 }), fc.constantFrom('\n', '\r\n', '\r'), (datas, cuts, eol) => {
        const text = datas.map((d) => `data: ${d}${eol}${eol}`).join('');
        const bytes = enc(text);
        const points = [...new Set(cuts.map((c) => (bytes.length ? c % bytes.length : 0)))].sort((a, b) => a - b);
        const chunks: Uint8Array[] = [];
        let prev = 0;
        for (const p of points) {
          chunks.push(bytes.subarray(prev, p));
          prev = p;
        }
        chunks.push(bytes.subarray(prev));
        const got = parseAll(chunks).map((e) => (e.type === 'data' ? e.data : '!'));
        expect(got).toEqual(datas);
      }),
      { numRuns: 300 },
    );
  });

  it('never throws on random bytes', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 64 }), { maxLength: 8 }), (chunks) => {
        parseAll(chunks);
      }),
      { numRuns: 300 },
    );
  });

  it('buffers a line spanning many reads in linear time: its bytes are joined once, not once per read', () => {
    const line = enc(`data: ${'x'.repeat(1024 * 1024)}\n\n`);
    const concat = vi.spyOn(Buffer, 'concat');
    try {
      const out: SseEvent[] = [];
      const p = new SseParser((e) => out.push(e));
      for (let i = 0; i < line.length; i += 1024) p.push(line.subarray(i, i + 1024));
      p.end();
      expect(out).toHaveLength(1);
      const copied = concat.mock.results.reduce((n, r) => n + (r.value as Buffer).length, 0);
      expect(copied).toBeLessThanOrEqual(2 * line.length);
    } finally {
      concat.mockRestore();
    }
  });

  it('caps a line at maxLineBytes (any split) and then ignores the rest of the stream', () => {
    const max = 1024;
    const ok = enc(`data: ${'a'.repeat(max - 6)}\n\n`); // a line of exactly max bytes
    const long = enc(`data: ${'a'.repeat(max - 5)}\n\ndata: after\n\n`);
    for (const cut of [0, 1, 500, max - 1, max, max + 1]) {
      const good: SseEvent[] = [];
      const p1 = new SseParser((e) => good.push(e), max);
      p1.push(ok.subarray(0, cut));
      p1.push(ok.subarray(cut));
      p1.end();
      expect(p1.overflow).toBeNull();
      expect(good).toHaveLength(1);
      const bad: SseEvent[] = [];
      const p2 = new SseParser((e) => bad.push(e), max);
      p2.push(long.subarray(0, cut));
      p2.push(long.subarray(cut));
      p2.end();
      expect(p2.overflow).toBe('an SSE line longer than 1024 bytes (--max-line-bytes)');
      expect(bad).toEqual([]);
    }
  });

  it('caps the data of one event made of many short data: lines', () => {
    const out: SseEvent[] = [];
    const p = new SseParser((e) => out.push(e), 1024);
    p.push(enc('data: 0123456789\n'.repeat(200) + '\n'));
    p.end();
    expect(p.overflow).toMatch(/^an SSE event longer than 1024 bytes/);
    expect(out).toEqual([]);
  });
});
