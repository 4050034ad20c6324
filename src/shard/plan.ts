// What run.json records about a shard: which one, the global plan it is part of (seed, config hash), and its synchronized start.
import { createHash } from 'node:crypto';
import { parseShard, parseStartAt } from '../config/shard.js';
import { workloadSeed } from '../config/workload.js';
import { shardLabel, shardStreams } from '../scheduler/shard.js';

/**
 * Keys of run.json `config` that may differ between the shards of one run: where each writes, how it prints,
 * and the shard itself. Everything else must be equal for `tokenflood merge` to accept the shards.
 */
export const PER_SHARD_KEYS = ['shard', 'start_at', 'out', 'overwrite', 'json', 'quiet', 'outputs', 'metrics_port', 'metrics_host', 'metrics_linger'] as const;

/** JSON with object keys sorted, so equal configs hash equal whatever order their keys were set in. */
function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${stableJson((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

/** sha256 (first 16 hex digits) of run.json `config` without the per-shard keys: the identity of the global plan. */
export function configHash(config: Record<string, unknown>): string {
  const shared = { ...config };
  for (const k of PER_SHARD_KEYS) delete shared[k];
  return createHash('sha256').update(stableJson(shared)).digest('hex').slice(0, 16);
}

/** run.json `shard` and `plan` of a sharded run (nothing for a whole run). */
export function shardMeta(c: { shard?: string; datasetSeed?: number }, configMeta: Record<string, unknown>): Record<string, unknown> {
  if (c.shard === undefined) return {};
  const s = parseShard(c.shard);
  return { shard: { index: s.index, count: s.count, label: shardLabel(s) }, plan: { seed: workloadSeed(c), config_hash: configHash(configMeta) } };
}

/** --start-at as epoch ms, undefined without it. */
export const startAtMs = (c: { startAt?: string }): number | undefined => (c.startAt !== undefined ? parseStartAt(c.startAt) : undefined);

/**
 * The load this process carries: its shard's streams (or in-flight cap) and its share of --rate; the whole load
 * without --shard. At least 1 stream: a replay's default cap of 1 in flight applies to each shard (config validation
 * refuses a closed loop with fewer streams than shards). Sizes the connection pool and the prewarm.
 */
export function localLoad(c: { shard?: string; concurrency?: number; rate?: number }): { concurrency?: number; rate?: number } {
  if (c.shard === undefined) return { concurrency: c.concurrency, rate: c.rate };
  const s = parseShard(c.shard);
  return { concurrency: c.concurrency !== undefined ? Math.max(1, shardStreams(c.concurrency, s)) : undefined, rate: c.rate !== undefined ? c.rate / s.count : undefined };
}
