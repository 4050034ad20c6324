// A driver is a clock plus a backend: real (wall clock, HTTP to a server) or virtual (virtual clock, the engine model).
import type { LadderResult } from './validate-ladder.js';
import type { Waits } from '../scheduler/scheduler.js';
import type { ExecuteResult } from '../backends/execute.js';
import type { WireInput } from '../backends/sender.js';
import type { RequestSpec } from '../dataset/types.js';
import type { TimelineSource } from '../telemetry/source.js';

/** One request as the lifecycle hands it over; the driver knows where it goes and with which headers. */
export type RequestInput = Omit<WireInput, 'url' | 'headers'>;

/** The run clock: ms since the run started, and how to wait on it. */
export interface DriverClock extends Waits {
  now(): number;
}

/** --start-at and --shard: start the run clock at a wall-clock time, and say when it started. */
export interface StartOptions {
  sync?: boolean;
  startAtUnixMs?: number;
  signal?: AbortSignal;
}

/** What the driver found out about its target before anything is sent. */
export interface OpenedTarget {
  /** The model id to request, as the server (or engine) names it. */
  model: string;
  /** The same id as shown and stored (a server may echo a key in it). */
  shownModel: string;
  /** The target as shown (redacted), for the start message. */
  shownBaseUrl: string;
  embedded: boolean;
  /** run.json fields that come before `model` (target_url, embedded_server, ...). */
  metaHead: Record<string, unknown>;
  /** run.json fields after `workload` (sim_time_scale, engine, ...). */
  metaTail: Record<string, unknown>;
  /** The target as requested (not stored: it may carry a query-string secret), for timeline sources; real driver only. */
  baseUrl?: string;
  /** max_model_len the preflight read from /models, when listed. */
  maxModelLen?: number | null;
}

/** Client self-health, judged on the real driver only (a virtual clock has no lateness of its own). */
export interface SendHealth {
  recordSendLag(ms: number): void;
  recordDropped(): void;
}

export interface Driver {
  readonly kind: 'real' | 'virtual';
  readonly clock: DriverClock;
  /** False when the backend never reads a request body (the engine model takes the spec): bodies are not built. */
  readonly needsBody: boolean;
  /** Contact the target (the real driver's preflight). Throws UsageError/TokenfloodError before anything is sent. */
  open(signal?: AbortSignal): Promise<OpenedTarget>;
  /**
   * Get ready to send (sender threads) and start the run clock at 0; returns run.json fields (workers, transport).
   * With `sync`, the real driver waits until `startAtUnixMs` (when given) right before the clock starts, and returns
   * `clock_origin_unix_ms` (the wall time of run time 0) and `started_late_ms` (docs/distributed.md).
   */
  start(o?: StartOptions): Promise<Record<string, unknown>>;
  /** Several endpoints: the one this request goes to (pass `target` to execute), its name and model (docs/routing.md). */
  route?(spec: RequestSpec): { target: number; endpoint: string; model: string };
  /** run --validate: the validation ladder against each endpoint, after open() and before any load (real servers only). */
  validate?(spec: RequestSpec, say: (line: string) => void, signal?: AbortSignal): Promise<LadderResult>;
  execute(inp: RequestInput, spec: RequestSpec, target?: number): Promise<ExecuteResult>;
  /** Cancel every request in flight (they end as `cancelled`). */
  cancelAll(): void;
  /** Content events received so far by requests in flight and done (the live token counter), when counted. */
  contentEvents?(): number;
  /** TTFTs of measured requests whose first token arrived since the last call (the live TTFT), when noted. */
  firstTokens?(): number[];
  readonly health?: SendHealth;
  /** The virtual driver's own timeline sources (the engine model's /metrics on the virtual clock), run instead of the lifecycle's. */
  timelineSources?(): TimelineSource[];
  /**
   * Run the lifecycle's main loop on this driver's clock. The real driver just awaits it; the virtual one moves
   * virtual time forward whenever everything waiting on the present has run.
   */
  drive<T>(main: () => Promise<T>): Promise<T>;
  /** Stop measuring; run.json fields known only at the end (client health, simulation statistics). */
  finish(): Record<string, unknown>;
  close(): Promise<void>;
}
