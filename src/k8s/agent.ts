// What runs inside the pods of `k8s manifest`: the shard agent (barrier, then `tokenflood run`, then serve the results) and the merge pod's gatherer.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { barrier, getJson, peerUrl, startCoordServer, type ShardState } from './barrier.js';
import { ARTIFACTS, hasArtifact } from '../artifacts/registry.js';
import { packagePath } from '../package-root.js';

/** The bundled CLI (scripts/bundle.mjs), as `tokenflood` runs it. */
const MAIN_JS = packagePath('dist', 'bin', 'tokenflood.js');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Until `p` settles or `ms` pass, whichever first; the timer is cleared, so it does not keep the process alive. */
async function within(p: Promise<unknown>, ms: number): Promise<void> {
  let t: NodeJS.Timeout | undefined;
  await Promise.race([p, new Promise((r) => (t = setTimeout(r, ms)))]);
  clearTimeout(t);
}

export interface ShardAgentOptions {
  index: number;
  count: number;
  /** Peers' base URL with {i}. */
  peers: string;
  listenHost: string;
  port: number;
  /** The shard's results directory (the run's --out). */
  dir: string;
  marginMs: number;
  barrierTimeoutMs: number;
  /** How long a finished shard keeps serving its status and files when no gatherer says it has them. */
  lingerMs: number;
  /** `run …` and its flags (without --start-at and --out, which the agent adds). */
  runArgs: string[];
}

/** `tokenflood run` as a child process (the measuring thread stays free of the agent's server); SIGTERM is passed on. */
function runChild(args: string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN_JS, ...args], { stdio: 'inherit' });
    const pass = (sig: NodeJS.Signals) => () => child.kill(sig);
    const onTerm = pass('SIGTERM');
    const onInt = pass('SIGINT');
    process.on('SIGTERM', onTerm).on('SIGINT', onInt);
    child.on('exit', (code, signal) => {
      process.off('SIGTERM', onTerm).off('SIGINT', onInt);
      resolve(code ?? (signal === 'SIGTERM' ? 143 : signal === 'SIGINT' ? 130 : 1));
    });
  });
}

/** The shard pod's command: barrier, run, then serve status and results until gathered. Returns the exit code. */
export async function runShardAgent(o: ShardAgentOptions, log: (line: string) => void): Promise<number> {
  const coord = await startCoordServer(o.listenHost, o.port, o.dir);
  try {
    let start: number;
    try {
      start = await barrier(coord, { index: o.index, count: o.count, peers: o.peers, marginMs: o.marginMs, timeoutMs: o.barrierTimeoutMs });
    } catch (e) {
      const message = (e as Error).message;
      log(`tokenflood: shard ${o.index}/${o.count}: ${message}`);
      coord.setState({ state: 'failed', exit_code: 1, message });
      await within(coord.collected, Math.min(o.lingerMs, 30_000));
      return 1;
    }
    log(`tokenflood: shard ${o.index}/${o.count}: all ${o.count} shards ready; starting at ${new Date(start).toISOString()}`);
    coord.setState({ state: 'running' });
    const code = await runChild([...o.runArgs, '--start-at', new Date(start).toISOString(), '--out', o.dir]);
    // A run that wrote its summary is a result to merge (exit 1 may be a failed --fail-on); without one it failed.
    const state: ShardState = hasArtifact(o.dir, ARTIFACTS.summary) ? { state: 'done', exit_code: code } : { state: 'failed', exit_code: code, message: `tokenflood run exited ${code} without a summary.json` };
    coord.setState(state);
    await within(coord.collected, o.lingerMs);
    return code;
  } finally {
    await coord.close();
  }
}

