// Chained block hashes for the prefix cache: hash(block i) mixes hash(block i-1) and the block's tokens.

/** One 32-bit murmur3-style mixing round. */
function mix32(h: number, k: number): number {
  k = Math.imul(k, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Two independent 32-bit lanes folded into one 53-bit safe integer. */
function chain(parent: number, values: ArrayLike<number>, from: number, to: number): number {
  let a = (parent % 0x100000000) | 0;
  let b = Math.floor(parent / 0x100000000) ^ 0x5bd1e995;
  for (let i = from; i < to; i++) {
    a = mix32(a, values[i]);
    b = mix32(b, values[i] ^ 0x9e3779b9);
  }
  return (fmix32(b) & 0x1fffff) * 0x100000000 + fmix32(a);
}

/** Hashes of every full block of `tokenIds` (a trailing partial block is never cached). */
export function blockHashesFromIds(tokenIds: ArrayLike<number>, blockSize: number): number[] {
  const out: number[] = [];
  let parent = 0;
  for (let end = blockSize; end <= tokenIds.length; end += blockSize) {
    parent = chain(parent, tokenIds, end - blockSize, end);
    out.push(parent);
  }
  return out;
}

function stringCode(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * Hashes for a prompt known only by length: blocks inside the shared prefix `prefixKey` (first `prefixTokens`
 * tokens) hash the same for every request with that key; the rest are unique to `uniqueKey`.
 */
export function syntheticBlockHashes(
  promptTokens: number,
  blockSize: number,
  uniqueKey: number,
  prefix?: { key: string; tokens: number },
): number[] {
  const out: number[] = [];
  const shared = prefix ? Math.min(prefix.tokens, promptTokens) : 0;
  const prefixCode = prefix ? stringCode(prefix.key) : 0;
  let parent = 0;
  for (let i = 0; (i + 1) * blockSize <= promptTokens; i++) {
    const inPrefix = (i + 1) * blockSize <= shared;
    parent = chain(parent, inPrefix ? [prefixCode, i] : [uniqueKey | 0, i, 0x7fffffff], 0, inPrefix ? 2 : 3);
    out.push(parent);
  }
  return out;
}
