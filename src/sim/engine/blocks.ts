// KV block pool with a prefix cache: ref-counted blocks, an LRU free list, and a hash → block map.

export interface BlockPool {
  readonly numBlocks: number;
  /** Blocks with no owner (including cached ones that may still be reused). */
  freeCount(): number;
  /** Take the least recently freed block, evicting its cached hash; -1 if none. */
  allocate(): number;
  /** Cached block holding `hash`, if any. */
  lookup(hash: number): number;
  /** Add an owner to a block (removing it from the free list if it had none). */
  touch(block: number): void;
  /** Drop one owner from each block, last block first, so a request's tail is evicted before its head. */
  release(blocks: readonly number[]): void;
  /** Remember that `block` holds the tokens hashing to `hash` (first writer wins). */
  register(block: number, hash: number): void;
}

/** `onEvict` hears the hash of every cached block an allocation evicts (the KV offload tier keeps a copy). */
export function createBlockPool(numBlocks: number, onEvict?: (hash: number) => void): BlockPool {
  const prev = new Int32Array(numBlocks).fill(-1);
  const next = new Int32Array(numBlocks).fill(-1);
  const refs = new Int32Array(numBlocks);
  const hashOf = new Float64Array(numBlocks).fill(-1);
  const cache = new Map<number, number>();
  let head = -1;
  let tail = -1;
  let free = 0;

  const unlink = (b: number): void => {
    if (prev[b] >= 0) next[prev[b]] = next[b];
    else head = next[b];
    if (next[b] >= 0) prev[next[b]] = prev[b];
    else tail = prev[b];
    prev[b] = next[b] = -1;
    free--;
  };
  const append = (b: number): void => {
    prev[b] = tail;
    next[b] = -1;
    if (tail >= 0) next[tail] = b;
    else head = b;
    tail = b;
    free++;
  };
  for (let b = 0; b < numBlocks; b++) append(b);

  return {
    numBlocks,
    freeCount: () => free,
    allocate() {
      const b = head;
      if (b < 0) return -1;
      unlink(b);
      if (hashOf[b] >= 0) {
        if (cache.get(hashOf[b]) === b) {
          cache.delete(hashOf[b]);
          onEvict?.(hashOf[b]);
        }
        hashOf[b] = -1;
      }
      refs[b] = 1;
      return b;
    },
    lookup: (hash) => cache.get(hash) ?? -1,
    touch(b) {
      if (refs[b] === 0) unlink(b);
      refs[b]++;
    },
    release(blocks) {
      for (let i = blocks.length - 1; i >= 0; i--) {
        const b = blocks[i];
        if (--refs[b] === 0) append(b);
      }
    },
    register(b, hash) {
      if (hashOf[b] >= 0 || cache.has(hash)) return;
      hashOf[b] = hash;
      cache.set(hash, b);
    },
  };
}
