import { describe, it, expect } from 'vitest';
import { MinHeap } from './min-heap.js';
import { createRng } from './rng.js';

describe('MinHeap', () => {
  it('pops in `before` order, ties in the order the caller numbered them, interleaved with pushes', () => {
    const rng = createRng(5);
    type X = { at: number; seq: number };
    const h = new MinHeap<X>((a, b) => a.at < b.at || (a.at === b.at && a.seq < b.seq));
    const all: X[] = [];
    const out: X[] = [];
    for (let i = 0; i < 500; i++) {
      const x = { at: Math.floor(rng.next() * 50), seq: i };
      all.push(x);
      h.push(x);
      if (i % 3 === 0) out.push(h.pop()!);
    }
    expect(h.peek()).toBeDefined();
    const rest: X[] = [];
    while (h.size) rest.push(h.pop()!);
    expect(h.pop()).toBeUndefined();
    // What is left comes out sorted; everything comes out exactly once.
    const key = (x: X) => x.at * 1e4 + x.seq;
    expect(rest.map(key)).toEqual([...rest].sort((a, b) => key(a) - key(b)).map(key));
    expect([...out, ...rest].map((x) => x.seq).sort((a, b) => a - b)).toEqual(all.map((x) => x.seq));
  });
});
