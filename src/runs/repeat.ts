// `run --runs N`: the one run lifecycle N times with a cool-down between, each run in DIR/run-K/, the aggregate in DIR/runs.json.
import { join } from 'node:path';
import { run, type Reporter, type RunResult } from '../run.js';
import type { ResolvedRun } from '../config/load.js';
import { openTarget, type Target } from '../target.js';
import { ARTIFACTS, hasArtifact, repeatedRunDir, RUN_MARKERS } from '../artifacts/registry.js';
import { defaultOutDir, makeDirs } from '../outdir.js';
import { TokenfloodError, UsageError } from '../errors.js';
import { buildRunsDoc, type RunsDoc } from './model.js';
import { writeRunsFiles } from './files.js';
import type { FileLedger } from '../lifecycle/files.js';

export interface RepeatOptions {
  /** Abort to stop: the run in progress winds down as a single run would, no further run starts, a cool-down ends at once. */
  signal?: AbortSignal;
  /** The reporters of run k (1-based): start lines, live view, a per-run line. */
  reporters?: (k: number, outDir: string) => Reporter[];
  /** Told before each cool-down. */
  onCooldown?: (afterRun: number, seconds: number) => void;
  /** The cool-down's wait (tests pass a recording one); resolves early when `signal` aborts. */
  sleep?: (ms: number, signal: AbortSignal | undefined) => Promise<void>;
}

export interface RepeatResult {
  doc: RunsDoc;
  outDir: string;
  results: RunResult[];
  /** runs.json and runs.txt: written, or the failure. */
  files: FileLedger;
  /** A run after the first that could not run (the server went away): the finished runs are kept, this says why. */
  failure: string | null;
}

/** A wait of `ms` that ends early, without throwing, when `signal` aborts. */
export function abortableSleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted || ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** The results directory of a repeated run: --out, else results/<timestamp>-<--model>-runs (the server's model is not known before the first run), or results/<timestamp>-runs. */
export const repeatedOutDir = (c: ResolvedRun['config']): string => c.out ?? (c.model ? defaultOutDir(c.model, '-runs') : defaultOutDir('runs'));

/** Refuse a directory that already holds a repeated run (or any run-K run) unless --overwrite, before anything is sent. */
function checkOutDir(dir: string, runs: number, overwrite: boolean): void {
  if (overwrite) return;
  const taken = [dir, ...Array.from({ length: runs }, (_, i) => join(dir, repeatedRunDir(i + 1)))].find((d) => hasArtifact(d, ARTIFACTS.runs) || RUN_MARKERS.some((a) => hasArtifact(d, a)));
  if (taken) throw new UsageError([`--out: ${taken} already holds a run; choose another directory or pass --overwrite`]);
}

/**
 * Run the config `runs` times. The embedded simulated server (no --base-url) is started once for all runs, so the
 * engine is warm after the first; its prefix cache carries over, which fresh prompts (no --dataset-seed) make moot.
 * A bad config or unreachable server before the first run throws as a single run does (exit 2, nothing sent).
 */
export async function runRepeated(resolved: ResolvedRun, opts: RepeatOptions = {}): Promise<RepeatResult> {
  const c = resolved.config;
  const outDir = repeatedOutDir(c);
  checkOutDir(outDir, c.runs, c.overwrite);
  const startedAt = new Date().toISOString();
  const sleep = opts.sleep ?? abortableSleep;
  const wantsEmbedded = c.baseUrl === undefined && !resolved.targets?.length;
  let embedded: Target | undefined;
  const made: { dir: string; result: RunResult }[] = [];
  let failure: string | null = null;
  try {
    // Started here, once: a --sim-* problem is the same UsageError a single run gives, before anything is written.
    if (wantsEmbedded) embedded = await openTarget(undefined, c.tokenizer, c);
    makeDirs(outDir, '--out');
    for (let k = 1; k <= c.runs; k++) {
      if (opts.signal?.aborted) break;
      if (k > 1 && c.cooldown > 0) {
        opts.onCooldown?.(k - 1, c.cooldown);
        await sleep(c.cooldown * 1000, opts.signal);
        if (opts.signal?.aborted) break;
      }
      const dir = repeatedRunDir(k);
      const runOut = join(outDir, dir);
      try {
        const result = await run({ ...resolved, config: { ...c, out: runOut } }, { signal: opts.signal, reporters: opts.reporters?.(k, runOut), embedded });
        made.push({ dir, result });
        if (result.summary.run.stopped_reason === 'interrupted') break;
      } catch (e) {
        // Ctrl-C during a run's preflight: nothing of that run was sent; the finished runs are the result.
        if (e instanceof TokenfloodError && e.code === 'E_INTERRUPTED') break;
        // The first run's problem (bad workload, unreachable server) is the user's to fix: exit 2 as a single run.
        if (k === 1) throw e;
        failure = `${dir} could not run: ${(e as Error).message}`;
        break;
      }
    }
  } finally {
    await embedded?.close();
  }
  const doc = buildRunsDoc({
    startedAt,
    requested: c.runs,
    interrupted: opts.signal?.aborted ?? false,
    cooldownS: c.cooldown,
    datasetSeed: c.datasetSeed,
    embedded: wantsEmbedded,
    runs: made.map((m) => ({ dir: m.dir, summary: m.result.summary })),
    failure,
  });
  return { doc, outDir, results: made.map((m) => m.result), files: writeRunsFiles(outDir, doc), failure };
}
