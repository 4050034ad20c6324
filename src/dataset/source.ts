// The order dataset items are handed out in: once (each exactly once, one shared queue) or reuse (cycle / seeded random).
import type { Rng } from '../util/rng.js';

export interface ItemSource {
  /** Index of the next item, or undefined when a once-mode source has run out. */
  take(): number | undefined;
}

/** Fisher-Yates shuffle of 0..n-1 with the seeded generator. */
export function shuffled(n: number, rng: Rng): number[] {
  const a = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

export function createSource(n: number, mode: 'reuse' | 'once', order: 'sequential' | 'random', rng: Rng): ItemSource {
  let cursor = 0;
  if (mode === 'once') {
    const seq = order === 'random' ? shuffled(n, rng) : null;
    return { take: () => (cursor < n ? (seq ? seq[cursor++] : cursor++) : undefined) };
  }
  if (order === 'random') return { take: () => rng.int(0, n - 1) };
  return { take: () => cursor++ % n };
}
