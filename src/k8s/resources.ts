// Resource requests of one shard's pod, sized from the bench's per-stream figures (docs/performance.md).

/** Start-up plus one request: about 91 MB peak RSS (docs/performance.md, "Where start-up memory and CPU go"), rounded up. */
export const BASE_MEMORY_MIB = 160;

/**
 * Per open stream: the bench's RSS growth per stream is 55–193 KB (an upper bound: it includes V8's young
 * generation growing under load; the heap itself is 11–24 KB per stream). 256 KiB per stream leaves headroom.
 */
export const MEMORY_KIB_PER_STREAM = 256;

/**
 * Streams one shard reads within the timing-error figures of the bench (docs/performance.md#sizing-shards): at
 * 50 tokens/s per stream, 512 streams (≈ 25,000 token events/s) kept the per-event timing error p99 under 8 ms on
 * a 2-core machine shared with the emitter; above that it grows fast (28 ms at 1,000).
 */
export const STREAMS_PER_SHARD_MAX = 512;

/** requests (and a memory limit of twice the request) for a shard with `streams` streams. */
export function shardResources(streams: number): { requests: { cpu: string; memory: string }; limits: { memory: string } } {
  const mib = Math.ceil(BASE_MEMORY_MIB + (streams * MEMORY_KIB_PER_STREAM) / 1024);
  // The measuring thread is one core; a second one for GC, token counting and the record writer.
  const cpu = streams > 64 ? '2' : '1';
  return { requests: { cpu, memory: `${mib}Mi` }, limits: { memory: `${mib * 2}Mi` } };
}
