// The shard split: streams and request indexes of N shards cover the single-machine plan exactly once.
import { describe, expect, it } from 'vitest';
import { globalIndex, ownedIn, ownsIndex, shardStreams } from './shard.js';

describe('shard split', () => {
  it('splits C streams over N shards without overlap or gap', () => {
    for (const [total, count] of [[1, 1], [7, 3], [3, 3], [2, 3], [100, 7]] as const) {
      const streams = Array.from({ length: count }, (_, index) => shardStreams(total, { index, count }));
      expect(streams.reduce((a, b) => a + b, 0)).toBe(total);
      expect(Math.max(...streams) - Math.min(...streams)).toBeLessThanOrEqual(1);
    }
  });

  it('gives every request index to exactly one shard', () => {
    const count = 3;
    const seen: number[] = [];
    for (let index = 0; index < count; index++) for (let k = 0; globalIndex(k, { index, count }) < 20; k++) seen.push(globalIndex(k, { index, count }));
    expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, j) => j));
    for (let j = 0; j < 20; j++) expect([0, 1, 2].filter((index) => ownsIndex(j, { index, count }))).toEqual([j % 3]);
  });

  it('counts owned indexes in a range', () => {
    for (let index = 0; index < 4; index++)
      for (const [from, to] of [[0, 0], [0, 1], [0, 10], [3, 11], [5, 6]] as const) {
        let n = 0;
        for (let j = from; j < to; j++) if (ownsIndex(j, { index, count: 4 })) n++;
        expect(ownedIn(from, to, { index, count: 4 })).toBe(n);
      }
  });
});
