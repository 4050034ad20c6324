// What a trace format's loader is: a default block size, a detector for `auto`, and a reader yielding normalized requests.
import type { TraceLoadOptions, TraceLoadSummary, TraceRequest } from './model.js';
import type { TraceProblems } from './problems.js';

/** What a reader is handed: the options, where bad records go, and the summary it may add to (dropped subagents). */
export interface TraceReadContext {
  options: TraceLoadOptions;
  problems: TraceProblems;
  summary: TraceLoadSummary;
  /** The block size in force: --block-size, else the format's default (a Weka file's own block_size wins over the default). */
  blockSize: number;
}

export interface TraceLoader {
  /** One line for help and docs. */
  describe: string;
  /** Tokens per hash id when neither the file nor --block-size says. */
  defaultBlockSize: number;
  /** Why the first record (a JSON object, or a CSV header row's names) is this format, or undefined. */
  detect(first: { json?: Record<string, unknown>; csvHeader?: string[] }): string | undefined;
  /** The requests of a file (or a directory, for Weka) in file order; bad records go to `ctx.problems` and are not yielded. */
  read(path: string, ctx: TraceReadContext): Iterable<TraceRequest>;
}
