// The file line reader: the same lines as splitting the whole text, across chunk edges and multi-byte characters; long lines refused.
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { closeSync, mkdtempSync, openSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileLines, textLines } from './lines.js';

const dir = mkdtempSync(join(tmpdir(), 'tokenflood-lines-'));
const linesOf = (text: string, chunk: number, max?: number) => {
  const f = join(dir, 'd.jsonl');
  writeFileSync(f, text);
  const fd = openSync(f, 'r');
  try {
    return [...fileLines(fd, f, max, chunk)];
  } finally {
    closeSync(fd);
  }
};

describe('fileLines', () => {
  it('yields exactly the lines of String.split, whatever the chunk size (multi-byte characters split across chunks)', () => {
    const piece = fc.constantFrom('a', '\n', '\r\n', 'é', '€', '𝄞', '{"p":"x"}', '');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }).map((a) => a.join('')), fc.integer({ min: 1, max: 9 }), (text, chunk) => {
        expect(linesOf(text, chunk).map((l) => l.text)).toEqual(text.split('\n'));
        expect([...textLines(text, 'x')].map((l) => l.text)).toEqual(text.split('\n'));
      }),
      { numRuns: 300 },
    );
  });

  it('a line over the limit is an error naming file:line, raised before the rest of the line is read', () => {
    const text = 'ok\n' + 'x'.repeat(5000) + '\nnever reached\n';
    expect(() => linesOf(text, 64, 1000)).toThrow(/d\.jsonl:2: line longer than/);
  });
});
