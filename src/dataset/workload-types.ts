// The Workload interface every workload implements, and what the run tells a workload about a finished request.
import type { RequestSpec } from './types.js';
import type { RequestRecord } from '../metrics/record.js';
import type { DynamicSchedule } from '../scheduler/executors/types.js';

/** What the run tells the workload about a finished request (multi-turn sessions feed answers back). */
export interface CompletedRequest {
  spec: RequestSpec;
  ok: boolean;
  answerText: string;
  reasoningText: string;
  record: RequestRecord;
}

export interface Workload {
  /**
   * Spec for request `index` (warmup included); undefined when the workload is exhausted, which ends the run
   * for that virtual user. May return a promise (e.g. to wait for the previous turn of a conversation).
   */
  next(index: number): RequestSpec | undefined | Promise<RequestSpec | undefined>;
  /** Called when a request finishes, before its slot is reused. */
  complete?(done: CompletedRequest): void;
  /**
   * next(i) answers at once and depends only on i and the calls before it (no answers fed back): the run may then take
   * the first requests' specs, and build their bodies, before its clock starts.
   */
  prefetchable?: boolean;
  /** Number of requests the workload holds, when finite (once-mode datasets); used as the default request count. */
  size?: number;
  /** Send times (ms from the start) for trace replay; when present they replace the arrival process. */
  arrivalTimesMs?: ArrayLike<number>;
  /** A schedule that grows as requests finish (trace sessions); when present the run uses the `sessions` executor. */
  schedule?: DynamicSchedule;
  /** What the workload is (and anything it skipped), for the run metadata. */
  describe(): Record<string, unknown>;
}

export interface WorkloadOptions {
  /** The run's stop signal: a next() that is waiting (cache A/B warm pass, multi-turn) returns undefined on abort. */
  signal?: AbortSignal;
  /** Waits `ms` on the run's clock (multi-turn think time), or less when `signal` aborts; default a real timer. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}
