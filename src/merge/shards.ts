// The shards a merge takes: each directory's run.json read and checked, and the whole set checked to be one run (docs/distributed.md).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { REQUESTS_JSONL, RUN_JSON, requestsFile } from '../report/results-dir.js';
import { PER_SHARD_KEYS } from '../shard/plan.js';
import { MAX_SHARDS } from '../config/shard.js';

export interface ShardDir {
  dir: string;
  run: Record<string, unknown>;
  index: number;
  count: number;
  configHash: string;
  /** Wall time (epoch ms, the shard's own clock) of its run time 0. */
  originUnixMs: number;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** Wall-clock origins a merge accepts: 2000-01-01 to 2200-01-01 (epoch ms); outside it the file is not a real run's. */
const ORIGIN_MIN_MS = Date.UTC(2000, 0, 1);
const ORIGIN_MAX_MS = Date.UTC(2200, 0, 1);

/** Why `file` cannot be read as a regular file (a named pipe would block the read forever), or undefined. */
export function notRegularFile(file: string): string | undefined {
  const s = statSync(file, { throwIfNoEntry: false });
  if (!s) return undefined;
  if (s.isFile()) return undefined;
  const kind = s.isFIFO() ? 'a named pipe' : s.isDirectory() ? 'a directory' : s.isSocket() ? 'a socket' : s.isCharacterDevice() || s.isBlockDevice() ? 'a device' : 'not a regular file';
  return `${file} is ${kind}, not a regular file`;
}

/** One shard's run.json, or the problem with it (named by directory). */
function readShard(dir: string, problems: string[]): ShardDir | undefined {
  const file = join(dir, RUN_JSON);
  if (!existsSync(file)) return void problems.push(`${dir}: no ${RUN_JSON} (is it a tokenflood results directory?)`);
  // Checked before anything is opened: reading a named pipe blocks until a writer comes, i.e. forever.
  const special = notRegularFile(file) ?? notRegularFile(join(dir, REQUESTS_JSONL));
  if (special) return void problems.push(special);
  let run: unknown;
  try {
    run = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    return void problems.push(`${file}: unreadable (${(e as Error).message.slice(0, 120)})`);
  }
  if (!isObject(run)) return void problems.push(`${file}: not a JSON object`);
  try {
    requestsFile(dir);
  } catch (e) {
    return void problems.push((e as UsageError).problems?.[0] ?? String(e));
  }
  const s = run.shard;
  const plan = run.plan;
  const sync = run.start_sync;
  if (!isObject(s) || !Number.isInteger(s.index) || !Number.isInteger(s.count))
    return void problems.push(`${dir}: run.json has no shard (was it run with --shard I/N?)`);
  if ((s.count as number) < 1 || (s.count as number) > MAX_SHARDS || (s.index as number) < 0 || (s.index as number) >= (s.count as number))
    return void problems.push(`${file}: shard: expected index 0 ≤ I < N ≤ ${MAX_SHARDS}, got ${String(s.index)}/${String(s.count)}`);
  if (!isObject(plan) || typeof plan.config_hash !== 'string') return void problems.push(`${dir}: run.json has no plan.config_hash`);
  if (!isObject(sync) || typeof sync.clock_origin_unix_ms !== 'number') return void problems.push(`${dir}: run.json has no start_sync.clock_origin_unix_ms`);
  const origin = sync.clock_origin_unix_ms;
  if (!Number.isFinite(origin) || origin < ORIGIN_MIN_MS || origin > ORIGIN_MAX_MS)
    return void problems.push(`${file}: start_sync.clock_origin_unix_ms: expected epoch milliseconds between 2000 and 2200, got ${String(origin).slice(0, 40)}`);
  return { dir, run, index: s.index as number, count: s.count as number, configHash: plan.config_hash, originUnixMs: sync.clock_origin_unix_ms };
}

/** Config keys whose values differ between two run.json `config`s (the per-shard keys left out). */
export function differingKeys(a: unknown, b: unknown): string[] {
  const ca = isObject(a) ? a : {};
  const cb = isObject(b) ? b : {};
  const skip = new Set<string>(PER_SHARD_KEYS);
  return [...new Set([...Object.keys(ca), ...Object.keys(cb)])].filter((k) => !skip.has(k) && JSON.stringify(ca[k]) !== JSON.stringify(cb[k])).sort();
}

/**
 * Read and check the shards: every directory a sharded run, one config hash, one shard count, each index 0..N−1
 * exactly once. Throws a UsageError (exit 2) listing every problem; returns the shards ordered by index.
 */
export function readShards(dirs: readonly string[]): ShardDir[] {
  const problems: string[] = [];
  if (!dirs.length) throw new UsageError(['merge: give the shards\' results directories']);
  const shards = dirs.map((d) => readShard(d, problems)).filter((s): s is ShardDir => s !== undefined);
  if (problems.length) throw new UsageError(problems.map((p) => `merge: ${p}`));
  const first = shards[0];
  for (const s of shards.slice(1)) {
    if (s.configHash !== first.configHash) {
      const keys = differingKeys(first.run.config, s.run.config);
      problems.push(`${s.dir} is not a shard of the same run as ${first.dir}: config hash ${s.configHash} ≠ ${first.configHash}${keys.length ? ` (differs in ${keys.slice(0, 8).join(', ')})` : ''}`);
    }
    if (s.count !== first.count) problems.push(`${s.dir} is shard ${s.index}/${s.count}, ${first.dir} is of ${first.count} shards: shard counts differ`);
  }
  if (!problems.length) {
    const byIndex = new Map<number, string[]>();
    for (const s of shards) byIndex.set(s.index, [...(byIndex.get(s.index) ?? []), s.dir]);
    for (const [i, ds] of byIndex) if (ds.length > 1) problems.push(`shard ${i}/${first.count} given twice: ${ds.join(', ')}`);
    const missing = Array.from({ length: first.count }, (_, i) => i).filter((i) => !byIndex.has(i));
    if (missing.length) problems.push(`shard${missing.length > 1 ? 's' : ''} ${missing.slice(0, 20).map((i) => `${i}/${first.count}`).join(', ')} missing (a run of ${first.count} shards needs all of them)`);
  }
  if (problems.length) throw new UsageError(problems.map((p) => `merge: ${p}`));
  return shards.sort((a, b) => a.index - b.index);
}
