// Sending: the executor's slots become requests (body, retries, token counts, redaction) and each outcome a record.
import { MAX_GENERATED_TEXT_CHARS } from '../config/result-format.js';
import { randomBytes } from 'node:crypto';
import type { RunConfig, SendConfig } from '../config/schema.js';
import type { TokenCounter } from '../dataset/count-pool.js';
import type { MediaPart, RequestSpec } from '../dataset/types.js';
import type { Workload } from '../dataset/workload.js';
import { BACKENDS, backendOf } from '../backends/registry.js';
import { BATCH_BACKENDS } from '../backends/backend-config.js';
import type { ExecuteResult } from '../backends/execute.js';
import type { Backend, BodyOptions } from '../backends/backend.js';
import type { Executor, RampPlan, Slot } from '../scheduler/scheduler.js';
import type { LoadControl } from '../scheduler/load-control.js';
import { toRecord } from '../metrics/derive.js';
import { normalizeRaw } from '../metrics/jsonl.js';
import type { LiveAggregator } from '../metrics/live.js';
import type { RequestRecord } from '../metrics/record.js';
import type { Rng } from '../util/rng.js';
import type { Driver } from '../drivers/driver.js';
import { parseModels } from '../config/routing.js';
import { createModelPicker } from '../backends/route-policies.js';
import { parseShard } from '../config/shard.js';
import { globalIndex, shardLabel, type ShardSpec } from '../scheduler/shard.js';
import { localLoad } from '../shard/plan.js';
import { workloadSeed } from '../config/workload.js';
import { cancelPlan } from './cancel-plan.js';
import { extraBodyPriority } from '../dataset/priority.js';

/** A session's identity on its record: multi-turn data and trace replay (session, turn, agent, trace line, ceiling, waits). */
function copySessionFields(spec: RequestSpec, raw: ExecuteResult['raw']): void {
  if (spec.sessionId !== undefined) raw.session = spec.sessionId;
  if (spec.turn !== undefined) raw.turn = spec.turn;
  if (spec.agent !== undefined) raw.agent = spec.agent;
  if (spec.instance !== undefined) raw.instance = spec.instance;
  if (spec.ceilingTokens !== undefined) {
    raw.ceiling_tokens = spec.ceilingTokens;
    if (spec.source !== undefined) raw.source = spec.source;
  }
  if (spec.joinWaitMs !== undefined) raw.join_wait_ms = spec.joinWaitMs;
  if (spec.toolWaitMs !== undefined) raw.tool_wait_ms = spec.toolWaitMs;
  if (spec.media?.length) copyMediaFields(spec.media, raw);
}

/** What a request's media were (issue 28): counts, pixels, bytes and encode time on its record. */
export function copyMediaFields(media: readonly MediaPart[], raw: ExecuteResult['raw']): void {
  let images = 0, frames = 0, seconds = 0, pixels = 0, bytes = 0, encode = 0;
  for (const m of media) {
    if (m.kind === 'image') images++;
    const n = m.kind === 'video' ? (m.frames ?? 0) : m.kind === 'image' ? 1 : 0;
    if (m.kind === 'video') frames += n;
    pixels += n * (m.width ?? 0) * (m.height ?? 0);
    if (m.kind === 'audio') seconds += m.seconds ?? 0;
    bytes += m.data?.byteLength ?? 0;
    encode += m.encodeMs ?? 0;
  }
  raw.images = images;
  if (frames) raw.video_frames = frames;
  if (seconds) raw.audio_seconds = Math.round(seconds * 1000) / 1000;
  raw.image_pixels = pixels;
  raw.media_bytes = bytes;
  raw.media_encode_ms = Math.round(encode * 1000) / 1000;
  // Not given by the server's usage (prompt_tokens_details): null, so "not reported" differs from 0.
  if (images || frames) raw.image_tokens ??= null;
  if (seconds) raw.audio_tokens ??= null;
}

/** --shard: this process's shard, undefined for a whole run. */
const shardOf = (c: RunConfig): ShardSpec | undefined => (c.shard !== undefined ? parseShard(c.shard) : undefined);

/** The streams (closed loop) or in-flight cap (open loop) this process runs: its shard's part of --concurrency. */
const localConcurrency = (c: RunConfig): number | undefined => localLoad(c).concurrency;

export type StopReason = 'completed' | 'interrupted' | 'max_error_rate' | 'write_failed' | 'saturated';

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

/**
 * Fill token counts the server did not report by counting with the run's tokenizer, on the counting thread
 * (a pathological answer must not freeze measuring); too long or too slow to count gives token_source estimate.
 */
