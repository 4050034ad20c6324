import { describe, it, expect } from 'vitest';
import { cacheCeiling } from './ceiling.js';

describe('the cache ceiling', () => {
  it('counts the served prefix of each request in arrival order, overall and per turn (hand-computed, B = 4)', () => {
    // In file order r3 comes before r1 and r2, but arrives after them.
    const requests = [
      { index: 0, atMs: 0, inputLength: 10, hashIds: [1, 2, 3], turn: 0 }, // nothing seen yet: 0
      { index: 1, atMs: 9, inputLength: 6, hashIds: [1, 5], turn: 1 }, // last: 1 (4) + 5 (covers 6 - 4 = 2): 6
      { index: 2, atMs: 5, inputLength: 8, hashIds: [1, 2], turn: 1 }, // second: 4 + 4 = 8
      { index: 3, atMs: 7, inputLength: 9, hashIds: [1, 5, 3], turn: 0 }, // third: 1 (4), 5 misses and ends the hit (3 was seen, not counted): 4
      { index: 4, atMs: 8, inputLength: 50, turn: 0 }, // no hash_ids: left out
    ];
    const c = cacheCeiling(requests, 4);
    expect(c).toEqual({
      requests: 4,
      prompt_tokens: 33,
      cached_tokens: 18,
      ratio: 18 / 33,
      block_size: 4,
      without_hash_ids: 1,
      by_turn: [
        { turn: 0, requests: 2, prompt_tokens: 19, cached_tokens: 4, ratio: 4 / 19 },
        { turn: 1, requests: 2, prompt_tokens: 14, cached_tokens: 14, ratio: 1 },
      ],
    });
  });

  it('keeps a request with no recorded time (a delay-only turn) after its predecessor in the file', () => {
    const c = cacheCeiling(
      [
        { index: 0, atMs: 100, inputLength: 4, hashIds: [1], turn: 0 },
        { index: 1, inputLength: 8, hashIds: [1, 2], turn: 1 }, // last (at 100, after index 0): 1 and 2 both seen, 8
        { index: 2, atMs: 50, inputLength: 8, hashIds: [2, 3], turn: 0 }, // first in time: nothing seen, 0
      ],
      4,
    );
    // Taken as time 0 instead, index 1 would go first (0), then index 2 (block 2: 4) and index 0 (4): turn 0 would get 8.
    expect(c.cached_tokens).toBe(8);
    expect(c.by_turn.map((t) => t.cached_tokens)).toEqual([0, 8]);
  });

  it('is null-ratio on nothing, and never counts a block twice within one request', () => {
    expect(cacheCeiling([], 16)).toMatchObject({ requests: 0, ratio: null, by_turn: [] });
    // A repeated id inside one request is not served from that same request (it is cached only after it).
    expect(cacheCeiling([{ index: 0, atMs: 0, inputLength: 8, hashIds: [7, 7], turn: 0 }], 4).cached_tokens).toBe(0);
  });

  it('serves an id seen only as a partial last block up to the tokens it covered, and ends the hit there', () => {
    const c = cacheCeiling(
      [
        { index: 0, atMs: 0, inputLength: 6, hashIds: [1, 2], turn: 0 }, // block 2 is partial: 2 of its 4 tokens
        { index: 1, atMs: 1, inputLength: 12, hashIds: [1, 2, 3], turn: 1 }, // 1 (4) + 2 (2 of 4 cached), then the hit ends: 6
        { index: 2, atMs: 2, inputLength: 12, hashIds: [1, 2, 3], turn: 2 }, // all three now cached in full: 12
      ],
      4,
    );
    expect(c.by_turn.map((t) => t.cached_tokens)).toEqual([0, 6, 12]);
  });
});
