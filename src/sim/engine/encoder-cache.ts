// The encoder cache: encoder outputs by media hash, so a repeated image or clip is not re-encoded (vLLM v1's
// encoder cache shared across requests). Bounded in encoder output tokens, least recently used evicted first.

export interface EngineMedia {
  /** Content hash (the client's MediaPart.hash, or a digest of the bytes the server received). */
  hash: string;
  /** Encoder output tokens the item occupies in the cache. */
  tokens: number;
  /** FLOPs to encode it. */
  flops: number;
  /** Where its placeholder tokens sit in the prompt: [offset, offset + span); an item inside the prefix-cache hit is not encoded. */
  offset?: number;
  span?: number;
}

export interface EncoderCache {
  /** Items of one request looked up; the FLOPs of the misses (which are then cached). */
  charge(media: readonly EngineMedia[], cachedPrefixTokens?: number): { flops: number; hits: number; misses: number };
  readonly capacityTokens: number;
  usedTokens(): number;
}

export function createEncoderCache(capacityTokens: number): EncoderCache {
  const entries = new Map<string, number>();
  let used = 0;
  return {
    capacityTokens,
    usedTokens: () => used,
    charge(media, cachedPrefixTokens = 0) {
      let flops = 0;
      let hits = 0;
      let misses = 0;
      for (const m of media) {
        // vLLM schedules no encoder input for an item whose placeholders the prefix cache already holds.
        if (m.offset !== undefined && m.span !== undefined && m.offset + m.span <= cachedPrefixTokens) {
          hits++;
          continue;
        }
        const have = entries.get(m.hash);
        if (have !== undefined) {
          hits++;
          entries.delete(m.hash);
          entries.set(m.hash, have);
          continue;
        }
        misses++;
        flops += m.flops;
        if (m.tokens > capacityTokens) continue;
        while (used + m.tokens > capacityTokens) {
          const [oldest, t] = entries.entries().next().value as [string, number];
          entries.delete(oldest);
          used -= t;
        }
        entries.set(m.hash, m.tokens);
        used += m.tokens;
      }
      return { flops, hits, misses };
    },
  };
}
