// What both halves of the trace workload (open loop, sessions) are built from.
import type { Tokenizer } from '../../tokenizer.js';
import type { Rng } from '../../../util/rng.js';
import type { WorkloadParams } from '../../params.js';
import type { WorkloadOptions } from '../../workload-types.js';
import type { TraceStream } from '../registry.js';
import type { TraceRequest } from '../model.js';
import type { PromptSynth } from '../prompts.js';
import type { TraceSpecOptions } from '../spec.js';

/** What both halves of the trace workload are built from. */
export interface TraceReplayContext {
  c: WorkloadParams;
  tok: Tokenizer;
  rng: Rng;
  opts: WorkloadOptions;
  /** Requests the run asked for (warmup included), when bounded. */
  total: number | undefined;
  path: string;
  /** The open trace; `requests` streams (bounded read-ahead); call `finish()` once read to fail on bad records. */
  trace: TraceStream;
  /** The trace's requests in file order: `first` already taken, `rest` continues from the second. */
  first: TraceRequest;
  rest: Iterator<TraceRequest>;
  blockSize: number;
  /**
   * Prompt synthesis for pass `pass` (0 the first): with cache-bust on and a prompt salt (fresh prompts, the default) each
   * pass has its own marker, so a trace replayed twice never hits the cache the first pass warmed; equal ids give equal
   * blocks within a pass.
   */
  synth(pass: number): PromptSynth;
  /** The id the prompts of pass `pass` are seeded with (what synth(pass) uses), for a worker thread that builds them. */
  traceId(pass: number): string;
  specOptions(pass: number): TraceSpecOptions;
}

