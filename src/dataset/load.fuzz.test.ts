// Property-based tests of the dataset loaders: they never throw on any input, and never lose or invent an item.
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { parseDataset } from './load.js';

const text = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }).filter((s) => s.trim().length > 0);

describe('dataset loaders (property-based)', () => {
  for (const [file, format] of [
    ['x.jsonl', 'jsonl'],
    ['x.json', 'sharegpt'],
    ['x.csv', 'csv'],
  ] as const) {
    it(`${format}: never throws on random text; every problem names ${file}:line`, () => {
      fc.assert(
        fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (t) => {
          const d = parseDataset(file, t, format, format === 'csv' ? { prompt: 'q' } : {});
          for (const p of d.problems) expect(p).toMatch(new RegExp(`^${file.replace('.', '\\.')}:\\d+: `));
        }),
        { numRuns: 300 },
      );
    });
  }

  it('jsonl: valid prompt lines mixed with garbage lines load exactly the valid prompts, in order', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(text.map((p) => ({ ok: true as const, p })), fc.constantFrom('{', 'nope', '[]', '{"x":1}').map((g) => ({ ok: false as const, p: g }))), { maxLength: 30 }), (rows) => {
        const body = rows.map((r) => (r.ok ? JSON.stringify({ prompt: r.p }) : r.p)).join('\n');
        const d = parseDataset('d.jsonl', body, 'jsonl');
        const want = rows.filter((r) => r.ok).map((r) => r.p);
        const got = d.items.map((i) => i.turns[0]?.messages?.at(-1)?.content ?? (i.turns[0] as { prompt?: string })?.prompt);
        expect(got).toEqual(want);
        expect(d.problems).toHaveLength(rows.length - want.length);
      }),
      { numRuns: 200 },
    );
  });

  it('csv: quoted fields with commas, quotes and line breaks round-trip', () => {
    const q = (s: string) => `"${s.replace(/"/g, '""')}"`;
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 20 }), (prompts) => {
        const body = ['q,n', ...prompts.map((p, i) => `${q(p)},${i}`)].join('\n');
        const d = parseDataset('d.csv', body, 'csv', { prompt: 'q' });
        expect(d.problems).toEqual([]);
        expect(d.items).toHaveLength(prompts.length);
      }),
      { numRuns: 200 },
    );
  });
});
