// Orchestration: config → target → workload → scheduler → records → summary → reporters.
import { defaultOutDir, prepareOutDir } from './outdir.js';
import { snakeKeys } from './util/snake.js';
import { writeFileAtomic } from './util/atomic-write.js';
import { join } from 'node:path';
import { cpus, hostname, platform } from 'node:os';
import { Agent } from 'undici';
import { proxyAgent, proxyForRun, redactProxyUrl } from './backends/proxy.js';
import { resolveRunConfig, type ResolvedRun } from './config/load.js';
import type { RunConfig, RunConfigInput } from './config/schema.js';
import { redactHeaders, redactKey } from './config/parse.js';
import { createRedactor, redactFields, secretValues } from './util/redact.js';
import { joinUrl, redactUrl } from './util/url.js';
import { TokenfloodError, UsageError, WriteError } from './errors.js';
import { loadTokenizer, type Tokenizer } from './dataset/tokenizer.js';
import { createTokenCounter, type TokenCounter } from './dataset/count-pool.js';
import { createRng } from './util/rng.js';
import { createWorkload, type Workload } from './dataset/workload.js';
import { BACKENDS, backendOf } from './backends/registry.js';
import type { ExecuteResult } from './backends/execute.js';
import { inProcessSender, resolveTransport, type RequestSender } from './backends/sender.js';
import { senderPool } from './backends/sender-pool.js';
import { prewarmCount, warmPath, PREWARM_MAX_CONNECTING } from './backends/prewarm.js';
import { availableParallelism } from 'node:os';
import { chooseExecutor, type Slot } from './scheduler/scheduler.js';
import type { RequestSpec } from './dataset/types.js';
import { toRecord } from './metrics/derive.js';
import { normalizeRaw, RecordWriter } from './metrics/jsonl.js';
import { LiveAggregator } from './metrics/live.js';
import type { Summary } from './metrics/summary.js';
import { SummaryAggregator } from './metrics/aggregator.js';
import { readRecordsSorted, REQUESTS_JSONL, RUN_JSON, SUMMARY_JSON, writeJsonFile } from './report/results-dir.js';
import type { RequestRecord } from './metrics/record.js';
import { openTarget, preflight } from './target.js';
import { writeRunReport } from './report/html/run-report.js';
import { startHealthMonitor } from './metrics/health.js';
import { VERSION } from './version.js';

export interface RunHooks {
  /** Called once the target is known, before the first request. */
  onStart?(info: { baseUrl: string; embedded: boolean; model: string; outDir: string; total: number | undefined; workload: Record<string, unknown> }): void;
  onRecord?(r: RequestRecord): void;
  /** The live aggregator, for progress displays. */
  onAggregator?(agg: LiveAggregator): void;
}

export interface RunOptions {
  hooks?: RunHooks;
  /** Abort to stop the run: no new requests, in-flight ones are cancelled and recorded as such. */
  signal?: AbortSignal;
}

export interface RunResult {
  summary: Summary;
  /**
   * Every record written, sorted by id then attempt: read back from requests.jsonl on first access (the run itself
   * keeps none in memory, and the summary does not depend on them), so memory grows with the run only for callers that read it.
   */
  readonly records: RequestRecord[];
  outDir: string;
  /** Names of the files in outDir that were written in full (only these may be announced). */
  written: string[];
}

/** A results file could not be written: sending stopped; `result` holds what was measured and saved, if anything. */
export class RunWriteError extends WriteError {
  constructor(
    first: WriteError,
    readonly result: RunResult,
    readonly notWritten: string[],
  ) {
    super(first.file, first.reason, [first.detail, notWritten.length > 1 ? `also not written: ${notWritten.slice(1).join(', ')}` : ''].filter(Boolean).join('; '));
    this.name = 'RunWriteError';
  }
}

/** An open-loop send later than this (or than one mean inter-arrival gap, if longer) missed its slot. */
const LATE_SEND_MS = 10;

/** --max-error-rate is judged only after this many measured requests, so one early failure cannot stop a run. */
const MIN_ERROR_SAMPLE = 20;

/**
 * Wait before retry n+1: the server's Retry-After, else exponential backoff 500 ms · 2^(n−1) capped at 30 s;
 * null (do not retry) when Retry-After exceeds `maxMs`, since retrying earlier than asked measures nothing useful
 * and waiting longer would hold a slot for that long. Never above maxMs, so never above the longest timer.
 */
