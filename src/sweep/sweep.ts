// Sweep orchestration: a sequence of run lifecycles (grid or --auto search) on one driver, real or virtual, emitting
// sweep and point events to reporters; sweep.json, sweep.csv and report.html are the sweep's own reporters.
import { makeDirs } from '../outdir.js';
import { join } from 'node:path';
import { redactedConfig, type Reporter, type RunHooks, type RunResult } from '../run.js';
import { warmupRequests, type RunConfigInput } from '../config/schema.js';
import { TokenfloodError, UsageError } from '../errors.js';
import type { UnderLoadPlan } from '../eval/under-load.js';
import type { EvalSummary } from '../eval/summary.js';
import { saveUnderLoadFiles } from '../eval-run/files.js';
import { VERSION } from '../version.js';
import { lengthFlags, type ResolvedSweep } from './config.js';
import { makePoint, pairLabel, rowPairLabel, type InputOutput, type PointSpec } from './grid.js';
import { gridLoads, kneeOf, THEN_GRID_FACTORS, type ThenGrid } from './then-grid.js';
import { failedRow, sweepRow } from './row.js';
import { openRealTarget, virtualTarget } from './targets.js';
import { pointTally } from './point-tally.js';
import { sweepCsvReporter, sweepJsonReporter, sweepReportHtmlReporter } from './files.js';
import { FileLedger } from '../lifecycle/files.js';
import type { BoxStats } from '../report/html/sweep-charts.js';
import { sweepInsights } from './insights.js';
import { sweepWarnings } from '../report/sweep-warnings.js';
import { loadWords, type SweepDoc, type SweepRow } from '../report/sweep-model.js';
import { runAutoPair, type PointOutcome } from './auto-run.js';
import type { AutoRole, AutoSearchReport } from '../report/auto-search-model.js';
import { evaluateSlo } from '../metrics/slo.js';
import { ARTIFACTS, EVAL_BASELINE_DIR, hasArtifact, repeatedRunDir } from '../artifacts/registry.js';
import { abortableSleep } from '../runs/repeat.js';
import { buildRunsDoc } from '../runs/model.js';
import { writeRunsFiles } from '../runs/files.js';
import { mergeRunRows } from './repeat-row.js';

export type { SweepDoc } from '../report/sweep-model.js';

/** The older way to listen to a sweep (kept for callers and tests); a Reporter's sweep events see the same moments. */
export interface SweepHooks {
  onStart?(info: { baseUrl: string; embedded: boolean; outDir: string; points: number | undefined }): void;
  onPointStart?(p: PointSpec, index: number, total: number | undefined): void;
  onPointDone?(row: SweepRow): void;
  /** Hooks of each point's run (progress within a level). */
  run?: RunHooks;
}

export interface SweepResult {
  doc: SweepDoc;
  outDir: string;
  /** --eval-under-load: the accuracy per level (eval.json). */
  eval?: EvalSummary;
}

function defaultSweepDir(simulated: boolean): string {
  const ts = new Date().toISOString().replace(/[:.]/g, '-').replace(/Z$/, '');
  return join('results', `${ts}-sweep${simulated ? '-simulated' : ''}`);
}

/** The hooks of older callers as a reporter on the sweep's events. */
function hooksReporter(h: SweepHooks): Reporter {
  return {
    name: 'sweep hooks',
    sweepStart: (e) => h.onStart?.({ baseUrl: e.baseUrl, embedded: e.embedded, outDir: e.outDir, points: e.points }),
    pointStart: (e) => h.onPointStart?.({ name: e.name, mode: e.mode, load: e.load, inputTokens: e.inputTokens, outputTokens: e.outputTokens }, e.index, e.total),
    pointEnd: (e) => h.onPointDone?.(e.row),
  };
}

/** The run config minus what varies per point (load, lengths, stop condition, directory). */
function sharedConfig(c: Record<string, unknown>): Record<string, unknown> {
  const out = { ...c };
  for (const k of ['concurrency', 'rate', 'requests', 'duration', 'input_tokens', 'output_tokens', 'out', 'overwrite', 'quiet', 'json']) delete out[k];
  return out;
}

/**
 * Run a whole sweep. Throws UsageError (exit 2) for bad config or an unreachable server before the first point.
 * A later point that cannot run ends the sweep: it and the remaining points become failed rows, `failure` says why.
 */
