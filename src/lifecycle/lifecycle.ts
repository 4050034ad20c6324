// The one run lifecycle: workload → driver (clock + backend) → scheduler → aggregator, emitting events to reporters.
import { tagsOf } from '../config/practice.js';
import { cpus, hostname, platform } from 'node:os';
import { rmSync } from 'node:fs';
import { sendConfig, type RunConfig, type SendConfig } from '../config/schema.js';
import type { Tokenizer } from '../dataset/tokenizer.js';
import { climbLadder } from './validate-spec.js';
import type { Once } from '../util/once.js';
import { createTokenCounter } from '../dataset/count-pool.js';
import { createWorkload, type Workload } from '../dataset/workload.js';
import { sendsMedia } from '../dataset/media-plan.js';
import { loadMediaEncoders } from '../dataset/synth-media.js';
import { createRng } from '../util/rng.js';
import { backendOf } from '../backends/registry.js';
import { chooseExecutor, rampPlan } from '../scheduler/scheduler.js';
import { describeLoadStage, LoadControl } from '../scheduler/load-control.js';
import { LiveAggregator } from '../metrics/live.js';
import { SummaryAggregator } from '../metrics/aggregator.js';
import type { RequestRecord } from '../metrics/record.js';
import { ARTIFACTS, artifactPath } from '../artifacts/registry.js';
import { CHART_SAMPLE_MAX, eachRecord, RecordSample } from '../artifacts/records.js';
import { runArtifacts, TIMELINE_CHART_SAMPLES } from '../artifacts/run-artifacts.js';
import { evaluateSlo, GoodRequestCount, parseSlo } from '../metrics/slo.js';
import { checkOutDir, defaultOutDir, prepareOutDir } from '../outdir.js';
import { VERSION } from '../version.js';
import type { Driver, OpenedTarget } from '../drivers/driver.js';
import type { TimelineSample, TimelineSource } from '../telemetry/source.js';
import { WindowTracker } from '../telemetry/window.js';
import { withServerSection } from '../telemetry/server-section.js';
import { withGpuSection, type GpuLine } from '../telemetry/gpu-source.js';
import { Thinner } from '../telemetry/jsonl-lines.js';
import type { ServerSample } from '../telemetry/normalize.js';
import type { Reporter, RunStartEvent } from '../report/events.js';
import { FileLedger, RequestsJsonlReporter, reportHtmlReporter, runJsonReporter, statsCsvReporter, summaryJsonReporter } from './files.js';
import { startSnapshots } from './snapshots.js';
import { vllmResultReporter } from '../report/compat/vllm-result.js';
import { lazyRecords, RunWriteError, type RunHooks, type RunResult } from './result.js';
import { newRunId, prepareFirstWave, sendLoop, type StopReason } from './send.js';
import { beginStartSync, wantsStartSync } from '../shard/start-sync.js';
import { shardMeta, startAtMs } from '../shard/plan.js';
import { UsageError } from '../errors.js';
import { workloadSeed } from '../config/workload.js';
import { SaturationWatch, LIVE_SLICE_S } from './saturation-watch.js';
import { steadySummary, wantsSteadyState } from '../metrics/steady-state.js';

export interface RunSetup {
  config: RunConfig;
  tokenizer: Tokenizer;
  driver: Driver;
  /** run.json `config`: the effective options, secrets redacted. */
  configMeta: Record<string, unknown>;
  /** Every text stored or printed from a server passes this (servers echo credentials in error bodies). */
  redact: (s: string) => string;
  /** Appended to the default results directory's name (simulate: `-simulated`). */
  outDirSuffix?: string;
  /** Timeline sources (server /metrics, GPUs) for this target; run on the real driver only (docs/telemetry.md). */
  sources?: (target: OpenedTarget) => TimelineSource[];
  /** The command's validation ladder, climbed by its first run only (docs/commands/run.md#the-validation-ladder). */
  ladder?: Once<unknown>;
}

