// What every executor (a scheduling loop: when each request goes out) takes, calls and describes.
import type { Rng } from '../../util/rng.js';
import type { ArrivalKind } from '../arrivals.js';
import type { RampPlan } from '../stages.js';
import type { RequestPhase } from '../../metrics/record.js';
import type { LiveKnob, LoadControl } from '../load-control.js';
import type { ShardSpec } from '../shard.js';

export interface Slot {
  /** 0-based request index; indexes below `warmup` are warmup requests. */
  index: number;
  warmup: boolean;
  /** When the schedule wanted it sent (ms on the run clock). */
  scheduledAtMs: number;
  /**
   * When it could first have been sent: the scheduled time, or later when the in-flight cap (--rate with
   * --concurrency) held it back. Lateness beyond this is the client's own.
   */
  readyAtMs: number;
  /** The stage it was scheduled in: ramp-up, steady or ramp-down (always steady without ramps). */
  phase: RequestPhase;
  /** The live load stage it was sent in (LoadControl), undefined when the run has no live control. */
  stage?: number;
  /** user-centric executor: the 0-based user that sent it (record field `user`). */
  user?: number;
}

/**
 * How a schedule waits: real timers (the default) or a virtual clock (simulate), which moves time forward only
 * when everything waiting on the present has run.
 */
export interface Waits {
  /** Resolves at `atMs` on the run clock, or at once when `signal` aborts. */
  sleepUntil(atMs: number, signal?: AbortSignal): Promise<void>;
  /** Lets other work (sockets, signals) run when a loop is behind schedule; takes no time on the run clock. */
  yield(): Promise<void>;
}

export interface ScheduleOptions {
  concurrency?: number;
  rate?: number;
  arrival: ArrivalKind;
  burstiness: number;
  warmup: number;
  /** Measured requests to send (warmup excluded). */
  requests?: number;
  /** Stop sending this long after the first measured request was due. */
  durationMs?: number;
  rng: Rng;
  now: () => number;
  /** How to wait on `now`'s clock; default real timers. */
  waits?: Waits;
  /** Stops issuing new requests when aborted (graceful stop). */
  signal?: AbortSignal;
  /** Explicit send times (ms from start), e.g. trace replay; replaces the rate's arrival process. */
  arrivalTimesMs?: ArrayLike<number>;
  /**
   * Ramps and stages (--ramp-up/--ramp-down/--stages): the load follows these targets, and `durationMs` then counts
   * from the start of the stages, warmup included.
   */
  ramp?: RampPlan;
  /** Live load changes (constant-vus: concurrency; constant-arrival-rate: rate); each change starts a stage. */
  control?: LoadControl;
  /**
   * --shard: this process runs one shard of the run. Indexes, warmup and requests stay the single-machine plan's;
   * a closed loop takes indexes i, i+N, … (concurrency is then the shard's own streams), an open loop the arrivals
   * of the one global sequence whose index ≡ i (mod N) (k6's execution segments).
   */
  shard?: ShardSpec;
  /** The user-centric executor: this many users (--users), each sending `userRate` requests/s (--user-rate). */
  users?: number;
  userRate?: number;
  /** A schedule that grows as requests finish (trace sessions): replaces the arrival process; runs the `sessions` executor. */
  dynamic?: DynamicSchedule;
}

/** One request the dynamic schedule has made due: when (ms on the run clock) and whether it is a warmup. */
export interface DueItem {
  atMs: number;
  warmup: boolean;
}

/**
 * A schedule whose items become known only as earlier requests finish (a session's turn is due after its predecessor
 * ended): the workload keeps the due items, the executor sends the earliest once its time has come.
 */
export interface DynamicSchedule {
  /** Called once when the run starts: the run clock, and `notify` to call whenever an item is added or the schedule ends. */
  begin(now: () => number, notify: () => void): void;
  /** The earliest due item known now, undefined when none is. */
  peek(): DueItem | undefined;
  /** Takes the earliest item for request `index`: the workload's next(index) returns its spec. */
  take(index: number): void;
  /** True when no item will ever be added again. */
  done(): boolean;
}

/** `send` returns false when the workload has nothing more for this slot: that ends the loop. */
export type SendFn = (slot: Slot) => Promise<boolean>;

/** What an executor's description (run.json `executor`) is built from: the load options, no clock or RNG. */
export type ExecutorParams = Pick<ScheduleOptions, 'concurrency' | 'rate' | 'arrival' | 'burstiness' | 'ramp' | 'users' | 'userRate'>;

export interface Executor {
  readonly kind: string;
  /** Open loop: requests are due at scheduled times, whether or not earlier ones have finished. */
  readonly openLoop: boolean;
  /** The load this executor lets change during the run (ScheduleOptions.control); absent: none. */
  readonly liveKnob?: LiveKnob;
  /** Run the schedule, calling `send` for every slot; resolves when every sent request has finished. */
  run(o: ScheduleOptions, send: SendFn): Promise<void>;
  /** run.json `executor`: the kind and its k6-style options (snake_case). */
  describe(p: ExecutorParams): Record<string, unknown>;
}