async function completeTokenCounts(res: ExecuteResult, counter: TokenCounter): Promise<void> {
  const raw = res.raw;
  // A request the client cancelled keeps the tokens it had received by then (docs/metrics.md#request-cancellation).
  const clientCancel = raw.code === 'E_CANCELLED_BY_CLIENT';
  if (raw.status !== 'ok' && !clientCancel) return;
  if (raw.output_tokens === null) {
    const { counts, source } = await counter.count([res.reasoningText, res.answerText]);
    raw.output_tokens = counts[0] + counts[1];
    raw.reasoning_tokens = counts[0];
    raw.token_source = source;
  }
  if (raw.input_tokens === null && !clientCancel) raw.input_tokens = raw.expected_input_tokens;
}

export interface SendContext {
  c: SendConfig;
  driver: Driver;
  workload: Workload;
  executor: Executor;
  /** Ramps and stages, undefined for a constant load. */
  ramp: RampPlan | undefined;
  /** The model id to request. */
  model: string;
  /** Measured requests to send, when bounded. */
  requests: number | undefined;
  rng: Rng;
  agg: LiveAggregator;
  counter: TokenCounter;
  redact: (s: string) => string;
  stopSending: AbortSignal;
  stop(reason: StopReason): void;
  /** Specs and bodies built before the clock (prepareFirstWave), taken by index. */
  prepared?: Map<number, PreparedRequest>;
  /** Every finished attempt's record, in the order they finish. */
  onRecord(r: RequestRecord): void;
  /** The run's id: request ids are `<run id>-<request id>` (none with --no-request-id). */
  runId?: string;
  /** Live load changes (LifecycleOptions.liveLoad): the executor follows it, each record gets its stage. */
  control?: LoadControl;
}

/** A run id: 12 random hex digits, short enough to read in a log line, long enough not to collide between runs. */
export const newRunId = (): string => randomBytes(6).toString('hex');
/** A request built before the clock: its spec, the model its body asks for, and the body. */
export interface PreparedRequest {
  spec: RequestSpec;
  model: string;
  body: string | Uint8Array;
}

/** --models: the model of request i (docs/routing.md); else undefined, and the run's (or the endpoint's) model applies. */
function modelOf(c: RunConfig): ((index: number) => string) | undefined {
  return c.models !== undefined ? createModelPicker(parseModels(c.models), workloadSeed(c)) : undefined;
}

/** The JSON body of a request, or '' for a driver that never reads one (the engine model takes the spec). */
function bodyBuilder(x: Pick<SendContext, 'c' | 'driver'>): (spec: RequestSpec, model: string) => string | Uint8Array {
  const { c } = x;
  const backend: Backend = BACKENDS[backendOf(c)];
  if (!x.driver.needsBody) return () => '';
  const opts = (model: string): BodyOptions => ({ model, stream: c.stream, ignoreEos: c.ignoreEos, temperature: c.temperature, topP: c.topP, topK: c.topK, seed: c.seed, extraBody: c.extraBody, batchSize: c.batchSize, sendPriority: c.prioritySend, ...(c.tools ? { tools: c.tools } : {}) });
  // A backend with its own encoding (multipart uploads) gives bytes; every other body is JSON.
  if (backend.encodeBody) return (spec, model) => backend.encodeBody!(spec, opts(model));
  return (spec, model) => JSON.stringify(backend.buildBody(spec, opts(model)));
}

/** Most requests whose specs and bodies are built before the clock starts. */
export const FIRST_WAVE_MAX = 1024;

/**
 * The first wave's specs and bodies, built before the run clock starts, so its requests go out back to back with
 * nothing but sending between them: one per stream in a closed loop, two seconds' worth at --rate (at most
 * FIRST_WAVE_MAX). Only for workloads whose next(i) needs no earlier answer (`prefetchable`).
 */
