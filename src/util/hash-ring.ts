// A consistent-hash ring: a key always maps to the same member, and adding a member moves only about 1/N of the keys.

/** FNV-1a, 32 bits: fast, stable across runs and platforms (no seed), good enough to spread ring points. */
export function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  // Final avalanche (murmur3 fmix32): FNV alone leaves similar keys ("g1", "g2") close on the ring.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Points per unit of weight: enough that shares are within a few percent of the weights. */
const POINTS_PER_WEIGHT = 160;

export interface HashRing {
  /** The member index for `key`: the first ring point at or after hash(key), wrapping around. */
  pick(key: string): number;
}

/** A ring over members named `names` (their names place them, so the ring does not depend on list order) with relative `weights`. */
export function createHashRing(names: readonly string[], weights: readonly number[] = names.map(() => 1)): HashRing {
  // Shares first (weights are checked finite, > 0, ≤ MAX_WEIGHT in config, but a library caller may pass anything):
  // each member gets 1..POINTS_PER_WEIGHT × N points, so the ring never exceeds about POINTS_PER_WEIGHT × N² points.
  const max = Math.max(...weights.map((w) => (Number.isFinite(w) && w > 0 ? w : 0)), 0);
  const rel = weights.map((w) => (max > 0 && Number.isFinite(w) && w > 0 ? w / max : max > 0 ? 0 : 1));
  const total = rel.reduce((a, b) => a + b, 0);
  const points: { h: number; m: number }[] = [];
  names.forEach((name, m) => {
    const n = Math.max(1, Math.min(POINTS_PER_WEIGHT * names.length, Math.round((POINTS_PER_WEIGHT * names.length * rel[m]) / total)));
    for (let v = 0; v < n; v++) points.push({ h: fnv1a(`${name}#${v}`), m });
  });
  points.sort((a, b) => a.h - b.h || a.m - b.m);
  const hs = Uint32Array.from(points.map((p) => p.h));
  return {
    pick(key) {
      const h = fnv1a(key);
      let lo = 0;
      let hi = hs.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (hs[mid] < h) lo = mid + 1;
        else hi = mid;
      }
      return points[lo === hs.length ? 0 : lo].m;
    },
  };
}
