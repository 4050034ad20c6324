// Token-exact prompts from hash_ids: each hash id is a block of exactly B tokens, a prompt is its blocks in order.
import { createRng } from '../../util/rng.js';
import type { Tokenizer } from '../tokenizer.js';

/**
 * Block tokens: single-token words " [a-z]{3,10}" that re-encode to themselves. Byte-level BPE tokenizers (tiktoken's
 * cl100k_base / o200k_base, and Hugging Face BPEs with the same pre-tokenizer) split text before every " word", so a
 * sequence of such tokens can never merge across a token (or block) boundary: the prompt re-tokenizes to exactly its
 * tokens. `verifyPrompt` checks that claim per prompt; the tests check it over a Mooncake slice.
 */
export interface BlockAlphabet {
  tokenizer: string;
  /** Token ids, 2^bits of them. */
  ids: Int32Array;
  /** Their texts, each " word". */
  texts: string[];
  /** The texts' bytes back to back (ASCII): word i is bytes[starts[i], starts[i + 1]). */
  bytes: Uint8Array;
  starts: Uint32Array;
  bits: number;
}

const WORD = /^ [a-z]{3,10}$/;
const alphabets = new Map<string, BlockAlphabet>();

/** The tokenizer's block alphabet (the first 4096 word tokens by id; fewer, a power of two, if it has fewer). Cached per tokenizer. */
export function blockAlphabet(tok: Tokenizer, want = 4096): BlockAlphabet {
  const key = `${tok.name}/${want}`;
  const hit = alphabets.get(key);
  if (hit) return hit;
  const ids: number[] = [];
  const texts: string[] = [];
  let misses = 0;
  for (let id = 0; id < 1_000_000 && ids.length < want && misses < 1000; id++) {
    let s: string;
    try {
      s = tok.decode([id]);
      misses = 0;
    } catch {
      misses++;
      continue;
    }
    if (!WORD.test(s)) continue;
    const back = tok.encode(s);
    if (back.length === 1 && back[0] === id) {
      ids.push(id);
      texts.push(s);
    }
  }
  if (ids.length < 2) throw new Error(`tokenizer ${tok.name} has no single-token words (" word") to build prompt blocks from`);
  const bits = Math.floor(Math.log2(ids.length));
  const n = 2 ** bits;
  const words = texts.slice(0, n);
  const starts = new Uint32Array(n + 1);
  for (let i = 0; i < n; i++) starts[i + 1] = starts[i] + words[i].length;
  const bytes = Buffer.from(words.join(''), 'latin1');
  const a: BlockAlphabet = { tokenizer: tok.name, ids: Int32Array.from(ids.slice(0, n)), texts: words, bytes, starts, bits };
  alphabets.set(key, a);
  return a;
}

