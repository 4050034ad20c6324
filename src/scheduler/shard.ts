// One shard's part of a run split over N processes (--shard I/N): which streams and which request indexes are its own.

import type { ShardSpec } from './options.js';

export type { ShardSpec };

/** "I/N" as stored in records and run.json. */
export const shardLabel = (s: ShardSpec): string => `${s.index}/${s.count}`;

/**
 * Streams (closed-loop VUs, or an open loop's in-flight cap) of shard i when the run has `total`:
 * shard i takes streams i, i+N, i+2N, … of 0..total−1, so it has ⌊(total − 1 − i) / N⌋ + 1 of them (0 when i ≥ total).
 */
export function shardStreams(total: number, s: ShardSpec): number {
  return s.index >= total ? 0 : Math.floor((total - 1 - s.index) / s.count) + 1;
}

/** The global request index of the shard's k-th request (0-based): i + k·N. */
export const globalIndex = (k: number, s: ShardSpec): number => s.index + k * s.count;

/** Whether the request of global index j (in the single-machine plan) is this shard's: j ≡ i (mod N). */
export const ownsIndex = (j: number, s: ShardSpec): boolean => j % s.count === s.index;

/** How many of the global indexes [from, to) are the shard's. */
export function ownedIn(from: number, to: number, s: ShardSpec): number {
  const upTo = (n: number) => (n <= s.index ? 0 : Math.floor((n - 1 - s.index) / s.count) + 1);
  return Math.max(0, upTo(to) - upTo(from));
}
