// The one typed model every trace format is normalized into: requests with their timing, lengths, KV-cache blocks and session shape.

/** One request of a trace, as recorded. Lengths are tokens; times are milliseconds. */
export interface TraceRequest {
  /** 0-based position among the requests read (file order; a directory's files in name order). */
  index: number;
  /** Recorded send time, ms from the trace's own origin; undefined when the format gives only gaps (Mooncake `delay`). */
  atMs?: number;
  inputLength: number;
  outputLength: number;
  /**
   * KV-cache block ids in prompt order: block i covers tokens [i*B, (i+1)*B) of the prompt (the last one may be partial).
   * Ids are one namespace per trace (per file for Weka, whose ids are per conversation). Undefined when the format has none.
   */
  hashIds?: readonly number[];
  /** Session (conversation) id; undefined for a stand-alone request. */
  session?: string;
  /** 0-based turn index within its session and agent (0 for a stand-alone request). */
  turn: number;
  /** The subagent this request belongs to; undefined for the session's main agent. */
  agent?: string;
  /** For a subagent's requests: the parent turn that spawns it, and the parent turn that waits for it (join); no join = background. */
  spawn?: { afterTurn: number; joinTurn?: number };
  /** Recorded wait between the predecessor's end and this request (think time, Mooncake `delay`), ms. */
  gapMs?: number;
  /** Recorded tool time after this request's answer, before the next turn (a mocked tool), ms. */
  toolMs?: number;
  /** The instance (endpoint name) the trace says served it, if any: routing honours it. */
  instance?: string;
  /** Model named by the trace, if any. */
  model?: string;
  /** Text prompts (tokenflood's own replay format only): the request's messages. */
  messages?: readonly { role: string; content: string }[];
  /** Where it came from: "file:line", or "file requests[3].requests[0]" for a JSON session file. */
  source: string;
}

/** What a loader reads besides the file. */
export interface TraceLoadOptions {
  /** Tokens per hash id; each format has its own default (Mooncake 512, Bailian 16, Weka the file's block_size or 64, TraceLab 64). */
  blockSize?: number;
  /** Drop bad records (counted, the first five named) instead of failing the load. */
  skipBadLines?: boolean;
  /** Counts the tokens of text prompts (tokenflood format); the default tokenizer when not given. */
  countTokens?: (text: string) => number;
}

/** What a load found besides the requests. */
export interface TraceLoadSummary {
  /** The format read (the detected one for `auto`). */
  kind: string;
  /** Why `auto` chose it ("first record has hash_ids and timestamp in ms"). */
  detected?: string;
  blockSize?: number;
  requests: number;
  /** Bad records skipped (with skipBadLines); the first five are named in `warnings`. */
  skippedBadRecords: number;
  /** Subagents with no preceding parent turn, dropped as the Weka rules say. */
  droppedSubagents: number;
  warnings: string[];
}

/** A whole trace in memory (stats, tests); a replay streams `TraceRequest`s instead. */
export interface Trace {
  requests: TraceRequest[];
  summary: TraceLoadSummary;
}