export function prepareFirstWave(x: Pick<SendContext, 'c' | 'driver' | 'model' | 'workload'>, requests: number | undefined): Map<number, PreparedRequest> {
  const out = new Map<number, PreparedRequest>();
  const { c, workload } = x;
  if (!workload.prefetchable) return out;
  const shard = shardOf(c);
  const concurrency = localConcurrency(c);
  const wave = c.rate !== undefined ? Math.ceil((c.rate * 2) / (shard?.count ?? 1)) : (concurrency ?? 1);
  const count = Math.min(FIRST_WAVE_MAX, wave, concurrency ?? Infinity, requests !== undefined ? requests + c.warmup : Infinity, workload.size ?? Infinity);
  const bodyOf = bodyBuilder(x);
  const pick = modelOf(c);
  // A shard's first requests are the plan's indexes i, i+N, … (an open loop's arrivals ≡ i mod N are the same ones).
  for (let k = 0; k < count; k++) {
    const i = shard ? globalIndex(k, shard) : k;
    if (requests !== undefined && i >= requests + c.warmup) break;
    if (workload.size !== undefined && i >= workload.size) break;
    const spec = workload.next(i);
    if (!spec || spec instanceof Promise) break; // a prefetchable workload answers at once; stop rather than wait
    const model = pick?.(i) ?? x.model;
    out.set(i, { spec, model, body: bodyOf(spec, model) });
  }
  return out;
}