export function retryWaitMs(retryAfterMs: number | null, n: number, maxMs: number): number | null {
  if (retryAfterMs !== null && !Number.isNaN(retryAfterMs) && retryAfterMs >= 0) return retryAfterMs > maxMs ? null : retryAfterMs;
  return Math.min(30_000, 500 * 2 ** (n - 1), maxMs);
}

const sleepMs = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

/**
 * --workers auto: one thread for light loads; for heavy loads one per core except the one the main thread
 * (scheduling, records) needs. Worker threads add cores, not cheaper work: on 2 cores two threads received
 * 30% fewer tokens than one (docs/performance.md), so a 2-core machine stays at 1.
 */
export function resolveWorkers(c: Pick<RunConfig, 'workers' | 'concurrency' | 'rate'>): number {
  if (c.workers !== 'auto') return c.workers;
  const heavy = (c.concurrency ?? 0) > 64 || (c.rate ?? 0) > 100;
  return heavy ? Math.max(1, availableParallelism() - 1) : 1;
}


/** The effective config as written to disk: snake_case keys, the API key and secret headers redacted. */
export function redactedConfig(c: RunConfig, headers: Record<string, string>): Record<string, unknown> {
  return snakeKeys({
    ...c,
    apiKey: redactKey(c.apiKey),
    header: Object.entries(redactHeaders(headers)).map(([k, v]) => `${k}: ${v}`),
    baseUrl: c.baseUrl && redactUrl(c.baseUrl),
    extraBody: c.extraBody && redactFields(c.extraBody),
  }) as Record<string, unknown>;
}

/**
 * Fill token counts the server did not report by counting with the run's tokenizer, on the counting thread
 * (a pathological answer must not freeze measuring); too long or too slow to count gives token_source estimate.
 */
async function completeTokenCounts(res: ExecuteResult, counter: TokenCounter): Promise<void> {
  const raw = res.raw;
  if (raw.status !== 'ok') return;
  if (raw.output_tokens === null) {
    const { counts, source } = await counter.count([res.reasoningText, res.answerText]);
    raw.output_tokens = counts[0] + counts[1];
    raw.reasoning_tokens = counts[0];
    raw.token_source = source;
  }
  if (raw.input_tokens === null) raw.input_tokens = raw.expected_input_tokens;
}

/** A RunResult whose `records` are read back from outDir/requests.jsonl on first access, then kept. */
function lazyRecords(r: Omit<RunResult, 'records'>): RunResult {
  let records: RequestRecord[] | undefined;
  return Object.defineProperty(r, 'records', {
    get: () => (records ??= readRecordsSorted(r.outDir).records),
    enumerable: true,
  }) as RunResult;
}

