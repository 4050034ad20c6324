// The (id, attempt) pairs a merge has already written: a duplicated record is found in O(1) with a bit per id.

/**
 * A set of (id, attempt) pairs. Ids of one run are the global plan's indexes 0, 1, 2, … (dense), so each attempt
 * number keeps a growable bitset over ids: 10 million records cost about 1.25 MB, not a Set's hundreds. Ids that
 * are not small non-negative integers (a hand-edited file) fall back to a Set of strings.
 */
export class SeenRecords {
  private readonly bits = new Map<number, Uint32Array>();
  private readonly other = new Set<string>();

  /** Adds the pair; false when it was already there. */
  add(id: number, attempt: number): boolean {
    if (!Number.isInteger(id) || id < 0 || id >= 2 ** 31 || !Number.isInteger(attempt) || attempt < 0 || attempt > 1000) {
      const k = `${id}:${attempt}`;
      if (this.other.has(k)) return false;
      this.other.add(k);
      return true;
    }
    let b = this.bits.get(attempt);
    const word = id >>> 5;
    if (!b || word >= b.length) {
      const grown = new Uint32Array(Math.max(word + 1, (b?.length ?? 0) * 2, 1024));
      if (b) grown.set(b);
      this.bits.set(attempt, (b = grown));
    }
    const mask = 1 << (id & 31);
    if (b[word] & mask) return false;
    b[word] |= mask;
    return true;
  }
}
