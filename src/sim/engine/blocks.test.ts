// KV block pool (LRU, prefix cache) and chained block hashes.
import { describe, expect, it } from 'vitest';
import { createBlockPool } from './blocks.js';
import { blockHashesFromIds, syntheticBlockHashes } from './hash.js';

describe('block pool', () => {
  it('keeps freed blocks reusable until they are evicted, least recently freed first', () => {
    const pool = createBlockPool(3);
    const a = pool.allocate();
    const b = pool.allocate();
    pool.register(a, 111);
    pool.register(b, 222);
    pool.release([a, b]); // b is freed first, so b is evicted first
    expect(pool.freeCount()).toBe(3);
    expect(pool.lookup(111)).toBe(a);
    pool.allocate(); // the never-used block
    pool.allocate(); // evicts b
    expect(pool.lookup(222)).toBe(-1);
    expect(pool.lookup(111)).toBe(a);
    pool.touch(a);
    expect(pool.freeCount()).toBe(0);
    expect(pool.allocate()).toBe(-1);
  });
});

describe('block hashes', () => {
  it('chain: equal prefixes hash equal, a change alters every later block', () => {
    const x = blockHashesFromIds([1, 2, 3, 4, 5, 6, 7], 2);
    const y = blockHashesFromIds([1, 2, 3, 9, 5, 6], 2);
    expect(x).toHaveLength(3);
    expect(y[0]).toBe(x[0]);
    expect(y[1]).not.toBe(x[1]);
    expect(y[2]).not.toBe(x[2]);
  });

  it('synthetic prompts share only the declared prefix', () => {
    const a = syntheticBlockHashes(64, 16, 1, { key: 'sys', tokens: 32 });
    const b = syntheticBlockHashes(64, 16, 2, { key: 'sys', tokens: 32 });
    expect(a.slice(0, 2)).toEqual(b.slice(0, 2));
    expect(a[2]).not.toBe(b[2]);
  });
});