/** Run one benchmark. Throws UsageError (exit 2) for bad config or an unreachable server, before anything is sent. */
export async function run(input: RunConfigInput | ResolvedRun, opts: RunOptions = {}): Promise<RunResult> {
  const { config: c, headers: extraHeaders } = 'config' in input ? input : resolveRunConfig({ flags: input as Record<string, unknown> });
  let tokenizer: Tokenizer;
  try {
    tokenizer = loadTokenizer(c.tokenizer);
  } catch (e) {
    throw new UsageError([`--tokenizer: ${(e as Error).message}`]);
  }
  // identity: a compressed stream delays and batches events (tokenflood still decodes one, see content.ts).
  const headers: Record<string, string> = { 'content-type': 'application/json', 'accept-encoding': 'identity', ...extraHeaders };
  for (const k of Object.keys(extraHeaders)) if (k !== 'accept-encoding' && k.toLowerCase() === 'accept-encoding') delete headers['accept-encoding'];
  // A user's own Authorization header (e.g. a gateway token) wins: the API key is not sent next to it.
  const ownAuth = Object.keys(extraHeaders).some((k) => k.toLowerCase() === 'authorization');
  if (c.apiKey && !ownAuth) headers.authorization = `Bearer ${c.apiKey}`;
  // Servers echo credentials in error bodies ("Incorrect API key provided: sk-..."): every text stored or printed passes this.
  const redact = createRedactor(secretValues({ apiKey: c.apiKey, headers: extraHeaders, baseUrl: c.baseUrl, extraBody: c.extraBody }));

  // The workload is built (datasets read and validated) before any server is contacted or any file touched.
  const rng = createRng(c.datasetSeed);
  // Default stop: 100 measured requests, unless a duration is given or the workload is finite (once-mode data).
  const defaultRequests = c.duration === undefined ? 100 : undefined;
  const total = (c.requests ?? defaultRequests) !== undefined ? (c.requests ?? (defaultRequests as number)) + c.warmup : undefined;
  // Two-stage stop: `stopSending` ends the schedule (and wakes workloads waiting on earlier answers);
  // requests still in flight after the grace period are cancelled.
  const stopSending = new AbortController();
  const workload: Workload = createWorkload(c, tokenizer, rng.fork(), total, { signal: stopSending.signal });
  const requests =
    c.requests ?? (workload.size !== undefined && c.duration === undefined ? Math.max(0, workload.size - c.warmup) : defaultRequests);

  const target = await openTarget(c.baseUrl, c.tokenizer, c);
  let sender: RequestSender | undefined;
  const backendKind = backendOf(c);
  const backend = BACKENDS[backendKind];
  const executor = chooseExecutor({ rate: c.rate, arrivalTimesMs: workload.arrivalTimesMs });
  const counter = createTokenCounter(c.tokenizer);
  try {
    // HTTP_PROXY/HTTPS_PROXY/NO_PROXY (src/backends/proxy.ts): a proxy, when one applies, carries the preflight and the run.
    const proxy = proxyForRun(target.baseUrl, c.transport);
    const probe = proxy ? proxyAgent(proxy) : new Agent();
    const pf = await preflight(target.baseUrl, headers, c.model, probe, { signal: opts.signal, redact })
      .catch((e: unknown) => {
        if (proxy && e instanceof TokenfloodError && e.code === 'E_UNREACHABLE') e.message += ` (through the proxy ${redactProxyUrl(proxy.uri)} from ${proxy.source})`;
        throw e;
      })
      .finally(() => probe.close().catch(() => {}));
    // The model id comes from the server: it is requested as given, but shown and stored redacted (a server may echo a key in it).
    const shownModel = redact(pf.model);
    const outDir = c.out ?? defaultOutDir(shownModel);
    prepareOutDir(outDir, c.overwrite);
    const runMeta: Record<string, unknown> = {
      tool: 'tokenflood',
      version: VERSION,
      started_at: new Date().toISOString(),
      target_url: redactUrl(target.baseUrl),
      embedded_server: target.embedded,
      embedded_server_isolation: target.isolation,
      model: shownModel,
      endpoint: c.endpoint,
      backend: backendKind,
      executor: executor.describe(c),
      stream: c.stream,
      tokenizer: tokenizer.name,
      workload: workload.describe(),
      sim_time_scale: pf.simTimeScale ?? null,
      client: { node: process.version, platform: platform(), cpus: cpus().length, cpu_model: cpus()[0]?.model ?? null, hostname: hostname() },
      config: redactedConfig(c, extraHeaders),
    };
    writeJsonFile(outDir, RUN_JSON, runMeta);
    const writer = new RecordWriter(join(outDir, REQUESTS_JSONL));
    // Fed each record as it is written: the summary comes from here, in memory that does not grow with the events.
    const summaryAgg = new SummaryAggregator();

    let t0 = performance.now();
    const now = () => performance.now() - t0;
    const workers = resolveWorkers(c);
    const transport = resolveTransport(c.transport, target.baseUrl, proxy !== null);
    const poolOpts = { connections: c.concurrency ?? null, origin: new URL(target.baseUrl).origin, transport, proxy };
    sender = workers > 1 ? await senderPool(workers, poolOpts, performance.timeOrigin + t0, backendKind) : inProcessSender(poolOpts, now, backendKind);
    runMeta.workers = workers;
    runMeta.transport = transport;
    runMeta.proxy = proxy ? redactProxyUrl(proxy.uri) : null;
    // Connections before the clock (issue 12): open what the load needs, a bounded number of connects at a time,
    // so the first wave does not overflow the server's accept queue. Failures are counted, never fatal.
    const warm = await sender.prewarm(prewarmCount(c.prewarm, c), { maxConnecting: PREWARM_MAX_CONNECTING, path: warmPath(joinUrl(target.baseUrl, '/models')), headers });
    runMeta.connections = { prewarmed: warm.opened, failed: warm.failed, ms: Math.round(warm.ms * 10) / 10 };
    // The run clock starts once the sender is ready (worker threads take a while to boot).
    t0 = performance.now();
    sender.setOrigin(performance.timeOrigin + t0);
    // Client self-health: event-loop delay of this thread, process CPU judged against the threads doing request work.
    const health = startHealthMonitor(now, { threads: workers });
    const counting = sender;
    const agg = new LiveAggregator(now, () => counting.contentEvents());
    opts.hooks?.onStart?.({ baseUrl: redactUrl(target.baseUrl), embedded: target.embedded, model: shownModel, outDir, total: requests, workload: runMeta.workload as Record<string, unknown> });
    opts.hooks?.onAggregator?.(agg);

    const url = joinUrl(target.baseUrl, backend.path);
    const exec = sender;
    const state: { stoppedReason: 'completed' | 'interrupted' | 'max_error_rate' | 'write_failed' } = { stoppedReason: 'completed' };
    let graceTimer: NodeJS.Timeout | undefined;
    const stop = (reason: typeof state.stoppedReason) => {
      if (stopSending.signal.aborted) return;
      state.stoppedReason = reason;
      stopSending.abort();
      // What the grace period waits for: the end-of-run message says whether any of it had to be cancelled.
      runMeta.in_flight_at_stop = agg.inFlight;
      graceTimer = setTimeout(() => exec.cancelAll(), c.gracePeriod * 1000);
    };
    const onAbort = () => stop('interrupted');
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    if (opts.signal?.aborted) onAbort(); // interrupted during setup
    let measuredDone = 0;
    let measuredFailed = 0;

    const attempt = async (slot: Slot, spec: RequestSpec, body: string, n: number, scheduledAtMs: number): Promise<{ res: ExecuteResult; rec: RequestRecord }> => {
      agg.started();
      const res = await exec.execute({
        id: slot.index,
        attempt: n,
        warmup: slot.warmup,
        cls: spec.class,
        url,
        headers,
        body,
        stream: c.stream,
        expectedInputTokens: spec.inputTokens,
        maxTokens: spec.maxTokens,
        scheduledAtMs,
        timeoutMs: c.timeout * 1000,
        idleTimeoutMs: c.idleTimeout !== undefined ? c.idleTimeout * 1000 : 0,
        maxLineBytes: c.maxLineBytes,
      });
      await completeTokenCounts(res, counter);
      if (res.raw.error !== null) res.raw.error = redact(res.raw.error);
      if (res.raw.finish_reason !== null) res.raw.finish_reason = redact(res.raw.finish_reason);
      if (res.raw.usage_rejected !== null) res.raw.usage_rejected = redact(res.raw.usage_rejected);
      const rec = toRecord(normalizeRaw(res.raw));
      if (writer.write(rec)) summaryAgg.add(rec);
      else if (!stopSending.signal.aborted) {
        // Nothing more can be recorded, so nothing more is sent, and requests in flight are not waited for.
        stop('write_failed');
        exec.cancelAll();
      }
      agg.finished(rec);
      if (!rec.warmup && rec.status !== 'cancelled') {
        measuredDone++;
        if (rec.status !== 'ok') measuredFailed++;
        if (c.maxErrorRate !== undefined && measuredDone >= MIN_ERROR_SAMPLE && measuredFailed / measuredDone > c.maxErrorRate) stop('max_error_rate');
      }
      opts.hooks?.onRecord?.(rec);
      return { res, rec };
    };

    const openLoop = executor.openLoop;
    const send = async (slot: Slot): Promise<boolean> => {
      const spec = await workload.next(slot.index);
      if (!spec || stopSending.signal.aborted) return false;
      const body = JSON.stringify(
        backend.buildBody(spec, {
          model: pf.model,
          stream: c.stream,
          ignoreEos: c.ignoreEos,
          temperature: c.temperature,
          topP: c.topP,
          topK: c.topK,
          seed: c.seed,
          extraBody: c.extraBody,
        }),
      );
      // Closed loop: the request is ready once built (the workload may wait for an earlier answer or think time),
      // so building the prompt is not send lag. Open loop: the schedule says when it was due, building included.
      const readyAtMs = openLoop ? slot.readyAtMs : Math.max(slot.readyAtMs, now());
      let last: { res: ExecuteResult; rec: RequestRecord };
      for (let n = 1; ; n++) {
        // A retry is due when its backoff ends: its schedule lag is the client's, not the backoff's.
        last = await attempt(slot, spec, body, n, n === 1 ? slot.scheduledAtMs : now());
        if (n === 1) {
          // The client's own lateness: how long after the request could go out it did go out.
          const lag = last.rec.sent_at_ms - readyAtMs;
          health.recordSendLag(lag);
          if (c.rate !== undefined && lag > Math.max(LATE_SEND_MS, 1000 / c.rate)) health.recordDropped();
        }
        const raw = last.res.raw;
        const retryable = raw.status === 'http_error' && (raw.http_status === 429 || raw.http_status === 503);
        if (!retryable || n > c.retry || stopSending.signal.aborted) break;
        const wait = retryWaitMs(last.res.retryAfterMs, n, c.maxRetryWait * 1000);
        if (wait === null) break; // the server asked for longer than --max-retry-wait: this attempt stays the outcome
        await sleepMs(wait, stopSending.signal);
        if (stopSending.signal.aborted) break;
      }
      // The workload hears once per request, with its final outcome (multi-turn and cache A/B depend on it).
      const { res, rec } = last;
      workload.complete?.({ spec, ok: rec.status === 'ok', answerText: res.answerText, reasoningText: res.reasoningText, record: rec });
      return true;
    };

    try {
      await executor.run(
        {
          concurrency: c.concurrency,
          rate: c.rate,
          arrival: c.arrival,
          burstiness: c.burstiness,
          warmup: c.warmup,
          requests,
          arrivalTimesMs: workload.arrivalTimesMs,
          durationMs: c.duration !== undefined ? c.duration * 1000 : undefined,
          rng: rng.fork(),
          now,
          signal: stopSending.signal,
        },
        send,
      );
    } finally {
      if (graceTimer) clearTimeout(graceTimer);
      runMeta.client_health = health.stop();
      opts.signal?.removeEventListener('abort', onAbort);
      writer.close();
    }
    runMeta.stopped_reason = state.stoppedReason;
    runMeta.workload = workload.describe(); // final counts (skipped items, conversations cut short)
    if (state.stoppedReason === 'max_error_rate')
      runMeta.stop_message = `stopped early: more than ${(c.maxErrorRate! * 100).toFixed(1)}% of requests failed (${measuredFailed} of ${measuredDone})`;
    if (state.stoppedReason === 'write_failed') runMeta.stop_message = writer.failure!.message;
    // Each file is written whole (temp + rename) or not at all; a failure is collected, and announced files are only those written.
    const failures: WriteError[] = writer.failure ? [writer.failure] : [];
    const written: string[] = writer.failure ? [] : [REQUESTS_JSONL];
    const save = (name: string, data: () => string) => {
      try {
        writeFileAtomic(join(outDir, name), data());
        written.push(name);
      } catch (e) {
        if (!(e instanceof WriteError)) throw e;
        failures.push(e);
      }
    };
    // run.json is rewritten with how the run ended, so `report` rebuilds exactly this summary.
    save(RUN_JSON, () => JSON.stringify(runMeta, null, 2) + '\n');
    // The aggregator saw exactly the records on disk, so `tokenflood report` (which replays them through it) agrees.
    const summary = summaryAgg.summary(runMeta, c.concurrency);
    save(SUMMARY_JSON, () => JSON.stringify(summary, null, 2) + '\n');
    try {
      writeRunReport(outDir);
      written.push('report.html');
    } catch (e) {
      if (e instanceof WriteError) failures.push(e);
      // The measurements are safe on disk; a report that cannot be rendered must not turn the run into an error.
      else process.stderr.write(`tokenflood: warning: could not write report.html: ${(e as Error).message}\n`);
    }
    const result = lazyRecords({ summary, outDir, written });
    if (failures.length) throw new RunWriteError(failures[0], result, failures.map((f) => f.file));
    return result;
  } finally {
    await counter.close();
    await sender?.close();
    await target.close();
  }
}