export interface GatherOptions {
  count: number;
  peers: string;
  /** Where shard i's results are (shared volume) or go (copied): `to/shard-i`. */
  to: string;
  /** Copy each shard's files over HTTP (per-shard volumes); otherwise they are on the shared volume already. */
  copy: boolean;
  timeoutMs: number;
  /** A shard that answered once and then stops answering for this long has died (OOM-killed, evicted). */
  lostAfterMs: number;
  pollMs?: number;
}

/**
 * The merge pod's first step: wait until every shard has finished, collect (or find) its results, and fail with a
 * message naming each shard that failed, died or never answered instead of waiting forever.
 */
export async function gather(o: GatherOptions, log: (line: string) => void): Promise<void> {
  const poll = o.pollMs ?? 2000;
  const deadline = Date.now() + o.timeoutMs;
  const seen = new Map<number, number>(); // shard → last time it answered
  const finished = new Map<number, string | null>(); // shard → failure message, or null when collected
  const label = (i: number) => `shard ${i}/${o.count}`;
  while (finished.size < o.count) {
    for (let i = 0; i < o.count; i++) {
      if (finished.has(i)) continue;
      const base = peerUrl(o.peers, i);
      const r = await getJson(`${base}/status`);
      const st = r?.status === 200 ? (r.body as ShardState) : undefined;
      if (!st) {
        const last = seen.get(i);
        if (last !== undefined && Date.now() - last > o.lostAfterMs) finished.set(i, `${label(i)} stopped answering ${Math.round((Date.now() - last) / 1000)} s ago while running (its pod failed: OOM-killed or evicted?)`);
        continue;
      }
      seen.set(i, Date.now());
      if (st.state === 'failed') {
        finished.set(i, `${label(i)} failed (exit ${st.exit_code}): ${String(st.message ?? '').slice(0, 300)}`);
        await fetch(`${base}/collected`, { method: 'POST', signal: AbortSignal.timeout(2000) }).catch(() => undefined);
      } else if (st.state === 'done') {
        const dir = join(o.to, `shard-${i}`);
        try {
          if (o.copy) await copyFiles(base, dir);
          if (!hasArtifact(dir, ARTIFACTS.summary)) throw new Error(`no summary.json in ${dir}`);
          finished.set(i, null);
          log(`gathered ${label(i)} into ${dir}`);
        } catch (e) {
          finished.set(i, `${label(i)} finished but its results could not be collected: ${(e as Error).message.slice(0, 300)}`);
        }
        await fetch(`${base}/collected`, { method: 'POST', signal: AbortSignal.timeout(2000) }).catch(() => undefined);
      }
    }
    if (finished.size === o.count) break;
    if (Date.now() > deadline) {
      for (let i = 0; i < o.count; i++) if (!finished.has(i)) finished.set(i, `${label(i)} ${seen.has(i) ? 'still running' : 'never answered'} after ${Math.round(o.timeoutMs / 1000)} s`);
      break;
    }
    await sleep(poll);
  }
  const failures = [...finished.entries()].filter(([, m]) => m !== null).sort((a, b) => a[0] - b[0]).map(([, m]) => m!);
  if (failures.length) throw new Error(`not merging: ${failures.join('; ')} (kubectl logs for the shard pods says more)`);
}

/** GET /files, then each file into `dir`. */
async function copyFiles(base: string, dir: string): Promise<void> {
  const list = await getJson(`${base}/files`);
  if (list?.status !== 200 || !list.body || typeof list.body !== 'object') throw new Error(`${base}/files did not answer`);
  mkdirSync(dir, { recursive: true });
  for (const name of Object.keys(list.body as Record<string, number>)) {
    if (!/^[A-Za-z0-9_][A-Za-z0-9._-]*$/.test(name)) continue;
    const r = await fetch(`${base}/files/${encodeURIComponent(name)}`);
    if (r.status !== 200 || !r.body) throw new Error(`${base}/files/${name}: HTTP ${r.status}`);
    await pipeline(Readable.fromWeb(r.body as import('node:stream/web').ReadableStream), createWriteStream(join(dir, name)));
  }
}
