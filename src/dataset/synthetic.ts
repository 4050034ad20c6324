// Synthetic prompts of an exact token count, cut from a bundled corpus with the run's tokenizer.
import type { Tokenizer } from './tokenizer.js';
import type { Rng } from '../util/rng.js';
import { corpusHasSpaces, corpusText } from './corpus.js';

interface CorpusView {
  /** The corpus as code points, so a cut never splits a character (or a surrogate pair). */
  chars: string[];
  /** Characters per token for this tokenizer: the step size of the search. */
  charsPerToken: number;
}

const viewCache = new WeakMap<Tokenizer, Map<string, CorpusView>>();

function corpusView(tok: Tokenizer, corpus: string): CorpusView {
  let m = viewCache.get(tok);
  if (!m) viewCache.set(tok, (m = new Map()));
  let v = m.get(corpus);
  if (!v) {
    const text = corpusText(corpus);
    const chars = Array.from(text);
    v = { chars, charsPerToken: chars.length / Math.max(1, tok.count(text)) };
    m.set(corpus, v);
  }
  return v;
}

/** A 32-bit mix of a prompt length: prompts of different lengths drawn in the same place get different heads. */
export const lengthMix = (tokens: number): number => Math.imul(tokens + 1, 0x9e3779b1) >>> 0;

/**
 * A unique per-request nonce; put it after any shared prefix so the prefix can still be cached. Its random part
 * comes first (a head cut short for a tiny prompt keeps it) and differs by `tokens`; `salt` (the run id when
 * --dataset-seed is not given) makes it differ from every other run's.
 */
export function nonce(rng: Rng, tokens = 0, salt?: string): string {
  const n = ((Math.floor(rng.next() * 0xffffffff) ^ lengthMix(tokens)) >>> 0).toString(16).padStart(8, '0');
  return salt ? `[${n}-${salt}] ` : `[${n}] `;
}

/** Short strings tried, in order, to add the last single tokens when the next corpus character would add two. */
const FILLERS = [' ', '.', ',', '。', '，', '\n', ' a', 'a', '的', '-', '!'];

/**
 * Text of exactly `tokens` tokens (as the tokenizer counts it) that starts with `head`, continuing with the
 * corpus from a random offset (wrapping around). The cut is searched in whole characters: BPE merges across
 * the join shift counts, and a Chinese character can take two or three tokens, so the last token or two may
 * be a filler (a space or punctuation) that adds exactly one. Returns the closest text when exactness is impossible.
 */
export function textOfTokens(tok: Tokenizer, tokens: number, rng: Rng, head = '', corpus = 'en'): { text: string; tokens: number } {
  const { chars, charsPerToken } = corpusView(tok, corpus);
  if (tokens <= 0) return { text: '', tokens: 0 };
  let headTokens = head ? tok.count(head) : 0;
  if (headTokens >= tokens) {
    // The head alone is too long: keep only its first tokens.
    head = tok.decode(tok.encode(head).slice(0, Math.max(0, tokens - 1))).replace(/\uFFFD/g, '');
    headTokens = head ? tok.count(head) : 0;
  }
  let start = rng.int(0, chars.length - 1);
  if (corpusHasSpaces(corpus)) {
    // Start at a word: skip to just after the next space.
    for (let i = 0; i < 64 && chars[start % chars.length] !== ' '; i++) start++;
    start = (start + 1) % chars.length;
  }
  // Joined from slices, not appended char by char: a flat string, where a chain of k appends holds k rope nodes.
  const textOf = (k: number): string => {
    let s = head;
    for (let from = start % chars.length, left = k; left > 0; from = 0) {
      const n = Math.min(left, chars.length - from);
      s += chars.slice(from, from + n).join('');
      left -= n;
    }
    return s;
  };
  let lo = { k: 0, n: headTokens }; // longest cut known to be short of the target
  let hi: { k: number; n: number } | undefined; // shortest cut known to overshoot
  let k = Math.max(1, Math.round((tokens - headTokens) * charsPerToken));
  for (let attempt = 0; attempt < 24; attempt++) {
    const n = tok.count(textOf(k));
    if (n === tokens) return { text: textOf(k), tokens: n };
    if (n < tokens) {
      if (k > lo.k) lo = { k, n };
    } else if (!hi || k < hi.k) hi = { k, n };
    if (hi && hi.k - lo.k <= 1) break;
    let step = Math.round((tokens - n) * charsPerToken);
    if (step === 0) step = n < tokens ? 1 : -1;
    k += step;
    // Stay strictly inside the bracket; bisect when the estimate jumps out of it.
    if (k <= lo.k || (hi && k >= hi.k)) k = hi ? Math.floor((lo.k + hi.k) / 2) : lo.k + Math.max(1, Math.abs(step));
    if (k <= lo.k) k = lo.k + 1;
  }
  return fillTo(tok, textOf(lo.k), lo.n, tokens, hi ? { text: textOf(hi.k), tokens: hi.n } : undefined);
}

/** Add single-token fillers to `text` (n tokens) until it has `tokens`; otherwise return the closer of it and `over`. */
function fillTo(tok: Tokenizer, text: string, n: number, tokens: number, over?: { text: string; tokens: number }): { text: string; tokens: number } {
  while (n < tokens) {
    let grown = false;
    for (const f of FILLERS) {
      if (tok.count(text + f) === n + 1) {
        text += f;
        n++;
        grown = true;
        break;
      }
    }
    if (!grown) break;
  }
  if (n === tokens || !over) return { text, tokens: n };
  return Math.abs(over.tokens - tokens) < Math.abs(n - tokens) ? over : { text, tokens: n };
}
