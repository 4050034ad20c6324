import { describe, it, expect } from 'vitest';
import { textOfTokens, nonce } from './synthetic.js';
import { loadTokenizer } from './tokenizer.js';
import { createRng } from '../util/rng.js';

describe('synthetic prompts', () => {
  for (const enc of ['cl100k_base', 'o200k_base']) {
    it(`cuts text to exact token counts with ${enc}`, () => {
      const tok = loadTokenizer(enc);
      const rng = createRng(1);
      for (const n of [1, 2, 7, 64, 128, 511, 2048, 5000]) {
        const r = textOfTokens(tok, n, rng, nonce(rng));
        expect(r.tokens).toBe(n);
        expect(tok.count(r.text)).toBe(n);
      }
    });
  }
  it('is repeatable from the seed and different across nonces', () => {
    const tok = loadTokenizer();
    const a = textOfTokens(tok, 100, createRng(5), 'x ');
    const b = textOfTokens(tok, 100, createRng(5), 'x ');
    expect(a.text).toBe(b.text);
    const rng = createRng(9);
    expect(nonce(rng)).not.toBe(nonce(rng));
  });
});
