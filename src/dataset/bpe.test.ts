// The compact BPE tables give gpt-tokenizer's ids and counts exactly, and loading them costs far less memory.
import { describe, it, expect } from 'vitest';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { loadTokenizer, BUILTIN_TOKENIZERS } from './tokenizer.js';
import { bpeWork, SCAN_MERGE_MAX } from './bpe.js';
import { countSplittingRuns } from './split-count.js';
import { corpusText, CORPORA } from './corpus.js';
import { textOfTokens } from './synthetic.js';
import { createRng } from '../util/rng.js';

const require = createRequire(import.meta.url);
const none = { allowedSpecial: new Set<string>(), disallowedSpecial: new Set<string>() };
const reference = (encoding: string) => require(`gpt-tokenizer/encoding/${encoding}`) as { encode(t: string, o: unknown): number[]; decode(ids: number[]): string };

describe.each(BUILTIN_TOKENIZERS)('compact BPE tables (%s)', (encoding) => {
  const tok = loadTokenizer(encoding);
  const ref = reference(encoding);
  const same = (text: string) => {
    const ids = ref.encode(text, none);
    expect(tok.encode(text)).toEqual(ids);
    expect(tok.count(text)).toBe(ids.length);
  };

  it('encodes every bundled corpus, its slices and synthetic prompts as gpt-tokenizer does', () => {
    const rng = createRng(7);
    for (const corpus of CORPORA) {
      const text = corpusText(corpus);
      same(text);
      const chars = Array.from(text);
      for (let i = 0; i < 300; i++) {
        const a = rng.int(0, chars.length - 1);
        same(`[${rng.int(0, 0xffffffff).toString(16)}] ` + chars.slice(a, a + rng.int(1, 400)).join('') + ['', ' ', '.', '。', ' a', '的', '\n'][i % 7]);
      }
      for (const n of [1, 2, 7, 64, 512]) {
        const p = textOfTokens(tok, n, rng, '[0a1b2c3d] ', corpus);
        expect(p.tokens).toBe(n);
        same(p.text);
      }
    }
  });

  it('matches gpt-tokenizer on arbitrary text (unicode, digits, whitespace runs, special-token text, contractions)', () => {
    const pieces = fc.constantFrom("'s", "'LL", ' ', '  ', '\n', '\r\n', '\t', '<|endoftext|>', '123456', 'ÄÖü', '日本語', '한국어', '🙂', '\u0301', 'x', 'Hello', ' world', '...', '$%^', 'ı');
    fc.assert(
      fc.property(fc.array(fc.oneof(pieces, fc.string({ unit: 'grapheme', maxLength: 12 }), fc.string({ unit: 'binary', maxLength: 6 })), { maxLength: 12 }), (parts) => {
        const text = parts.join('');
        same(text);
        expect(tok.decode(tok.encode(text))).toBe(ref.decode(ref.encode(text, none)));
      }),
      { numRuns: 400 },
    );
  });
});

describe.each(BUILTIN_TOKENIZERS)('long pieces merge in O(n log n) (%s)', (encoding) => {
  const tok = loadTokenizer(encoding);
  const ref = reference(encoding);

  it('gives gpt-tokenizer ids on pieces long enough for the heap merge', () => {
    const parts = fc.constantFrom('a', 'b', 'ab', 'the', 'ing', 'Q', 'z', 'é', '好', '日本', '=', '-', '0');
    fc.assert(
      fc.property(fc.array(parts, { minLength: SCAN_MERGE_MAX, maxLength: 700 }), (p) => {
        const text = p.join('');
        expect(tok.encode(text)).toEqual(ref.encode(text, none));
      }),
      { numRuns: 120 },
    );
    for (const s of ['a'.repeat(5000), '='.repeat(3001), '好'.repeat(2000), `${' '.repeat(3000)}x`, 'ab'.repeat(1500)]) expect(tok.encode(s)).toEqual(ref.encode(s, none));
  });

  it('counts a 200 KB run of one character with work linear in its length (the scan was quadratic: 88 s)', () => {
    const n = 200_000;
    const before = bpeWork.heapPops;
    const count = tok.count('a'.repeat(n));
    // Each byte's pair is pushed once, and each merge pushes at most two more: at most 3n pops.
    expect(bpeWork.heapPops - before).toBeLessThanOrEqual(3 * n);
    expect(bpeWork.heapPops - before).toBeGreaterThan(0);
    expect(count).toBe(countSplittingRuns(tok, 'a'.repeat(n)));
    expect(tok.count(`${'a'.repeat(n)} b`)).toBe(count + 1);
  }, 60_000);
});
