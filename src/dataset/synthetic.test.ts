import { describe, it, expect } from 'vitest';
import { textOfTokens, nonce } from './synthetic.js';
import { loadTokenizer } from './tokenizer.js';
import { corpusText } from './corpus.js';
import { createRng } from '../util/rng.js';

describe('synthetic prompts', () => {
  for (const enc of ['cl100k_base', 'o200k_base'])
    for (const corpus of ['en', 'zh']) {
      it(`cuts ${corpus} text to exact token counts with ${enc}, never inside a character`, () => {
        const tok = loadTokenizer(enc);
        const rng = createRng(1);
        for (const n of [1, 2, 3, 7, 64, 128, 511, 2048, 5000]) {
          const r = textOfTokens(tok, n, rng, nonce(rng), corpus);
          expect(r.tokens).toBe(n);
          expect(tok.count(r.text)).toBe(n);
          expect(r.text).not.toMatch(/\uFFFD|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
        }
      });
    }
  it('Chinese prompts are Chinese text from the corpus', () => {
    const tok = loadTokenizer('cl100k_base');
    const r = textOfTokens(tok, 300, createRng(3), '', 'zh');
    const body = r.text.replace(/[ .,\n!a-]+$/, '').replace(/[。，的]+$/, '');
    expect(corpusText('zh').repeat(2)).toContain(body.slice(0, 50));
    expect((r.text.match(/[\u4e00-\u9fff]/g) ?? []).length).toBeGreaterThan(100);
  });
  it('is repeatable from the seed and different across nonces', () => {
    const tok = loadTokenizer();
    const a = textOfTokens(tok, 100, createRng(5), 'x ');
    const b = textOfTokens(tok, 100, createRng(5), 'x ');
    expect(a.text).toBe(b.text);
    const rng = createRng(9);
    expect(nonce(rng)).not.toBe(nonce(rng));
  });
});
