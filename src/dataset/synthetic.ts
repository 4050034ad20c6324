// Synthetic prompts of an exact token count, cut from a bundled corpus with the run's tokenizer.
import type { Tokenizer } from './tokenizer.js';
import type { Rng } from '../util/rng.js';
import { corpusText } from './corpus.js';

const idCache = new WeakMap<Tokenizer, Map<string, number[]>>();

function corpusIds(tok: Tokenizer, corpus: string): number[] {
  let m = idCache.get(tok);
  if (!m) idCache.set(tok, (m = new Map()));
  let ids = m.get(corpus);
  if (!ids) {
    ids = tok.encode(corpusText(corpus));
    m.set(corpus, ids);
  }
  return ids;
}

/** A unique per-request nonce placed at the very start of the prompt, so no prefix cache can hit by accident. */
export function nonce(rng: Rng): string {
  return `[${Math.floor(rng.next() * 0xffffffff).toString(16).padStart(8, '0')}] `;
}

/**
 * Text of exactly `tokens` tokens (as the tokenizer counts it) that starts with `head`. Starts from a random
 * offset of the corpus and adjusts the cut until re-encoding gives the exact count, since BPE merges across
 * the join can shift counts by one or two. Returns the closest achievable text when exactness is impossible.
 */
export function textOfTokens(tok: Tokenizer, tokens: number, rng: Rng, head = '', corpus = 'en'): { text: string; tokens: number } {
  const ids = corpusIds(tok, corpus);
  let headTokens = head ? tok.count(head) : 0;
  if (headTokens >= tokens) {
    // The nonce alone is too long: keep only its first tokens (still mostly unique).
    head = tok.decode(tok.encode(head).slice(0, Math.max(0, tokens - 1)));
    headTokens = head ? tok.count(head) : 0;
  }
  let want = Math.max(0, tokens - headTokens);
  const start = rng.int(0, ids.length - 1);
  const take = (n: number): number[] => {
    const out: number[] = new Array(n);
    for (let i = 0; i < n; i++) out[i] = ids[(start + i) % ids.length];
    return out;
  };
  let best = { text: head, tokens: headTokens };
  for (let attempt = 0; attempt < 8; attempt++) {
    const text = head + tok.decode(take(want)).replace(/\uFFFD/g, '');
    const n = tok.count(text);
    if (Math.abs(n - tokens) < Math.abs(best.tokens - tokens)) best = { text, tokens: n };
    if (n === tokens) return best;
    want = Math.max(0, want + (tokens - n));
  }
  return best;
}