/** FNV-1a of a string, 32 bits. */
function fnv(s: string, h = 0x811c9dc5): number {
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** A 32-bit mix of two words (murmur3's finalizer over their combination). */
function mix(a: number, b: number): number {
  let h = (a ^ Math.imul(b, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

export interface PromptSynthOptions {
  tok: Tokenizer;
  /** Tokens per hash id. */
  blockSize: number;
  seed: number;
  /** Names the trace (e.g. its file name): the same ids in another trace give other blocks. */
  traceId: string;
  /** Full blocks kept as text (least recently used dropped); memory stays bounded however many ids a trace has. */
  cachedBlocks?: number;
  /** The tokenizer's block alphabet, when already built (a worker thread gets it from the thread that loaded the tokenizer). */
  alphabet?: BlockAlphabet;
}

/** What a prompt is built from. `index` seeds the fresh tokens past the listed ids. */
export interface PromptShape {
  index: number;
  inputLength: number;
  hashIds?: readonly number[];
}

export interface PromptSynth {
  alphabet: BlockAlphabet;
  /** The prompt text: exactly `inputLength` tokens of the tokenizer. */
  text(r: PromptShape): string;
  /** The token ids the text is made of. */
  tokens(r: PromptShape): number[];
  /** Undefined when the text re-tokenizes to exactly `tokens(r)`, else what differs. */
  verify(r: PromptShape, text?: string): string | undefined;
}

/**
 * Prompts from hash ids. Block h is B alphabet tokens: the first k = ceil(53 / bits) spell h (a safe integer) in base
 * 2^bits, each digit shifted by an offset drawn from (trace, seed), so two ids never share a full block (B >= k); the
 * other B - k are drawn from a generator seeded by (trace, seed, h), so equal ids give equal blocks. A prompt is its
 * blocks in order, the last cut to what `inputLength` leaves; tokens past the listed ids are fresh, seeded by the request.
 */
export function createPromptSynth(o: PromptSynthOptions): PromptSynth {
  const a = o.alphabet ?? blockAlphabet(o.tok);
  const M = 2 ** a.bits;
  const k = Math.ceil(53 / a.bits);
  const B = o.blockSize;
  const traceSeed = mix(fnv(o.traceId), o.seed >>> 0);
  const offRng = createRng(traceSeed);
  const offsets = Array.from({ length: k }, () => offRng.int(0, M - 1));
  const cap = o.cachedBlocks ?? 4096;
  const cache = new Map<number, Uint8Array>();

  /** Alphabet indices of block h's first n tokens. */
  const blockIdx = (h: number, n: number): Uint16Array | Uint32Array => {
    const out = M <= 65536 ? new Uint16Array(n) : new Uint32Array(n);
    let x = h;
    const digits = Math.min(k, n);
    for (let i = 0; i < digits; i++) {
      out[i] = (x % M + offsets[i]) % M;
      x = Math.floor(x / M);
    }
    if (n > k) {
      const rng = createRng(mix(traceSeed ^ (h >>> 0), Math.floor(h / 2 ** 32)));
      for (let i = k; i < n; i++) out[i] = Math.floor(rng.next() * M);
    }
    return out;
  };
  const freshIdx = (index: number, n: number): Uint16Array | Uint32Array => {
    const out = M <= 65536 ? new Uint16Array(n) : new Uint32Array(n);
    const rng = createRng(mix(traceSeed ^ 0x5bd1e995, index));
    for (let i = 0; i < n; i++) out[i] = Math.floor(rng.next() * M);
    return out;
  };
  // Text is built as bytes (the words are ASCII) and decoded once per prompt: string appends per token cost ~10x more.
  const { bytes, starts } = a;
  const toBytes = (idx: ArrayLike<number>): Uint8Array => {
    let len = 0;
    for (let i = 0; i < idx.length; i++) len += starts[idx[i] + 1] - starts[idx[i]];
    const out = new Uint8Array(len);
    let at = 0;
    for (let i = 0; i < idx.length; i++) for (let j = starts[idx[i]], end = starts[idx[i] + 1]; j < end; j++) out[at++] = bytes[j];
    return out;
  };
  const fullBlock = (h: number): Uint8Array => {
    let b = cache.get(h);
    if (b !== undefined) {
      cache.delete(h);
      cache.set(h, b);
      return b;
    }
    b = toBytes(blockIdx(h, B));
    cache.set(h, b);
    if (cache.size > cap) cache.delete(cache.keys().next().value as number);
    return b;
  };
  /** The pieces of a prompt: [hash id or -1 for the fresh tail, token count]. */
  const pieces = (r: PromptShape): [number, number][] => {
    const out: [number, number][] = [];
    let left = r.inputLength;
    for (const h of r.hashIds ?? []) {
      if (left <= 0) break;
      const n = Math.min(B, left);
      out.push([h, n]);
      left -= n;
    }
    if (left > 0) out.push([-1, left]);
    return out;
  };

  const text = (r: PromptShape): string => {
    const parts: Uint8Array[] = [];
    let len = 0;
    for (const [h, n] of pieces(r)) {
      const b = h < 0 ? toBytes(freshIdx(r.index, n)) : n === B ? fullBlock(h) : toBytes(blockIdx(h, n));
      parts.push(b);
      len += b.length;
    }
    return Buffer.concat(parts, len).toString('latin1');
  };
  const tokens = (r: PromptShape): number[] => {
    const out: number[] = [];
    for (const [h, n] of pieces(r)) for (const i of h < 0 ? freshIdx(r.index, n) : blockIdx(h, n)) out.push(a.ids[i]);
    return out;
  };
  const verify = (r: PromptShape, t = text(r)): string | undefined => {
    const got = o.tok.encode(t);
    if (got.length !== r.inputLength) return `re-tokenizes to ${got.length} tokens, not input_length ${r.inputLength}`;
    const want = tokens(r);
    for (let i = 0; i < want.length; i++) if (got[i] !== want[i]) return `token ${i} re-tokenizes as ${got[i]}, not ${want[i]}`;
    return undefined;
  };
  return { alphabet: a, text, tokens, verify };
}
