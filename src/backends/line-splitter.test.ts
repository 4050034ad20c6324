import { describe, expect, it } from 'vitest';
import { LineSplitter, type LineEnds } from './line-splitter.js';

const split = (ends: LineEnds, chunks: string[], max = 100) => {
  const lines: string[] = [];
  const s = new LineSplitter((l) => lines.push(Buffer.from(l).toString('utf8')), max, ends);
  for (const c of chunks) s.push(Buffer.from(c, 'utf8'));
  s.end();
  return { lines, tooLong: s.tooLong };
};

describe('LineSplitter', () => {
  it('cr-lf: CR, LF and CRLF end a line, also a CRLF split across chunks', () => {
    expect(split('cr-lf', ['a\rb\nc\r', '\nd']).lines).toEqual(['a', 'b', 'c', 'd']);
  });

  it('lf: only LF ends a line, a CR stays in it', () => {
    expect(split('lf', ['a\rb\nc\r', '\nd']).lines).toEqual(['a\rb', 'c\r', 'd']);
  });

  it('reassembles a line split inside a multi-byte character', () => {
    const b = Buffer.from('é€\n', 'utf8');
    for (const ends of ['cr-lf', 'lf'] as const) {
      const lines: string[] = [];
      const s = new LineSplitter((l) => lines.push(Buffer.from(l).toString('utf8')), 100, ends);
      for (let i = 0; i < b.length; i++) s.push(b.subarray(i, i + 1));
      expect(lines).toEqual(['é€']);
    }
  });

  it('a line longer than the limit stops it, complete or unfinished', () => {
    expect(split('lf', ['ab\n', 'cdef\ng\n'], 3)).toEqual({ lines: ['ab'], tooLong: true });
    expect(split('cr-lf', ['ab\r', 'cd', 'ef'], 3)).toEqual({ lines: ['ab'], tooLong: true });
    expect(split('cr-lf', ['abc\r', 'x'], 3)).toEqual({ lines: ['abc', 'x'], tooLong: false });
  });
});
