// KV offload to host memory: an LRU tier of evicted prefix blocks plus swapped-out preempted requests, with PCIe transfer time.
import type { OffloadSpec } from './features.js';

export interface HostTier {
  readonly blocks: number;
  /** A GPU block holding `hash` was evicted: keep its copy in host memory (dropping the oldest if full). */
  put(hash: number): void;
  /** True (and refreshed) when host memory holds the block with this hash. */
  has(hash: number): boolean;
  /** Reserve room for a preempted request's blocks; false when host memory cannot hold them. */
  swapOut(blocks: number): boolean;
  /** Release a swapped request's reservation (it was swapped back in or aborted). */
  swapIn(blocks: number): void;
  /** Host-to-GPU (or back) transfer time of `bytes`, ms. */
  transferMs(bytes: number): number;
  used(): number;
}

export function createHostTier(o: OffloadSpec): HostTier {
  // Map order is insertion order: re-inserting on a hit makes the first key the least recently used.
  const lru = new Map<number, true>();
  let swapped = 0;
  const evict = (room: number): void => {
    for (const k of lru.keys()) {
      if (lru.size + swapped + room <= o.blocks) return;
      lru.delete(k);
    }
  };
  return {
    blocks: o.blocks,
    put(hash) {
      lru.delete(hash);
      evict(1);
      if (lru.size + swapped < o.blocks) lru.set(hash, true);
    },
    has(hash) {
      if (!lru.has(hash)) return false;
      lru.delete(hash);
      lru.set(hash, true);
      return true;
    },
    swapOut(blocks) {
      if (blocks > o.blocks - swapped) return false;
      evict(blocks);
      swapped += blocks;
      return true;
    },
    swapIn(blocks) {
      swapped = Math.max(0, swapped - blocks);
    },
    transferMs: (bytes) => (bytes / o.bytesPerSec) * 1000,
    used: () => lru.size + swapped,
  };
}
