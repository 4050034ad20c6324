// --dataset-order by-user: the items of each user in file order, users interleaved round-robin.

/**
 * Reorder `items` so that one user's items keep their file order and users take turns: A1 B1 C1 A2 B2 A3 …, users in
 * order of first appearance. Items without a user each count as a user of their own, so they are spread as well.
 */
export function byUserOrder<T>(items: readonly T[], userOf: (x: T) => string | undefined): T[] {
  const queues = new Map<string, T[]>();
  items.forEach((x, i) => {
    const k = userOf(x) ?? `\u0000${i}`;
    let q = queues.get(k);
    if (!q) queues.set(k, (q = []));
    q.push(x);
  });
  const out: T[] = [];
  const lists = [...queues.values()];
  for (let round = 0; out.length < items.length; round++) for (const q of lists) if (round < q.length) out.push(q[round]);
  return out;
}
