// Min and max of arrays of any length: Math.max(...xs) passes every element as an argument and overflows the stack past ~100k.

/** The largest of `xs`; `empty` when there is none. */
export function maxOf(xs: Iterable<number>, empty = -Infinity): number {
  let m = -Infinity;
  let any = false;
  for (const x of xs) {
    any = true;
    if (x > m || Number.isNaN(x)) m = x;
  }
  return any ? m : empty;
}

/** The smallest of `xs`; `empty` when there is none. */
export function minOf(xs: Iterable<number>, empty = Infinity): number {
  let m = Infinity;
  let any = false;
  for (const x of xs) {
    any = true;
    if (x < m || Number.isNaN(x)) m = x;
  }
  return any ? m : empty;
}