export interface LifecycleOptions {
  /** Outputs beyond the run's own files (terminal, --json, a dashboard): called after those, in this order. */
  reporters?: Reporter[];
  /**
   * Reporters whose runEnd must come before report.html is drawn: results files of their own that the page shows
   * (an eval's eval.json), and whatever has to end before those are written. Called after summary.json and stats.csv.
   */
  results?: Reporter[];
  hooks?: RunHooks;
  /** Abort to stop the run: no new requests, in-flight ones are cancelled after the grace period and recorded as such. */
  signal?: AbortSignal;
  /** Replace or wrap the run's workload (eval sets, probe streams); `base` builds the one the config names. */
  workload?: (base: () => Workload, ctx: { tokenizer: Tokenizer; redact: (s: string) => string }) => Workload;
  /**
   * Let reporters change the load during the run (RunStartEvent.control): concurrency of a closed loop, rate of an
   * open loop. Each change starts a stage; records carry `stage`, run.json `load_stages`, the summary `by_stage`.
   */
  liveLoad?: boolean;
}

/** Measured requests and the total the workload builds for: 100 by default unless a duration or a finite workload decides. */
function requestCounts(c: SendConfig): { total: number | undefined; defaultRequests: number | undefined } {
  const defaultRequests = c.duration === undefined ? 100 : undefined;
  const measured = c.requests ?? defaultRequests;
  return { total: measured !== undefined ? measured + c.warmup : undefined, defaultRequests };
}

/**
 * The run's own outputs after requests.jsonl, by kind, in the order they run (run.json first: a run cut short
 * still says what it was); `when` says whether a run writes it. A new built-in output is one row here.
 */
export const BUILT_IN_REPORTERS: Readonly<Record<string, { reporter: Reporter; when?: (c: RunConfig) => boolean }>> = {
  run: { reporter: runJsonReporter },
  summary: { reporter: summaryJsonReporter },
  'stats-csv': { reporter: statsCsvReporter },
  'report-html': { reporter: reportHtmlReporter },
  'vllm-result': { reporter: vllmResultReporter, when: (c) => c.resultFormat === 'vllm' },
};

/**
 * The built-in reporters `c` asks for, in the table's order, with a command's own result files (`results`: eval's)
 * just before report.html, which draws them.
 */
export function builtInReporters(c: RunConfig, results: readonly Reporter[] = []): Reporter[] {
  return Object.entries(BUILT_IN_REPORTERS).flatMap(([kind, b]) => [...(kind === 'report-html' ? results : []), ...(b.when?.(c) ?? true ? [b.reporter] : [])]);
}

/** The hooks of older callers as a reporter (onAggregator is called by the lifecycle itself). */
function hooksReporter(h: RunHooks): Reporter {
  return {
    name: 'hooks',
    runStart: (e) => h.onStart?.({ baseUrl: e.baseUrl, embedded: e.embedded, model: e.model, outDir: e.outDir, total: e.total, workload: e.workload }),
    record: h.onRecord && ((r) => h.onRecord!(r)),
  };
}

