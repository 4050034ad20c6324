// A timeline source: something sampled on the run clock beside the requests (server /metrics, GPUs), and what it adds.

export interface SourceContext {
  /** The run clock: ms since the run started (0 = when the senders were ready). */
  now(): number;
  outDir: string;
  /** True on the virtual driver; the lifecycle then runs only the driver's own sources (docs/simulate.md). */
  virtual: boolean;
  /** Print one line for the user (stderr): e.g. that the server serves no metrics. Never secrets; server text made inert. */
  notice(line: string): void;
  /** Each sample as it is taken, for live views (the dashboard); the source writes it to its file as before. */
  onSample?(s: TimelineSample): void;
}

/** A live sample: one server /metrics scrape (its server_metrics.jsonl line) or one GPU/host reading (a gpu_metrics.jsonl line). */
export type TimelineSample = { source: 'server'; tMs: number; line: Record<string, unknown> } | { source: 'gpu'; tMs: number; line: Record<string, unknown> };

/** What a source adds to the results once it stopped. */
export interface SourceResult {
  /** run.json fields (e.g. `server_identity`, `server_metrics`). */
  meta?: Record<string, unknown>;
  /** Files it wrote in outDir, in full. */
  files?: string[];
}

/**
 * Started after the senders are ready, before the first request; stopped after the last request finished. It must
 * never delay a request: its own connections, its own timers, deadlines on everything it waits for. Its summary
 * section is derived afterwards from the files it wrote (`report` derives it the same way).
 */
export interface TimelineSource {
  readonly name: string;
  /**
   * Optional: work that takes time but needs no run clock (a worker thread to spawn), done before the clock starts,
   * so that start() — on the run clock, before the first request — is quick.
   */
  prepare?(): Promise<void>;
  start(ctx: SourceContext): void | Promise<void>;
  stop(): Promise<SourceResult>;
}
