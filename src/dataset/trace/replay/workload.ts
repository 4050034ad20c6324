// The `trace` workload: a --replay trace in any format other than tokenflood's own, sent open loop at its recorded times
// (stand-alone requests) or as sessions turn by turn (sessions, subagents, --sessions N). docs/workloads.md#traces-and-agentic-sessions
import { basename } from 'node:path';
import type { Tokenizer } from '../../tokenizer.js';
import type { Rng } from '../../../util/rng.js';
import type { WorkloadParams } from '../../params.js';
import type { Workload, WorkloadOptions } from '../../workload-types.js';
import { openTrace, type TraceStream } from '../registry.js';
import type { TraceRequest } from '../model.js';
import type { TraceReplayContext } from './context.js';
import { createPromptSynth, type PromptSynth } from '../prompts.js';
import { createOpenLoopTraceWorkload } from './open-loop.js';
import { createSessionTraceWorkload } from './sessions.js';

/** A trace is replayed as sessions when its first request has a session id or --sessions is given. */
export function createTraceWorkload(c: WorkloadParams, tok: Tokenizer, rng: Rng, total: number | undefined, opts: WorkloadOptions): Workload {
  const path = c.replay as string;
  const trace = openTrace(path, c.replayFormat, { blockSize: c.traceBlockSize, skipBadLines: c.skipBadLines, countTokens: (t) => tok.count(t) });
  const it = trace.requests[Symbol.iterator]();
  const head = it.next();
  if (head.done) trace.finish(); // throws: no usable request
  const first = head.value as TraceRequest;
  const blockSize = trace.summary.blockSize ?? 512;
  const seed = c.datasetSeed ?? 42;
  const synths = new Map<number, PromptSynth>();
  const marker = c.cacheBust && c.promptSalt ? `#${c.promptSalt}` : '';
  // --no-cache-bust: every pass repeats the same blocks (a second pass hits the cache the first warmed).
  const traceId = (pass: number): string => `${basename(path)}${marker}${pass && c.cacheBust ? `/pass${pass}` : ''}`;
  const synth = (pass: number): PromptSynth => {
    let s = synths.get(pass);
    if (!s) {
      s = createPromptSynth({ tok, blockSize, seed, traceId: traceId(pass) });
      synths.set(pass, s);
    }
    return s;
  };
  const ctx: TraceReplayContext = {
    c, tok, rng, opts, total, path, trace, first, rest: it, blockSize, synth, traceId,
    specOptions: (pass) => ({ tok, endpoint: c.endpoint, synth: synth(pass), maxTokens: c.maxTokens }),
  };
  return first.session !== undefined || c.sessions !== undefined ? createSessionTraceWorkload(ctx) : createOpenLoopTraceWorkload(ctx);
}