/** Run one benchmark on `driver`. Throws UsageError (exit 2) for a bad workload or an unreachable server, before anything is sent. */
export async function runLifecycle(s: RunSetup, opts: LifecycleOptions = {}): Promise<RunResult> {
  const { driver } = s;
  // --warmup auto sends no warmup requests: it trims the transient after the run (docs/metrics.md#steady-state).
  const c = sendConfig(s.config);
  const rng = createRng(workloadSeed(c));
  // Request ids `<run id>-<id>` join records with server logs (docs/output-format.md#request-ids). Without
  // --dataset-seed the run id also salts the prompts, so no earlier run's are in a prefix cache (docs/workloads.md#fresh-prompts).
  const runId = newRunId();
  const wc = c.datasetSeed === undefined ? { ...c, promptSalt: runId } : c;
  const { total, defaultRequests } = requestCounts(c);
  // Two-stage stop: `stopSending` ends the schedule (and wakes workloads waiting on earlier answers);
  // requests still in flight after the grace period are cancelled.
  const stopSending = new AbortController();
  // The workload is built (datasets read and validated) before any server is contacted or any file touched.
  if (sendsMedia(wc)) await loadMediaEncoders();
  const base = (): Workload => createWorkload(wc, s.tokenizer, rng.fork(), total, { signal: stopSending.signal, sleep: (ms, sig) => driver.clock.sleepUntil(driver.clock.now() + ms, sig) });
  const workload: Workload = opts.workload ? opts.workload(base, { tokenizer: s.tokenizer, redact: s.redact }) : base();
  // A multi-turn conversation continues on the process that started it: it cannot be split by request yet.
  if (c.shard !== undefined && workload.schedule)
    throw new UsageError(['--shard: trace sessions (a --replay trace with sessions, or --sessions N) cannot be split over shards: a turn waits for its predecessor on the same process; run them unsharded']);
  if (c.shard !== undefined && Number(workload.describe().conversations ?? 0) > 0)
    throw new UsageError(['--shard: multi-turn datasets cannot be split over shards yet; run them unsharded']);
  const requests = c.requests ?? (workload.size !== undefined && c.duration === undefined ? Math.max(0, workload.size - c.warmup) : defaultRequests);
  const backend = backendOf(c);
  // Ramps and stages (--ramp-up/--ramp-down/--stages) as one stage list, undefined for a constant load.
  const ramp = rampPlan(c);
  const executor = chooseExecutor({ rate: c.rate, arrivalTimesMs: workload.arrivalTimesMs, ramp, dynamic: workload.schedule, users: c.users });
  const sloSpec = c.slo?.trim() ? parseSlo(c.slo) : undefined;
  const counter = createTokenCounter(c.tokenizer);
  try {
    const target = await driver.open(opts.signal);
    // Where requests go is said before the ladder's lines (the caller's reporters; the built-in ones start later).
    for (const r of opts.reporters ?? []) r.targetOpen?.({ baseUrl: target.shownBaseUrl, embedded: target.embedded });
    // The validation ladder before anything else is sent (a failed step throws: exit 4, no results directory); the
    // telemetry sources start later, so server counters and /metrics deltas do not include its requests.
    // A results directory that cannot be used is bad input: exit 2 with nothing sent, not even the ladder. A
    // directory made for a run the ladder then stops is removed again (exit 4 leaves no results directory).
    // An earlier run's files (--overwrite) are emptied only once the ladder has passed.
    const made = c.out !== undefined ? checkOutDir(c.out, c.overwrite) : undefined;
    const validation = await climbLadder(c, driver, s.tokenizer, backend, s.ladder, opts.signal).catch((e: unknown) => {
      if (made) rmSync(made, { recursive: true, force: true });
      throw e;
    });
    const outDir = c.out ?? defaultOutDir(target.shownModel, s.outDirSuffix);
    prepareOutDir(outDir, c.overwrite);
    const meta: Record<string, unknown> = {
      tool: 'tokenflood',
      version: VERSION,
      started_at: new Date().toISOString(),
      ...target.metaHead,
      model: target.shownModel,
      // --tag KEY=VALUE (docs/output-format.md#runjson): compare shows both sides' tags.
      ...(c.tag.length ? { tags: Object.fromEntries(Object.entries(tagsOf(c.tag)).map(([k, v]) => [k, s.redact(v)])) } : {}),
      endpoint: c.endpoint,
      backend,
      executor: executor.describe({ ...c, ramp }),
      stream: c.stream,
      tokenizer: s.tokenizer.name,
      workload: workload.describe(),
      ...target.metaTail,
      client: { node: process.version, platform: platform(), cpus: cpus().length, cpu_model: cpus()[0]?.model ?? null, hostname: hostname() },
      config: s.configMeta,
    };
    meta.run_id = runId;
    if (validation) meta.validation = validation;
    meta.request_id_header = c.requestId ? c.requestIdHeader : null;
    const state: { stoppedReason: StopReason } = { stoppedReason: 'completed' };
    // Before the first startEvent(), which hands it to reporters.
    const knob = executor.liveKnob;
    const control = opts.liveLoad && knob ? new LoadControl(knob, { concurrency: c.concurrency ?? (knob === 'concurrency' ? 1 : undefined), rate: c.rate }, driver.clock.now) : undefined;
    // Nothing more can be recorded, so nothing more is sent, and requests in flight are not waited for.
    let sendingDone = false;
    const jsonl = new RequestsJsonlReporter(outDir, () => {
      // A failure found by the last flush, after every request ended: nothing to stop, but the run did not complete.
      if (sendingDone) {
        if (state.stoppedReason === 'completed') state.stoppedReason = 'write_failed';
        return;
      }
      if (stopSending.signal.aborted) return;
      stop('write_failed');
      driver.cancelAll();
    });
    const reporters: Reporter[] = [jsonl, ...builtInReporters(c, opts.results), ...(opts.hooks ? [hooksReporter(opts.hooks)] : []), ...(opts.reporters ?? [])];
    // run.json first: a run cut short still says what it was.
    runJsonReporter.runStart!(startEvent());
    // Fed each record as it is kept: the summary comes from here, in memory that does not grow with the events.
    const summaryAgg = SummaryAggregator.forConfig(c);
    // The first wave's bodies before the clock starts: while streams are open the measuring thread only measures.
    const notice = (line: string) => process.stderr.write(`tokenflood: ${line}\n`);
    const prepared = prepareFirstWave({ c, driver, model: target.model, workload }, requests);
    // --shard/--start-at (docs/distributed.md): which shard of which plan, the clock-skew check, the synchronized start.
    const sync = wantsStartSync(c) ? await beginStartSync(c, driver.kind === 'real' ? target.baseUrl : undefined, notice, opts.signal) : undefined;
    Object.assign(meta, shardMeta(c, s.configMeta));
    // Sampled beside the requests from before the first one to after the last one (on the virtual clock: the driver's own);
    // what takes time to set up (a scrape worker) is prepared before the clock starts.
    const sources = driver.kind === 'virtual' ? (driver.timelineSources?.() ?? []) : (s.sources?.(target) ?? []);
    await Promise.allSettled(sources.map((src) => src.prepare?.()));
    // The signal also reaches prewarm: Ctrl-C stops a run whose connections are still opening (issue 25 item 17).
    const started = await driver.start(sync ? { sync: true, startAtUnixMs: startAtMs(c), signal: opts.signal } : { signal: opts.signal }).catch(async (e: unknown) => {
      await Promise.allSettled(sources.map((src) => src.stop())); // a prepared scrape worker is not left behind
      throw e;
    });
    const { clock_origin_unix_ms: origin, started_late_ms: late, ...startMeta } = started;
    Object.assign(meta, startMeta);
    if (sync) meta.start_sync = { ...sync, clock_origin_unix_ms: origin ?? Date.now(), started_late_ms: late ?? null };
    const sampleListeners = reporters.filter((r) => r.sample);
    const onSample = sampleListeners.length ? (x: TimelineSample) => sampleListeners.forEach((r) => r.sample!(x)) : undefined;
    const starts = await Promise.allSettled(sources.map((src) => src.start({ now: driver.clock.now, outDir, virtual: driver.kind === 'virtual', notice, onSample })));
    const failedStart = starts.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failedStart) {
      // A source that cannot start (a missing nvidia-smi, no such --server-pid) ends the run before any request; the others stop first.
      await Promise.allSettled(sources.map((src) => src.stop()));
      throw failedStart.reason;
    }
    const sourceFiles: string[] = [];
    const windows = new WindowTracker();
    // What report.html and the --slo verdict need of the records, taken as they are kept: nothing is read back after the run.
    const fold = () => ({ chart: new RecordSample(CHART_SAMPLE_MAX), good: sloSpec && new GoodRequestCount(sloSpec) });
    let folds = fold();
    const agg = new LiveAggregator(driver.clock.now, driver.contentEvents && (() => driver.contentEvents!()), driver.firstTokens && (() => driver.firstTokens!()));
    for (const r of reporters) if (r !== runJsonReporter) r.runStart?.(startEvent());
    opts.hooks?.onAggregator?.(agg);
    const stopSnapshots = startSnapshots(reporters, agg, driver.clock, driver.kind === 'virtual');
    // --stop-on-saturation: the over-saturation test at each slice boundary stops the run as --max-error-rate does.
    const watch = c.stopOnSaturation
      ? new SaturationWatch(c.slice ?? LIVE_SLICE_S, agg, driver.clock, (v) => {
          if (stopSending.signal.aborted) return; // already stopping for another reason: that one stands
          meta.saturation_stop = v;
          stop('saturated');
        })
      : undefined;
    watch?.start(driver.kind === 'virtual');

    let graceStop: AbortController | undefined;
    function stop(reason: StopReason): void {
      if (stopSending.signal.aborted) return;
      state.stoppedReason = reason;
      stopSending.abort();
      control?.close();
      // What the grace period waits for: the end-of-run message says whether any of it had to be cancelled.
      meta.in_flight_at_stop = agg.inFlight;
      graceStop = new AbortController();
      const g = graceStop.signal;
      void driver.clock.sleepUntil(driver.clock.now() + c.gracePeriod * 1000, g).then(() => g.aborted || driver.cancelAll());
    }
    function startEvent(): RunStartEvent {
      return { baseUrl: target.shownBaseUrl, embedded: target.embedded, model: target.shownModel, outDir, total: requests, workload: meta.workload as Record<string, unknown>, meta, virtual: driver.kind === 'virtual', control };
    }
    const onAbort = () => stop('interrupted');
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    if (opts.signal?.aborted) onAbort(); // interrupted during setup
    const others = reporters.filter((r) => r !== jsonl && r.record);
    const onRecord = (rec: RequestRecord): void => {
      // The aggregator sees exactly the records kept on disk, so `tokenflood report` (which replays them) agrees.
      if (jsonl.record(rec)) {
        summaryAgg.add(rec);
        windows.add(rec);
        folds.chart.add(rec);
        folds.good?.add(rec);
      }
      watch?.record(rec);
      for (const r of others) r.record!(rec);
    };

    let outcome: { measuredDone: number; measuredFailed: number } = { measuredDone: 0, measuredFailed: 0 };
    try {
      outcome = await driver.drive(() =>
        sendLoop({ c, driver, workload, executor, ramp, prepared, model: target.model, requests, rng, agg, counter, redact: s.redact, stopSending: stopSending.signal, stop, onRecord, runId, control }),
      );
    } finally {
      sendingDone = true;
      control?.close();
      graceStop?.abort();
      stopSnapshots();
      watch?.stop();
      Object.assign(meta, driver.finish());
      opts.signal?.removeEventListener('abort', onAbort);
      jsonl.close();
      for (const r of await Promise.all(sources.map((src) => src.stop()))) {
        Object.assign(meta, r.meta);
        sourceFiles.push(...(r.files ?? []));
      }
    }
    meta.stopped_reason = state.stoppedReason;
    if (control) meta.load_stages = control.stages.map(describeLoadStage);
    meta.workload = workload.describe(); // final counts (skipped items, conversations cut short)
    if (state.stoppedReason === 'max_error_rate')
      meta.stop_message = `stopped early: more than ${(c.maxErrorRate! * 100).toFixed(1)}% of requests failed (${outcome.measuredFailed} of ${outcome.measuredDone})`;
    if (state.stoppedReason === 'saturated') meta.stop_message = `--stop-on-saturation: ${(meta.saturation_stop as { detail: string }).detail}`;
    if (state.stoppedReason === 'write_failed') meta.stop_message = jsonl.failure!.message;
    // A failed write lost the records of its batch: the summary is then rebuilt from what is on disk, so it still agrees with `report`.
    const kept = jsonl.failure ? SummaryAggregator.forConfig(c) : summaryAgg;
    const keptWindows = jsonl.failure ? new WindowTracker() : windows;
    if (jsonl.failure) {
      folds = fold();
      eachRecord(artifactPath(outDir, ARTIFACTS.requests), (r) => (kept.add(r), keptWindows.add(r), folds.chart.add(r), folds.good?.add(r)));
    }
    // Each timeline file is read once: the summary's section and the report's chart sample from the same pass.
    const serverChart = new Thinner<ServerSample>(TIMELINE_CHART_SAMPLES);
    const gpuChart = new Thinner<GpuLine>(TIMELINE_CHART_SAMPLES);
    // --warmup auto: the records are read back once more, with the transient the rule found marked warmup.
    const base = wantsSteadyState(s.config)
      ? steadySummary(kept, (each) => eachRecord(artifactPath(outDir, ARTIFACTS.requests), each), meta, c.concurrency, c.percentiles)
      : kept.summary(meta, c.concurrency, c.percentiles);
    const summary = withGpuSection(outDir, withServerSection(outDir, base, keptWindows, (x) => serverChart.add(x)), (l) => gpuChart.add(l));
    const timelines = { server: serverChart.result(), gpu: gpuChart.result() };
    const files = new FileLedger(outDir);
    for (const f of sourceFiles) files.wrote(f);
    const slo = sloSpec && folds.good && { text: sloSpec.text, result: evaluateSlo(summary, folds.good, sloSpec) };
    const artifacts = runArtifacts({ outDir, meta, summary, chartSample: { records: folds.chart.records(), total: folds.chart.total }, slo, timelines });
    for (const r of reporters) await r.runEnd?.({ meta, summary, outDir, files, artifacts });
    const result = lazyRecords({ summary, outDir, written: files.written, artifacts });
    if (files.failures.length) throw new RunWriteError(files.failures[0], result, files.failures.map((f) => f.file));
    return result;
  } finally {
    await counter.close();
    await driver.close();
  }
}
