// --shard I/N and --start-at: one run split over N processes (Kubernetes Indexed Jobs) that start together (docs/distributed.md).
import { Option, type Command } from 'commander';
import { z } from 'zod';
import { flagTable } from '../util/flags.js';
import { parsedString } from '../util/parsed-string.js';
import type { ShardSpec } from '../scheduler/options.js';

/** Most shards of one run: far above any cluster one test needs, low enough to catch a typo. */
export const MAX_SHARDS = 10_000;

/** "I/N" → 0-based shard I of N; throws with what was wrong. */
export function parseShard(v: string): ShardSpec {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(v);
  if (!m) throw new Error(`expected I/N with a 0-based index I below the count N, e.g. 0/3, got "${v.slice(0, 40)}"`);
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1 || count > MAX_SHARDS) throw new Error(`expected a shard count N from 1 to ${MAX_SHARDS}, got ${count}`);
  if (index >= count) throw new Error(`shard index ${index} is not below the count ${count} (indexes are 0-based: 0/${count} to ${count - 1}/${count})`);
  return { index, count };
}

/** An ISO 8601 time with a zone (2026-12-01T18:00:00Z) or epoch milliseconds → epoch ms; throws with what was wrong. */
export function parseStartAt(v: string): number {
  const s = v.trim();
  if (/^\d{10,16}$/.test(s)) return Number(s);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i.test(s))
    throw new Error(`expected an ISO 8601 time with its zone (e.g. 2026-12-01T18:00:00Z) or epoch milliseconds, got "${s.slice(0, 40)}"`);
  const ms = Date.parse(s);
  if (Number.isNaN(ms)) throw new Error(`"${s.slice(0, 40)}" is not a valid time`);
  return ms;
}

export const ShardSchema = z.object({
  shard: parsedString(parseShard),
  startAt: parsedString(parseStartAt),
});

export const SHARD_FLAGS = flagTable(ShardSchema.shape, {
  shard: {
    arg: 'I/N',
    help: 'run shard I (0-based) of N of the same run: closed loop streams i, i+N, …; open loop and replay the arrivals (lines) whose index ≡ I mod N; records carry shard; merge the N results directories with tokenflood merge',
    defaultText: 'JOB_COMPLETION_INDEX/TOKENFLOOD_SHARDS when both are set, else no sharding',
  },
  startAt: { arg: 'time', help: 'wait until this wall-clock time (ISO 8601 with zone, or epoch ms) before the run clock starts, so shards start together; a past time starts at once with a warning' },
});

/**
 * --shard from the environment of a Kubernetes Indexed Job: JOB_COMPLETION_INDEX (0-based, set by Kubernetes)
 * and TOKENFLOOD_SHARDS (the count, set by the manifest). Only when TOKENFLOOD_SHARDS is set: an Indexed Job
 * that is not a tokenflood shard also has JOB_COMPLETION_INDEX.
 */
export function shardFromEnv(env: NodeJS.ProcessEnv): { shard?: string; problem?: string } {
  const n = env.TOKENFLOOD_SHARDS;
  if (n === undefined || n === '') return {};
  const i = env.JOB_COMPLETION_INDEX;
  if (i === undefined || i === '') return { problem: 'TOKENFLOOD_SHARDS: is set but JOB_COMPLETION_INDEX is not: give --shard I/N' };
  const shard = `${i}/${n}`;
  try {
    parseShard(shard);
  } catch (e) {
    return { problem: `JOB_COMPLETION_INDEX/TOKENFLOOD_SHARDS: ${(e as Error).message}` };
  }
  return { shard };
}

/** What a sharded run cannot split (yet): live load changes, VU ramps, cache A/B, and a stream count below N. */
export function shardProblems(c: { shard?: string; ui: boolean; cacheAb: boolean; concurrency?: number; rate?: number; rampUp?: number; rampDown?: number; stages?: string }): string[] {
  if (c.shard === undefined) return [];
  const s = parseShard(c.shard);
  const out: string[] = [];
  if (c.ui) out.push('--shard: --ui changes the load live in one process and cannot be split; drop --ui');
  if (c.cacheAb) out.push('--shard: --cache-ab sends each prompt twice in one process and cannot be split; drop --shard');
  if (c.rate === undefined && (c.rampUp !== undefined || c.rampDown !== undefined || (c.stages !== undefined && !c.stages.includes('/s'))))
    out.push('--shard: VU ramps and stages cannot be split yet; use --rate (open-loop ramps split by arrival) or run unsharded');
  if (c.concurrency !== undefined && c.concurrency < s.count)
    out.push(`--shard: --concurrency ${c.concurrency} leaves shards without a stream (shard i takes streams i, i+${s.count}, …): use at most ${c.concurrency} shards`);
  return out;
}

/** Commands that take the run flags but do not shard: only `run` splits a run over processes. */
export type UnshardedCommand = 'sweep' | 'simulate' | 'eval';

const NO_SHARDS: Record<UnshardedCommand, string> = {
  sweep: 'its points run one after another, so N sweep processes would drift apart point by point',
  simulate: 'it predicts the whole run on a virtual clock in one process, with no client load to split',
  eval: 'a run shard would grade only its share of the set: split the set itself with eval --shard I/N',
};

/**
 * --shard and --start-at (from flags or a config file) or the shard of a Kubernetes Indexed Job (TOKENFLOOD_SHARDS)
 * given to a command other than run: one problem each, saying to use tokenflood run --shard.
 */
export function unshardedProblems(command: UnshardedCommand, v: { shard?: unknown; startAt?: unknown }, env: NodeJS.ProcessEnv): string[] {
  const why = `${command} does not shard (${NO_SHARDS[command]})`;
  const out: string[] = [];
  if (v.shard !== undefined) out.push(`--shard: ${why}: use tokenflood run --shard I/N (docs/distributed.md)`);
  else if (env.TOKENFLOOD_SHARDS !== undefined && env.TOKENFLOOD_SHARDS !== '')
    out.push(`TOKENFLOOD_SHARDS: is set, as in a shard of tokenflood k8s manifest, but ${why}: unset it, or use tokenflood run --shard I/N (docs/distributed.md)`);
  if (v.startAt !== undefined) out.push(`--start-at: ${command} does not shard, so it has no shards to start together: drop it, or use tokenflood run --shard I/N --start-at TIME (docs/distributed.md)`);
  return out;
}

/** `table` less --shard and --start-at: the run flags of a command that does not shard. */
export function withoutShardFlags<T extends Record<string, unknown>>(table: T): T {
  return Object.fromEntries(Object.entries(table).filter(([k]) => !(k in SHARD_FLAGS))) as T;
}

/** --shard and --start-at on a command that refuses them: accepted by the parser (for unshardedProblems' message), not in its help. */
export function addRefusedShardFlags(cmd: Command): void {
  for (const f of Object.values(SHARD_FLAGS)) {
    const opt = new Option(f.flag, f.help).hideHelp();
    opt.attributeName = () => f.key;
    cmd.addOption(opt);
  }
}
