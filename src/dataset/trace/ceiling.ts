// The cache ceiling: the prompt tokens an unlimited prefix cache could serve, from hash_ids in arrival order.

/** What the ceiling needs of a request. */
export interface CeilingRequest {
  atMs?: number;
  index: number;
  inputLength: number;
  hashIds?: readonly number[];
  turn: number;
}

export interface CeilingPart {
  requests: number;
  /** Prompt tokens of these requests (with hash_ids). */
  prompt_tokens: number;
  /** Of them, the tokens an unlimited cache serves. */
  cached_tokens: number;
  /** cached_tokens / prompt_tokens; null with no prompt tokens. */
  ratio: number | null;
}

export interface CacheCeiling extends CeilingPart {
  block_size: number;
  /** Requests without hash_ids, left out of the ceiling. */
  without_hash_ids: number;
  /** By turn index (0-based), in turn order. */
  by_turn: (CeilingPart & { turn: number })[];
}

const part = (): CeilingPart => ({ requests: 0, prompt_tokens: 0, cached_tokens: 0, ratio: null });

/**
 * Requests are taken in arrival order (recorded time, then file order; one without a time right after its predecessor in the file). Request r's block i covers
 * c_i = min(B, input_length - i*B) tokens; it is served when its id was in some earlier request and every block before
 * it in r was served in full (a prefix cache: the first miss ends the hit). A block is served up to the tokens of it
 * cached so far: an id seen before only as a request's partial last block (k < c_i tokens) serves k tokens and ends the
 * hit. cached(r) = sum of the served tokens; ratio = sum cached / sum input_length over requests with hash_ids. Every
 * block of r is cached after r (unlimited, no eviction).
 */
export function cacheCeiling(requests: readonly CeilingRequest[], blockSize: number): CacheCeiling {
  // A request with no recorded time (a Mooncake turn given only its delay) keeps its place after the one before it in the file.
  const byIndex = [...requests].sort((a, b) => a.index - b.index);
  const at = new Map<CeilingRequest, number>();
  let last = -Infinity;
  for (const r of byIndex) at.set(r, (last = r.atMs ?? last));
  const ordered = byIndex.sort((a, b) => (at.get(a) as number) - (at.get(b) as number) || a.index - b.index);
  const count = createCeilingCounter(blockSize);
  const all = part();
  const turns = new Map<number, CeilingPart>();
  let without = 0;
  for (const r of ordered) {
    if (!r.hashIds) {
      without++;
      continue;
    }
    const cached = count(r);
    let t = turns.get(r.turn);
    if (!t) turns.set(r.turn, (t = part()));
    for (const p of [all, t]) {
      p.requests++;
      p.prompt_tokens += r.inputLength;
      p.cached_tokens += cached;
    }
  }
  const done = <T extends CeilingPart>(p: T): T => ({ ...p, ratio: p.prompt_tokens ? p.cached_tokens / p.prompt_tokens : null });
  return {
    ...done(all),
    block_size: blockSize,
    without_hash_ids: without,
    by_turn: [...turns.entries()].sort((a, b) => a[0] - b[0]).map(([turn, p]) => ({ turn, ...done(p) })),
  };
}

/**
 * The ceiling one request at a time, for a replay that sends in arrival order: the tokens of `r` an unlimited prefix
 * cache serves given every request counted before it (0 without hash_ids). The set of ids seen grows with the trace's distinct ids.
 */
export function createCeilingCounter(blockSize: number): (r: { inputLength: number; hashIds?: readonly number[] }) => number {
  // Per id, the most tokens of its block any request so far covered (a partial last block covers fewer than B).
  const seen = new Map<number, number>();
  return (r) => {
    if (!r.hashIds) return 0;
    let cached = 0;
    let hit = true;
    for (let i = 0; i < r.hashIds.length; i++) {
      const h = r.hashIds[i];
      const covers = Math.max(0, Math.min(blockSize, r.inputLength - i * blockSize));
      const have = seen.get(h);
      if (hit && have !== undefined) {
        cached += Math.min(covers, have);
        if (have < covers) hit = false;
      } else hit = false;
      if (have === undefined || covers > have) seen.set(h, covers);
    }
    return cached;
  };
}
