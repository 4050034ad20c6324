// Open-loop trace replay: stand-alone requests sent at their recorded times (scaled by --replay-speed), streamed in two
// passes (the send times first, then the requests as they are due), so memory does not grow with the trace's length.
// docs/workloads.md#traces-and-agentic-sessions
import type { RequestSpec } from '../../types.js';
import type { Workload } from '../../workload-types.js';
import type { TraceRequest } from '../model.js';
import type { TraceReplayContext } from './context.js';
import { capProblemOf, keepRequest, withinModelLen } from './limits.js';
import { UsageError } from '../../../errors.js';
import { createCeilingCounter } from '../ceiling.js';
import { traceSpec } from '../spec.js';
import { passTimes, readArrivals } from './arrivals.js';
import type { PromptSynth } from '../prompts.js';
import { promptWorkerFile, startPromptsAhead, type BuiltAhead, type PromptsAhead } from './prompt-ahead.js';

/**
 * Prompts are built on a worker thread, ahead of their send times, for replays of at least `workerFrom` requests (when
 * the build is there); otherwise each prompt is built when it is due. Off by default: on a loaded 2-core machine the
 * worker's lag was higher than building inline (docs/performance.md#open-loop-trace-replay-node-benchtrace-replaymjs).
 * `ahead`: most requests built before they are taken.
 */
export const OPEN_LOOP_TUNING = { workerFrom: Number.POSITIVE_INFINITY, ahead: 64 };

/** Session-only options, refused for a trace replayed open loop (they would do nothing). */
function sessionOnly(ctx: TraceReplayContext): string[] {
  const { c, path } = ctx;
  const why = `only applies to session traces; ${path} is replayed open loop (its first request has no session id)`;
  const p: string[] = [];
  if (c.sessionAnswers !== 'recorded') p.push(`--session-answers: ${why}`);
  if (c.startAtFraction !== 0) p.push(`--start-at-fraction: ${why}`);
  if (c.maxIdleGap !== undefined) p.push(`--max-idle-gap: ${why}`);
  if (typeof c.thinkTime === 'string') p.push(`--think-time: ${why}`);
  return p;
}

/** One pass over the trace's requests, as specs: its own prompts (cache-bust marker) and its own cache ceiling. */
interface Pass {
  pass: number;
  it: Iterator<TraceRequest>;
  /** Position of the next kept request in the pass. */
  k: number;
  ceiling: (r: TraceRequest) => number;
}

