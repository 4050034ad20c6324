// A prefix cache shared by several engines (`serve --replicas N --shared-prefix-cache`), as a distributed KV store
// such as Mooncake or LMCache gives: a prompt block one replica computed is a hit on every other, fetched over the network.
import { z } from 'zod';

export const sharedPrefixOptionsShape = {
  sharedPrefixCache: z.boolean().default(false).describe('with --replicas N: one prefix cache shared by the replicas (a distributed KV store such as Mooncake or LMCache): a prompt block computed on one is a hit on the others, fetched at --shared-cache-gbps (docs/sim.md#shared-prefix-cache)'),
  sharedCacheGiB: z.number().gt(0).max(1_048_576).default(256).describe('capacity of the shared KV store, GiB of whole-model KV (least recently used blocks are dropped)'),
  sharedCacheGBps: z.number().gt(0).default(25).describe('bandwidth from the shared KV store to each GPU, GB/s (25 = one 200 Gb/s RDMA NIC per GPU)'),
  sharedCacheLatencyMs: z.number().min(0).default(0.5).describe('fixed cost of one fetch from the shared KV store (lookup and RDMA setup), ms per request that hits it'),
};

export interface SharedPrefixStore {
  /** A prompt block (chained hash) was computed on some replica: it is now in the store (LRU, dropping the oldest if full). */
  put(hash: number): void;
  /** True (and refreshed) when the store holds the block. */
  has(hash: number): boolean;
  /**
   * Time to fetch `bytes` per GPU in `fetches` requests: fetches · latency + bytes / bandwidth (ms), serialized with the
   * step that admits them (as the offload copies are).
   */
  transferMs(bytes: number, fetches: number): number;
  readonly capacityBlocks: number;
  size(): number;
}

export interface SharedPrefixOptions {
  /** Blocks the store holds: GiB · 2^30 / (whole-model KV bytes per token · block size). */
  capacityBlocks: number;
  bytesPerSec: number;
  latencyMs: number;
}

/** Capacity in blocks of a `gib` store for blocks of `blockBytes` whole-model bytes. */
export function sharedCapacityBlocks(gib: number, blockBytes: number): number {
  return Math.max(1, Math.floor((gib * 1024 ** 3) / blockBytes));
}

export function createSharedPrefixStore(o: SharedPrefixOptions): SharedPrefixStore {
  // Map order is insertion order: re-inserting on a hit makes the first key the least recently used.
  const lru = new Map<number, true>();
  return {
    capacityBlocks: o.capacityBlocks,
    put(hash) {
      lru.delete(hash);
      if (lru.size >= o.capacityBlocks) lru.delete(lru.keys().next().value!);
      lru.set(hash, true);
    },
    has(hash) {
      if (!lru.has(hash)) return false;
      lru.delete(hash);
      lru.set(hash, true);
      return true;
    },
    transferMs: (bytes, fetches) => fetches * o.latencyMs + (bytes / o.bytesPerSec) * 1000,
    size: () => lru.size,
  };
}
