// `tokenflood merge`: N shards' results directories → one run directory, aligned on wall-clock time (docs/distributed.md).
import { closeSync, openSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { prepareOutDir } from '../outdir.js';
import { recordLine, roundMs } from '../metrics/jsonl.js';
import type { ClientHealth } from '../metrics/health.js';
import type { Summary } from '../metrics/summary-model.js';
import { eachRecord, replaySummary, REQUESTS_JSONL, RUN_JSON, writeJsonFile } from '../report/results-dir.js';
import { reportHtmlReporter, runJsonReporter, summaryJsonReporter } from '../lifecycle/files.js';
import { replayRunEnd } from '../lifecycle/replay.js';
import { ARTIFACTS, artifactPath } from '../artifacts/registry.js';
import { writeRunReport } from '../report/html/run-report.js';
import { readShards, type ShardDir } from './shards.js';
import { SeenRecords } from './seen.js';

export interface MergeResult {
  outDir: string;
  summary: Summary;
  warnings: string[];
  written: string[];
}

/** A start spread above this means the shards did not start together (a --start-at that passed, a slow pod). */
const START_SPREAD_WARN_MS = 1000;

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * The shards' client health as one: client_bound if any shard was; each percentile the worst shard's (an upper
 * bound of the merged one), counts and dropped sends summed; reasons prefixed with their shard.
 */
export function mergeClientHealth(shards: readonly ShardDir[]): ClientHealth | undefined {
  const hs = shards.map((s) => ({ s, h: s.run.client_health as ClientHealth | undefined })).filter((x): x is { s: ShardDir; h: ClientHealth } => isObject(x.h));
  if (!hs.length) return undefined;
  const worst = (f: (h: ClientHealth) => number) => Math.max(...hs.map(({ h }) => f(h)));
  return {
    event_loop_delay_ms: { p50: worst((h) => h.event_loop_delay_ms.p50), p99: worst((h) => h.event_loop_delay_ms.p99), max: worst((h) => h.event_loop_delay_ms.max) },
    ...(hs.every(({ h }) => h.own_delay_ms) ? { own_delay_ms: { p50: worst((h) => h.own_delay_ms!.p50), p99: worst((h) => h.own_delay_ms!.p99), max: worst((h) => h.own_delay_ms!.max) } } : {}),
    cpu_percent: { one_core: worst((h) => h.cpu_percent.one_core), machine: worst((h) => h.cpu_percent.machine) },
    send_lag_ms: { p50: worst((h) => h.send_lag_ms.p50), p99: worst((h) => h.send_lag_ms.p99), max: worst((h) => h.send_lag_ms.max), count: hs.reduce((a, { h }) => a + h.send_lag_ms.count, 0) },
    dropped: hs.reduce((a, { h }) => a + h.dropped, 0),
    client_bound: hs.some(({ h }) => h.client_bound),
    reasons: hs.flatMap(({ s, h }) => h.reasons.map((r) => `shard ${s.index}/${s.count}: ${r}`)),
  };
}

/**
 * The clock-skew check across shards: each shard measured (server − local) against the same server, so two
 * shards' clocks differ by the difference of their offsets, known to ± the sum of their uncertainties.
 */
export function shardClockSkew(shards: readonly ShardDir[]): { spread_ms: number; uncertainty_ms: number; at_least_ms: number } | null {
  const xs = shards
    .map((s) => (s.run.start_sync as { clock_skew?: { offset_ms?: unknown; uncertainty_ms?: unknown } } | undefined)?.clock_skew)
    .filter((k): k is { offset_ms: number; uncertainty_ms: number } => typeof k?.offset_ms === 'number' && typeof k.uncertainty_ms === 'number');
  if (xs.length < 2) return null;
  const lo = xs.reduce((a, b) => (b.offset_ms < a.offset_ms ? b : a));
  const hi = xs.reduce((a, b) => (b.offset_ms > a.offset_ms ? b : a));
  const spread = hi.offset_ms - lo.offset_ms;
  const u = hi.uncertainty_ms + lo.uncertainty_ms;
  return { spread_ms: roundMs(spread), uncertainty_ms: roundMs(u), at_least_ms: roundMs(Math.max(0, spread - u)) };
}

/** The merged run.json: shard 0's, with the shard fields replaced by `merged` and the shards' clients listed. */
function mergedRunMeta(shards: readonly ShardDir[], baseMs: number, clientHealth: ClientHealth | undefined, outDir: string): Record<string, unknown> {
  const { shard: _shard, start_sync: _sync, client_health: _h, ...head } = shards[0].run;
  const origins = shards.map((s) => s.originUnixMs);
  // The shared config, without shard 0's own shard, start time and directory.
  const { shard: _s, start_at: _a, ...config } = isObject(head.config) ? head.config : {};
  return {
    ...head,
    config: { ...config, out: outDir },
    started_at: new Date(baseMs).toISOString(),
    stopped_reason: shards.find((s) => s.run.stopped_reason !== 'completed')?.run.stopped_reason ?? 'completed',
    client: shards.map((s) => s.run.client),
    ...(clientHealth ? { client_health: clientHealth } : {}),
    merged: {
      shards: shards.length,
      dirs: shards.map((s) => s.dir),
      run_ids: shards.map((s) => s.run.run_id ?? null),
      clock_origin_unix_ms: baseMs,
      offsets_ms: origins.map((o) => o - baseMs),
      start_spread_ms: Math.max(...origins) - Math.min(...origins),
      clock_skew: shardClockSkew(shards),
    },
  };
}

/**
 * Merge shards into `outDir`: every record, its run-clock times (scheduled_at_ms, sent_at_ms) moved onto one clock
 * whose 0 is the earliest shard's start (each shard's own wall clock: run.json start_sync.clock_origin_unix_ms);
 * then summary.json computed from the merged records exactly as `tokenflood report` would, and run.json, summary.json
 * and report.html written by the lifecycle's own reporters, as at the end of a run.
 * Records are streamed shard by shard (memory does not grow with the run); their order does not change the summary.
 */
export async function mergeShards(dirs: readonly string[], outDir: string, o: { overwrite?: boolean } = {}): Promise<MergeResult> {
  const shards = readShards(dirs);
  // Writing into a shard's own directory would overwrite the records being read.
  const inShard = shards.find((s) => resolve(s.dir) === resolve(outDir));
  if (inShard) throw new UsageError([`merge: --out: ${outDir} is shard ${inShard.index}/${inShard.count}'s directory: give a new one`]);
  prepareOutDir(outDir, o.overwrite ?? false);
  const baseMs = Math.min(...shards.map((s) => s.originUnixMs));
  const warnings: string[] = [];
  // A record whose (id, attempt) was merged already is a copy (a file appended twice, a line copied from another
  // shard): the first copy is kept, the others dropped, counted and named, so a request is never counted twice.
  const seen = new SeenRecords();
  const duplicates: number[] = shards.map(() => 0);
  const fd = openSync(artifactPath(outDir, ARTIFACTS.requests), 'w');
  try {
    for (const [k, s] of shards.entries()) {
      const off = s.originUnixMs - baseMs;
      let buf = '';
      const w = eachRecord(artifactPath(s.dir, ARTIFACTS.requests), (r) => {
        if (!seen.add(r.id, r.attempt)) return void duplicates[k]++;
        r.scheduled_at_ms = roundMs(r.scheduled_at_ms + off);
        r.sent_at_ms = roundMs(r.sent_at_ms + off);
        buf += recordLine(r);
        if (buf.length > 1 << 20) (writeSync(fd, buf), (buf = ''));
      });
      if (buf) writeSync(fd, buf);
      warnings.push(...w);
    }
  } finally {
    closeSync(fd);
  }
  const meta = mergedRunMeta(shards, baseMs, mergeClientHealth(shards), outDir);
  const dropped = duplicates.reduce((a, b) => a + b, 0);
  (meta.merged as Record<string, unknown>).duplicate_records_dropped = dropped;
  if (dropped)
    warnings.push(
      `dropped ${dropped} duplicate record${dropped === 1 ? '' : 's'} (the same id and attempt as a record already merged; the first copy kept): ${shards
        .map((s, k) => (duplicates[k] ? `${artifactPath(s.dir, ARTIFACTS.requests)} ${duplicates[k]}` : ''))
        .filter(Boolean)
        .join(', ')}`,
    );
  const m = meta.merged as { start_spread_ms: number; clock_skew: ReturnType<typeof shardClockSkew> };
  if (m.start_spread_ms > START_SPREAD_WARN_MS) warnings.push(`the shards started ${(m.start_spread_ms / 1000).toFixed(1)} s apart (their --start-at had passed, or was not the same): the merged load was lower at the start and end`);
  if (m.clock_skew && m.clock_skew.at_least_ms > 0) warnings.push(`the shards' clocks differ by at least ${m.clock_skew.at_least_ms} ms (Date-header check): times across shards are aligned only that well`);
  // run.json first, as a run writes it at its start: the summary is replayed from the directory.
  writeJsonFile(outDir, ARTIFACTS.run, meta);
  const { summary, warnings: w } = replaySummary(outDir, 'merge');
  warnings.push(...w);
  const files = await replayRunEnd({ meta, summary, outDir }, [runJsonReporter, summaryJsonReporter, reportHtmlReporter]);
  return { outDir, summary, warnings, written: [ARTIFACTS.requests.file, ...files.written] };
}