export function createOpenLoopTraceWorkload(ctx: TraceReplayContext): Workload {
  const problems = sessionOnly(ctx);
  if (problems.length) throw new UsageError(problems);
  const { c, trace } = ctx;
  const limits = { maxTokens: c.maxTokens, maxModelLen: c.maxModelLen, maxInputTokens: c.maxInputTokens, maxOutputTokens: c.maxOutputTokens };
  const keep = (r: TraceRequest): boolean => keepRequest(r, limits);
  // Over a vendor cap: a bad record, as a malformed line is (all named, exit 2; --skip-bad-lines skips and counts them).
  const overCaps: string[] = [];
  const keepFirst = (r: TraceRequest): boolean => {
    const p = capProblemOf(r, limits, ctx.path);
    if (p === undefined) return withinModelLen(r, limits);
    overCaps.push(p);
    return false;
  };
  const want = c.requests !== undefined ? c.requests + c.warmup : undefined;

  // Pass one: the send times only. Reading stops at the requests asked for; the bad records read so far fail the run here, before anything is sent.
  const head: Iterable<TraceRequest> = { [Symbol.iterator]: () => withFirst(ctx.first, ctx.rest) };
  const arrivals = readArrivals(head, { speed: c.replaySpeed, limit: want, keep: keepFirst });
  ctx.rest.return?.();
  const summary = { ...trace.finish() };
  if (overCaps.length && !c.skipBadLines) throw new UsageError([...overCaps.slice(0, 20), ...(overCaps.length > 20 ? [`... and ${overCaps.length - 20} more requests over a cap (--skip-bad-lines skips them)`] : [])]);
  const n = arrivals.times.length;
  /** Skipped for --max-model-len alone (the rest of arrivals.skipped were over a cap). */
  const lenSkipped = arrivals.skipped - overCaps.length;
  if (!n && overCaps.length) throw new UsageError([`every request of ${ctx.path} is over --max-input-tokens/--max-output-tokens`, ...overCaps.slice(0, 5)]);
  if (!n) throw new UsageError([`--max-model-len: every request of ${ctx.path} exceeds ${c.maxModelLen} tokens (input + max_tokens)`]);
  const { times, passes } = passTimes(arrivals.times, want ?? n);

  // Pass two: the requests, streamed again as they are due (next(i) is asked in order; one skipped by another shard is read past).
  let cur: Pass | undefined;
  let ceilingTokens = 0;
  let built = 0;
  let byWorker = 0;
  const open = (pass: number): Pass => {
    cur?.it.return?.();
    return { pass, it: trace.requests[Symbol.iterator](), k: 0, ceiling: createCeilingCounter(ctx.blockSize) };
  };
  const readKept = (p: Pass): TraceRequest => {
    for (;;) {
      const x = p.it.next();
      if (x.done) throw new Error(`trace replay: ${ctx.path} ended after ${p.k} requests on its second read (it had ${n}); was it changed during the run?`);
      if (keep(x.value)) {
        p.k++;
        return x.value;
      }
    }
  };
  // On a worker thread: the same requests, prompts and ceiling shares, built ahead.
  const file = times.length >= OPEN_LOOP_TUNING.workerFrom ? promptWorkerFile() : undefined;
  const ahead: PromptsAhead | undefined = file && startPromptsAhead(file, {
    path: ctx.path, kind: summary.kind, blockSize: ctx.blockSize, skipBadLines: c.skipBadLines, seed: c.datasetSeed ?? 42,
    traceIds: Array.from({ length: passes }, (_, p) => ctx.traceId(p)), perPass: n, total: times.length,
    maxTokens: c.maxTokens, maxModelLen: c.maxModelLen, maxInputTokens: c.maxInputTokens, maxOutputTokens: c.maxOutputTokens, alphabet: ctx.synth(0).alphabet, tokenizer: ctx.tok.name, ahead: OPEN_LOOP_TUNING.ahead,
  }, ctx.opts.signal);
  const fromWorker = (i: number, b: BuiltAhead): RequestSpec => {
    const pass = Math.floor(i / n);
    const base = ctx.specOptions(pass);
    const synth: PromptSynth = { ...base.synth, text: () => b.text };
    ceilingTokens += b.ceiling;
    built++;
    byWorker++;
    return { ...traceSpec(b.r, { ...base, synth }, { ceilingTokens: b.ceiling }), timestampMs: times[i] };
  };
  const next = (i: number): RequestSpec | undefined => {
    if (i >= times.length) {
      cur?.it.return?.();
      ahead?.close();
      return undefined;
    }
    // Built ahead by the worker, or (the worker late, or a simulation's clock far ahead of it) here and now.
    const b = ahead?.take(i);
    if (i === times.length - 1) ahead?.close();
    if (b) return fromWorker(i, b);
    const pass = Math.floor(i / n);
    const k = i % n;
    if (!cur || pass > cur.pass) cur = open(pass);
    if (pass < cur.pass || k < cur.k) throw new Error(`trace replay: request ${i} asked for after a later one (requests are streamed in order)`);
    const p = cur;
    while (p.k < k) p.ceiling(readKept(p));
    const r = readKept(p);
    const ceiling = p.ceiling(r);
    ceilingTokens += ceiling;
    built++;
    return { ...traceSpec(r, ctx.specOptions(pass), { ceilingTokens: ceiling }), timestampMs: times[i] };
  };

  const warnings = [
    ...summary.warnings,
    ...(arrivals.reordered ? [`${arrivals.reordered} requests recorded before their predecessor were sent right after it`] : []),
    ...(lenSkipped ? [`${lenSkipped} requests skipped: input + max_tokens exceeds --max-model-len ${c.maxModelLen}`] : []),
    ...(overCaps.length ? [`${overCaps.length} requests over --max-input-tokens/--max-output-tokens skipped (--skip-bad-lines)`, ...overCaps.slice(0, 5)] : []),
    ...(arrivals.withSession ? [`${arrivals.withSession} requests carry a session id, but the first does not: all are replayed open loop as stand-alone requests (--sessions N replays sessions)`] : []),
  ];
  return {
    // With the worker building ahead, the run takes no first wave of prompts before its clock starts (up to 1024 held at once).
    prefetchable: !ahead,
    next,
    size: times.length,
    arrivalTimesMs: times,
    describe: () => ({
      kind: 'replay',
      format: summary.kind,
      ...(summary.detected ? { detected: summary.detected } : {}),
      mode: 'open-loop',
      prompts_built_ahead: ahead ? byWorker : null,
      file: ctx.path,
      requests: n,
      passes,
      speed: c.replaySpeed,
      span_s: times[times.length - 1] / 1000,
      block_size: ctx.blockSize,
      cache_bust: c.cacheBust,
      ceiling_tokens: ceilingTokens,
      built,
      skipped_bad_records: summary.skippedBadRecords + overCaps.length,
      ...(c.maxInputTokens !== undefined || c.maxOutputTokens !== undefined ? { skipped_over_caps: overCaps.length } : {}),
      ...(c.maxModelLen !== undefined ? { max_model_len: c.maxModelLen, skipped_over_max_model_len: lenSkipped } : {}),
      warnings,
    }),
  };
}

/** The trace's iterator with its already-read first request put back in front. */
function* withFirst(first: TraceRequest, rest: Iterator<TraceRequest>): Generator<TraceRequest> {
  yield first;
  for (let x = rest.next(); !x.done; x = rest.next()) yield x.value;
}