/** Run the executor's schedule to its end; resolves with the measured counts once every request has finished. */
export async function sendLoop(x: SendContext): Promise<{ measuredDone: number; measuredFailed: number }> {
  const { c, driver, workload, agg, stopSending } = x;
  const clock = driver.clock;
  const health = driver.health;
  let measuredDone = 0;
  let measuredFailed = 0;
  // Embeddings and rerank send --batch-size copies of the prompt: the client's own input count covers all of them.
  const inputsPerRequest = BATCH_BACKENDS.includes(backendOf(c)) ? c.batchSize : 1;

  const pick = modelOf(c);
  const shard = shardOf(c);
  const label = shard && shardLabel(shard);
  // Model ids as stored: redacted once each (a server may echo a key in one), not once per request.
  const shown = new Map<string, string>();
  const shownModel = (m: string): string => shown.get(m) ?? (shown.set(m, x.redact(m)), shown.get(m)!);
  // The record's priority class: the request's own (data or --priority-mix), else --extra-body's run-wide integer one.
  const runPriority = extraBodyPriority(c.extraBody);
  // --cancel-after/--cancel-rate: measured requests only (warmup warms); a retry keeps its request's delay.
  const cancels = cancelPlan({ cancelAfter: c.cancelAfter, cancelRate: c.cancelRate, seed: workloadSeed(c), timeoutS: c.timeout });
  const attempt = async (slot: Slot, spec: RequestSpec, built: { model: string; body: string | Uint8Array }, n: number, scheduledAtMs: number): Promise<{ res: ExecuteResult; rec: RequestRecord }> => {
    // Several endpoints: each attempt picks its own (a retry may go elsewhere); its model may be the endpoint's.
    const route = driver.route?.(spec);
    const model = pick?.(slot.index) ?? route?.model ?? x.model;
    const body = model === built.model ? built.body : bodyOf(spec, model);
    agg.started();
    const cancelAfterMs = slot.warmup ? undefined : cancels?.delayMs(slot.index);
    const res = await driver.execute(
      {
        id: slot.index,
        attempt: n,
        warmup: slot.warmup,
        cls: spec.class,
        body,
        stream: c.stream,
        expectedInputTokens: spec.inputTokens * inputsPerRequest,
        maxTokens: spec.maxTokens,
        scheduledAtMs,
        timeoutMs: c.timeout * 1000,
        idleTimeoutMs: c.idleTimeout !== undefined ? c.idleTimeout * 1000 : 0,
        maxLineBytes: c.maxLineBytes,
        ...(cancelAfterMs !== undefined ? { cancelAfterMs } : {}),
        // Retries keep the id: the record's attempt tells them apart.
        ...(c.requestId && x.runId ? { requestId: `${c.requestIdPrefix ?? `${x.runId}-`}${slot.index}`, requestIdHeader: c.requestIdHeader } : {}),
      },
      spec,
      route?.target,
    );
    if (route) res.raw.endpoint = route.endpoint;
    if (route || pick) res.raw.model = shownModel(model);
    if (spec.prefixGroup !== undefined) res.raw.prefix_group = spec.prefixGroup;
    copySessionFields(spec, res.raw);
    // Every request's body size: the summary's request MB/s (docs/metrics.md#bytes-and-samples-per-second).
    res.raw.request_bytes = typeof built.body === 'string' ? Buffer.byteLength(built.body) : built.body.byteLength;
    // The phase (ramp-up, steady, ramp-down) the scheduler gave the request: the summary covers the steady one.
    res.raw.phase = slot.phase;
    if (slot.stage !== undefined) res.raw.stage = slot.stage;
    if (label) res.raw.shard = label;
    if (slot.user !== undefined) res.raw.user = slot.user;
    if (spec.user !== undefined) res.raw.user_id = spec.user;
    const priority = spec.priority ?? runPriority;
    if (priority !== undefined) res.raw.priority = priority;
    await completeTokenCounts(res, x.counter);
    if (res.raw.error !== null) res.raw.error = x.redact(res.raw.error);
    if (res.raw.finish_reason !== null) res.raw.finish_reason = x.redact(res.raw.finish_reason);
    if (res.raw.usage_rejected !== null) res.raw.usage_rejected = x.redact(res.raw.usage_rejected);
    // vllm-result.json's generated_texts (vLLM's --save-detailed): the answer is kept only when that file is asked for.
    if (c.resultFormat === 'vllm' && res.raw.status === 'ok') res.raw.generated_text = x.redact(res.answerText.slice(0, MAX_GENERATED_TEXT_CHARS));
    const rec = toRecord(normalizeRaw(res.raw));
    x.onRecord(rec);
    agg.finished(rec);
    // Warmup answers count too: they are the same server's, and they come before the first measured cancel.
    if (rec.status === 'ok' && rec.e2e_ms !== null) cancels?.observeOk(rec.e2e_ms);
    if (!rec.warmup && rec.status !== 'cancelled') {
      measuredDone++;
      if (rec.status !== 'ok') measuredFailed++;
      if (c.maxErrorRate !== undefined && measuredDone >= MIN_ERROR_SAMPLE && measuredFailed / measuredDone > c.maxErrorRate) x.stop('max_error_rate');
    }
    return { res, rec };
  };

  const openLoop = x.executor.openLoop;
  const bodyOf = bodyBuilder(x);
  const send = async (slot: Slot): Promise<boolean> => {
    const early = x.prepared?.get(slot.index);
    if (early) x.prepared!.delete(slot.index);
    const spec = early ? early.spec : await workload.next(slot.index);
    if (!spec || stopSending.aborted) return false;
    const built = early ?? { model: pick?.(slot.index) ?? x.model, body: '' };
    if (!early) built.body = bodyOf(spec, built.model);
    // Closed loop: the request is ready once built (the workload may wait for an earlier answer or think time),
    // so building the prompt is not send lag. Open loop: the schedule says when it was due, building included.
    const readyAtMs = openLoop ? slot.readyAtMs : Math.max(slot.readyAtMs, clock.now());
    let last: { res: ExecuteResult; rec: RequestRecord };
    for (let n = 1; ; n++) {
      // A retry is due when its backoff ends: its schedule lag is the client's, not the backoff's.
      last = await attempt(slot, spec, built, n, n === 1 ? slot.scheduledAtMs : clock.now());
      if (n === 1 && health) {
        // The client's own lateness: how long after the request could go out it did go out.
        const lag = last.rec.sent_at_ms - readyAtMs;
        health.recordSendLag(lag);
        if (c.rate !== undefined && lag > Math.max(LATE_SEND_MS, 1000 / c.rate)) health.recordDropped();
      }
      const raw = last.res.raw;
      const retryable = raw.status === 'http_error' && (raw.http_status === 429 || raw.http_status === 503);
      if (!retryable || n > c.retry || stopSending.aborted) break;
      const wait = retryWaitMs(last.res.retryAfterMs, n, c.maxRetryWait * 1000);
      if (wait === null) break; // the server asked for longer than --max-retry-wait: this attempt stays the outcome
      await clock.sleepUntil(clock.now() + wait, stopSending);
      if (stopSending.aborted) break;
    }
    // The workload hears once per request, with its final outcome (multi-turn and cache A/B depend on it).
    const { res, rec } = last;
    workload.complete?.({ spec, ok: rec.status === 'ok', answerText: res.answerText, reasoningText: res.reasoningText, record: rec });
    return true;
  };

  await x.executor.run(
    {
      concurrency: localConcurrency(c),
      rate: c.rate,
      arrival: c.arrival,
      burstiness: c.burstiness,
      warmup: c.warmup,
      requests: x.requests,
      arrivalTimesMs: workload.arrivalTimesMs,
      dynamic: workload.schedule,
      durationMs: c.duration !== undefined ? c.duration * 1000 : undefined,
      rng: x.rng.fork(),
      ramp: x.ramp,
      now: clock.now,
      waits: clock,
      signal: stopSending,
      control: x.control,
      shard,
      users: c.users,
      userRate: c.userRate,
    },
    send,
  );
  return { measuredDone, measuredFailed };
}
