// Route policies: round-robin order, weighted shares, least-in-flight, prefix-hash stability, --models shares.
import { describe, it, expect } from 'vitest';
import { createModelPicker, createRouter, ROUTE_POLICIES } from './route-policies.js';
import { createHashRing } from '../util/hash-ring.js';
import { createRng } from '../util/rng.js';

const members = (...w: number[]) => w.map((weight, i) => ({ name: `t${i + 1}`, weight }));
const req = (k = 'x') => ({ prefixKey: k });
const counts = (picks: number[], n: number) => picks.reduce((a, i) => (a[i]++, a), new Array<number>(n).fill(0));

describe('route policies', () => {
  it('round-robin visits the endpoints in list order, ignoring weights', () => {
    const r = createRouter('round-robin', members(5, 1, 1));
    expect(Array.from({ length: 7 }, () => r.pick(req()))).toEqual([0, 1, 2, 0, 1, 2, 0]);
  });

  it('weighted gives each endpoint its share exactly over every full cycle, spread out', () => {
    const r = createRouter('weighted', members(3, 1));
    const picks = Array.from({ length: 400 }, () => r.pick(req()));
    expect(counts(picks, 2)).toEqual([300, 100]);
    // Smooth: the light endpoint never waits more than one cycle (4 picks).
    for (let i = 0; i + 4 <= picks.length; i += 4) expect(picks.slice(i, i + 4)).toContain(1);
  });

  it('random draws in proportion to the weights (within tolerance)', () => {
    const rng = createRng(7);
    const r = createRouter('random', members(7, 3), () => rng.next());
    const c = counts(Array.from({ length: 10_000 }, () => r.pick(req())), 2);
    expect(c[0] / 10_000).toBeGreaterThan(0.67);
    expect(c[0] / 10_000).toBeLessThan(0.73);
  });

  it('least-in-flight picks the endpoint with the fewest requests in flight, ties in turn', () => {
    const r = createRouter('least-in-flight', members(1, 1, 1));
    const a = r.pick(req());
    r.started(a);
    const b = r.pick(req());
    r.started(b);
    const c = r.pick(req());
    r.started(c);
    expect(new Set([a, b, c])).toEqual(new Set([0, 1, 2]));
    r.finished(b);
    expect(r.pick(req())).toBe(b);
    // Weight 2 may hold twice as many in flight.
    const w = createRouter('least-in-flight', members(2, 1));
    const seen = [];
    for (let i = 0; i < 6; i++) {
      const p = w.pick(req());
      w.started(p);
      seen.push(p);
    }
    expect(counts(seen, 2)).toEqual([4, 2]);
  });

  it('prefix-hash sends one prefix to one endpoint every time, and spreads many prefixes over all', () => {
    const r = createRouter('prefix-hash', members(1, 1, 1, 1));
    const first = Array.from({ length: 64 }, (_, g) => r.pick(req(`group:${g}`)));
    for (let round = 0; round < 5; round++) expect(Array.from({ length: 64 }, (_, g) => r.pick(req(`group:${g}`)))).toEqual(first);
    expect(new Set(first).size).toBe(4);
    // A new router over the same members agrees (stable across runs).
    const again = createRouter('prefix-hash', members(1, 1, 1, 1));
    expect(Array.from({ length: 64 }, (_, g) => again.pick(req(`group:${g}`)))).toEqual(first);
  });

  it('the hash ring moves only about 1/N of the keys when a member is added, and honours weights', () => {
    const keys = Array.from({ length: 4000 }, (_, i) => `k${i}`);
    const four = createHashRing(['a', 'b', 'c', 'd']);
    const five = createHashRing(['a', 'b', 'c', 'd', 'e']);
    const moved = keys.filter((k) => four.pick(k) !== five.pick(k)).length / keys.length;
    expect(moved).toBeGreaterThan(0.1);
    expect(moved).toBeLessThan(0.3);
    const ring = createHashRing(['a', 'b'], [3, 1]);
    const heavy = counts(keys.map((k) => ring.pick(k)), 2);
    expect(heavy[0] / keys.length).toBeGreaterThan(0.65);
    expect(heavy[0] / keys.length).toBeLessThan(0.85);
  });

  it('every policy is in the table', () => {
    for (const p of ROUTE_POLICIES) expect(createRouter(p, members(1, 1)).pick(req())).toBeGreaterThanOrEqual(0);
  });
});

describe('--models picker', () => {
  it('gives each model its share within tolerance, the same model per index for a seed', () => {
    const pick = createModelPicker([{ model: 'a', weight: 70 }, { model: 'b', weight: 30 }], 42);
    const got = Array.from({ length: 5000 }, (_, i) => pick(i));
    const a = got.filter((m) => m === 'a').length / got.length;
    expect(a).toBeGreaterThan(0.66);
    expect(a).toBeLessThan(0.74);
    const again = createModelPicker([{ model: 'a', weight: 70 }, { model: 'b', weight: 30 }], 42);
    expect(Array.from({ length: 100 }, (_, i) => again(i))).toEqual(got.slice(0, 100));
  });
});