export interface SweepOptions {
  /** Outputs of the sweep (terminal table, --json): they get the sweep's events and every point's run events, after the sweep's own files. */
  reporters?: Reporter[];
  hooks?: SweepHooks;
  signal?: AbortSignal;
  /** Reporters of each point's run only (a live view, live metrics), given the point's unique name. */
  pointReporters?: (name: string) => Reporter[];
  /** --eval-under-load: graded probes inside each level's load (real driver only). */
  underLoad?: UnderLoadPlan;
}

export async function runSweep(resolved: ResolvedSweep, opts: SweepOptions = {}): Promise<SweepResult> {
  const { sweep: s, runFlags, base, engine } = resolved;
  const outDir = s.out ?? defaultSweepDir(engine !== undefined);
  if (hasArtifact(outDir, ARTIFACTS.sweep) && !s.overwrite)
    throw new UsageError([`--out: ${outDir} already holds a sweep; choose another directory or pass --overwrite`]);
  makeDirs(join(outDir, 'points'), '--out');
  const startedAt = new Date().toISOString();
  // Each point is one lifecycle on the chosen driver: real (run() against one server) or virtual (simulate()).
  const target = engine ? virtualTarget(engine) : await openRealTarget(s, runFlags.baseUrl as string | undefined);
  // The levels' boxes for report.html, taken as each point's records arrived (nothing is read back for them).
  const boxes = new Map<string, BoxStats>();
  // --eval-under-load: eval.jsonl and eval.json through the sweep's ledger, before report.html (which shows them).
  let evalSummary: EvalSummary | undefined;
  const underLoadFiles: Reporter = {
    name: 'eval under load',
    sweepEnd: ({ files }) => {
      if (opts.underLoad?.outcomes().length) evalSummary = saveUnderLoadFiles(files, opts.underLoad);
    },
  };
  const own = [sweepJsonReporter, sweepCsvReporter, ...(opts.underLoad ? [underLoadFiles] : []), sweepReportHtmlReporter(boxes)];
  const listeners = [...(opts.hooks ? [hooksReporter(opts.hooks)] : []), ...(opts.reporters ?? [])];
  const emit = <K extends 'sweepStart' | 'pointStart' | 'pointEnd'>(k: K, e: Parameters<NonNullable<Reporter[K]>>[0]) => {
    for (const r of listeners) (r[k] as ((x: typeof e) => void) | undefined)?.call(r, e);
  };
  const rows: SweepRow[] = [];
  const used = new Set<string>();
  const repeats = base.config.runs;
  const cooldownS = base.config.cooldown;
  let model: string | null = null;
  let engineMeta: Record<string, unknown> | null = null;
  let simTimeScale: number | null = null;
  let interrupted = false;
  let failure: string | null = null;
  const autoStop: Record<string, string> = {};
  const autoSearch: Record<string, AutoSearchReport> = {};
  const thenGrid: Record<string, ThenGrid> = {};
  const uniqueName = (p: PointSpec): string => {
    let name = p.name;
    for (let i = 2; used.has(name); i++) name = `${p.name}-${i}`;
    used.add(name);
    return name;
  };
  const markFailed = (p: PointSpec, reason: string, role: AutoRole | null = null): SweepRow => {
    const name = uniqueName(p);
    const row: SweepRow = { ...failedRow({ ...p, name }, join('points', name), reason, s.configuredLengths), auto_role: role };
    rows.push(row);
    emit('pointEnd', { row, outDir: join(outDir, 'points', name) });
    return row;
  };

  /** Run one point; undefined when it could not run (then `failure` says why and its row is marked failed). */
  const runPoint = async (p: PointSpec, index: number, total: number | undefined, role: AutoRole | null = null): Promise<PointOutcome | undefined> => {
    const name = uniqueName(p);
    emit('pointStart', { name, index, total, mode: p.mode, load: p.load, inputTokens: p.inputTokens, outputTokens: p.outputTokens });
    // The open-loop profile's closed-loop probes leave out what shapes open-loop sending only (--arrival, --burstiness).
    const { arrival: _arrival, burstiness: _burstiness, ...closedLoopFlags } = runFlags;
    const flags: RunConfigInput = {
      ...((p.mode === s.mode ? runFlags : closedLoopFlags) as RunConfigInput),
      [p.mode]: p.load,
      requests: p.requests,
      duration: p.durationS,
      ...lengthFlags({ input: p.inputTokens, output: p.outputTokens }),
      overwrite: s.overwrite,
      quiet: true,
      json: false,
    };
    const dir = join('points', name);
    // One run of the point (k of --runs; undefined when run once): its lifecycle, and its row from its own tally.
    const runOnce = async (k: number | undefined): Promise<{ res: RunResult; row: SweepRow; box: BoxStats }> => {
      // Goodput and the level's box, counted from the records as the run's lifecycle emits them.
      const tally = pointTally(s.slo);
      const runDir = k === undefined ? dir : join(dir, repeatedRunDir(k));
      const res = await target.runPoint({ ...flags, out: join(outDir, runDir) }, (c) => ({
        signal: opts.signal,
        hooks: opts.hooks?.run,
        // --eval-under-load: graded probes inside this level's load, labelled by the point's name.
        workload: engine ? undefined : opts.underLoad?.probes(name, warmupRequests(c)),
        reporters: [tally, ...(opts.reporters ?? []), ...(opts.pointReporters?.(name) ?? [])],
      }));
      const row: SweepRow = {
        ...sweepRow({ ...p, name }, runDir, res.summary, tally.goodput, {
          slo: s.slo,
          configured: s.configuredLengths,
          clientBound: res.summary.client?.client_bound ?? false,
          maxErrorRate: s.maxErrorRate,
        }),
        auto_role: role,
      };
      return { res, row, box: tally.box(p.load) };
    };
    // sweep --runs N (docs/commands/sweep.md#repeated-runs): the point N times, a cool-down between (none on the
    // virtual clock), each run in points/<name>/run-K/, their aggregate in points/<name>/runs.json.
    const made: Awaited<ReturnType<typeof runOnce>>[] = [];
    let res: RunResult;
    try {
      if (repeats === 1) made.push(await runOnce(undefined));
      else
        for (let k = 1; k <= repeats; k++) {
          if (k > 1 && (opts.signal?.aborted || made[k - 2].res.summary.run.stopped_reason === 'interrupted')) break;
          if (k > 1 && !engine) await abortableSleep(cooldownS * 1000, opts.signal);
          if (opts.signal?.aborted && k > 1) break;
          made.push(await runOnce(k));
        }
    } catch (e) {
      // A later run of a repeated point that could not run: the point keeps its finished runs, the sweep ends after it.
      if (made.length > 0) failure = `${loadWords(p.mode, p.load)} (${name}) run ${made.length + 1} could not run: ${(e as Error).message}`;
      else {
        // Before any point ran, an unreachable server or bad config is the user's to fix (exit 2, nothing written).
        // Later, the finished points are worth keeping: this point and the rest are marked failed.
        if (rows.length === 0) throw e;
        failure = `${loadWords(p.mode, p.load)} (${name}) could not run: ${(e as Error).message}`;
        used.delete(name);
        markFailed(p, (e as Error).message, role);
        return undefined;
      }
    }
    res = made[made.length - 1].res;
    model ??= (res.summary.run.model as string | undefined) ?? null;
    engineMeta ??= (res.summary.run.engine as Record<string, unknown> | undefined) ?? null;
    if (typeof res.summary.run.sim_time_scale === 'number') simTimeScale ??= res.summary.run.sim_time_scale;
    boxes.set(dir, made[0].box);
    let row = made[0].row;
    if (repeats > 1) {
      const doc = buildRunsDoc({ startedAt: made[0].res.summary.run.started_at as string, requested: repeats, interrupted: opts.signal?.aborted ?? false, cooldownS: engine ? 0 : cooldownS, datasetSeed: base.config.datasetSeed, embedded: target.embedded, runs: made.map((m, i) => ({ dir: repeatedRunDir(i + 1), summary: m.res.summary })) });
      const files = writeRunsFiles(join(outDir, dir), doc);
      if (files.failures.length) throw files.failures[0];
      // The rows of the runs that completed (all of them when none did): an interrupted run measured something else.
      const complete = made.filter((m) => m.res.summary.run.stopped_reason === 'completed');
      row = { ...mergeRunRows((complete.length ? complete : made).map((m) => m.row), dir, s.maxErrorRate), auto_role: role };
    }
    rows.push(row);
    emit('pointEnd', { row, outDir: join(outDir, dir), summary: res.summary, written: res.written });
    // The run-level checks read the summary only: no records needed for the actual values an --auto --slo search reports.
    return { row, checks: evaluateSlo(res.summary, [], s.slo).checks };
  };
  const acceptable = (r: SweepRow) => r.ok > 0 && r.error_rate <= s.maxErrorRate && (r.slo_passed ?? true);

  try {
    emit('sweepStart', { baseUrl: target.shown, embedded: target.embedded, simulated: target.simulated, outDir, points: s.auto ? undefined : s.points.length });
    if (!s.auto) {
      for (const [i, p] of s.points.entries()) {
        if (opts.signal?.aborted) break;
        if (failure !== null) markFailed(p, `not run: ${failure}`);
        else await runPoint(p, i, s.points.length);
      }
    } else {
      let index = 0;
      for (const io of s.pairs) {
        const r = await runAutoPair({
          s,
          io: io as InputOutput,
          run: (p, role) => runPoint(p, index++, undefined, role),
          stopped: () => opts.signal?.aborted === true || failure !== null,
          acceptable,
        });
        if (r.search) autoSearch[pairLabel(io)] = r.search;
        autoStop[pairLabel(io)] = r.reason ?? (failure !== null ? `search ended early: ${failure}` : 'interrupted before the search finished');
        // --then-grid: the grid around the knee this pair's search found, in the same sweep (docs/commands/sweep.md).
        if (s.thenGrid && r.reason !== null && failure === null && !opts.signal?.aborted) {
          const mine = rows.filter((x) => x.mode === s.mode && rowPairLabel(x) === pairLabel(io));
          const k = kneeOf(mine, r.search, acceptable);
          const loads = k.knee === null ? [] : gridLoads(k.knee, s.mode, s.mode === 'concurrency' ? s.maxConcurrency : Infinity);
          const reused = loads.filter((l) => mine.some((x) => x.load === l));
          thenGrid[pairLabel(io)] = { ...k, factors: THEN_GRID_FACTORS, loads, reused };
          for (const load of loads) {
            if (reused.includes(load)) continue;
            if (opts.signal?.aborted || failure !== null) break;
            await runPoint(makePoint(s.mode, { load, requests: s.requests?.[0], durationS: s.duration?.[0] }, io as InputOutput), index++, undefined, 'grid');
          }
        }
      }
    }
    const idle = opts.underLoad && rows.some((r) => r.ok > 0) && !opts.signal?.aborted ? target.resolve(runFlags) : undefined;
    if (idle && opts.underLoad) {
      const { runIdleBaseline } = await import('../eval-run/baseline.js');
      await runIdleBaseline(idle, opts.underLoad, join(outDir, EVAL_BASELINE_DIR), opts.signal);
    }
  } catch (e) {
    // Stopped during a point's preflight: the points done so far are the sweep.
    if (!(e instanceof TokenfloodError && e.code === 'E_INTERRUPTED')) throw e;
  } finally {
    await target.close();
  }
  interrupted = opts.signal?.aborted ?? false;
  // The open-loop profile's closed-loop probes come first in their pair, and stay out of the insights over its rates.
  const probe = (r: SweepRow) => (r.mode === s.mode ? 1 : 0);
  rows.sort((a, b) => a.input_tokens - b.input_tokens || a.output_tokens - b.output_tokens || probe(a) - probe(b) || a.load - b.load);
  const doc: SweepDoc = {
    schema_version: 1,
    kind: 'sweep',
    tool: 'tokenflood',
    version: VERSION,
    started_at: startedAt,
    finished_at: new Date().toISOString(),
    target_url: target.shown,
    embedded_server: target.embedded,
    ...(target.simulated ? { simulated: true as const, engine: engineMeta } : {}),
    model,
    mode: s.mode,
    auto: s.auto,
    auto_stop: s.auto ? autoStop : null,
    auto_search: Object.keys(autoSearch).length ? autoSearch : null,
    ...(s.thenGrid ? { then_grid: thenGrid } : {}),
    slo: s.slo?.text ?? null,
    max_error_rate: s.maxErrorRate,
    config: sharedConfig(redactedConfig(base.config, base.headers)),
    interrupted,
    failure,
    sim_time_scale: simTimeScale,
    configured_lengths: s.configuredLengths,
    warnings: [],
    points: rows,
    insights: sweepInsights(rows.filter((r) => r.mode === s.mode), { hasSlo: !!s.slo, maxErrorRate: s.maxErrorRate, incomplete: interrupted ? 'interrupted' : failure !== null ? 'failed' : undefined }),
  };
  doc.warnings = sweepWarnings(doc);
  // The sweep's own files first, whole or not at all (a failed write ends the sweep with that error); then the caller's outputs.
  const files = new FileLedger(outDir);
  for (const r of own) await r.sweepEnd!({ doc, outDir, files });
  if (files.failures.length) throw files.failures[0];
  for (const r of listeners) await r.sweepEnd?.({ doc, outDir, files, ...(evalSummary ? { eval: evalSummary } : {}) });
  return { doc, outDir, ...(evalSummary ? { eval: evalSummary } : {}) };
}

