// LoadControl: the live channel into an executor; each change of load (concurrency or rate) starts a new stage.

import { FD_RESERVE, maxInFlightByFds } from './fd-limit.js';

/** Upper bounds of a live change: the same as the flags' (config/schema.ts LOAD_LIMITS). */
export const LOAD_CHANGE_LIMITS = { concurrency: 100_000, rate: 1_000_000 } as const;

/** Stages a run records at most (run.json load_stages, summary by_stage): further changes are refused, not dropped. */
export const MAX_LIVE_STAGES = 100;

/** One stretch of a run under one load. Stage 0 is the load the run started with. */
export interface LoadStage {
  stage: number;
  /** When the stage began (ms on the run clock). */
  startedAtMs: number;
  /** Closed loop: requests kept in flight. Open loop: the in-flight cap (undefined: none). */
  concurrency: number | undefined;
  /** Open loop: requests per second (undefined in a closed loop). */
  rate: number | undefined;
}

export interface LoadChange {
  concurrency?: number;
  rate?: number;
}

/**
 * Which load an executor lets change live: `concurrency` for a closed loop (constant-vus), `rate` for an open loop
 * (constant-arrival-rate). Other executors (ramps, replay) follow a plan and accept no change.
 */
export type LiveKnob = 'concurrency' | 'rate';

/** Holds the current stage; executors read `current` per slot and listen for changes. */
export class LoadControl {
  private readonly list: LoadStage[];
  private readonly listeners = new Set<(s: LoadStage) => void>();
  private closed = false;

  constructor(
    readonly knob: LiveKnob,
    initial: Omit<LoadStage, 'stage' | 'startedAtMs'>,
    private readonly now: () => number,
    /** Most requests in flight a change may ask for: one socket each, within the open-file limit (fd-limit.ts). */
    readonly maxInFlight: number | undefined = maxInFlightByFds(),
  ) {
    this.list = [{ stage: 0, startedAtMs: 0, ...initial }];
  }

  get current(): LoadStage {
    return this.list[this.list.length - 1];
  }

  get stages(): readonly LoadStage[] {
    return this.list;
  }

  /** Problems with a change, none when it can be applied (checked before `set`, so a control surface can answer 400). */
  check(change: LoadChange): string[] {
    const problems: string[] = [];
    if (this.closed) problems.push('the run is no longer sending');
    const other: LiveKnob = this.knob === 'rate' ? 'concurrency' : 'rate';
    if (change[other] !== undefined) problems.push(`${other}: cannot be changed live in this run (only ${this.knob})`);
    const v = change[this.knob];
    const max = LOAD_CHANGE_LIMITS[this.knob];
    if (v === undefined) problems.push(`${this.knob}: missing`);
    else if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0 || v > max || (this.knob === 'concurrency' && !Number.isInteger(v)))
      problems.push(`${this.knob}: expected ${this.knob === 'concurrency' ? 'a whole number' : 'a number'} above 0 and at most ${max}`);
    else if (this.knob === 'concurrency' && this.maxInFlight !== undefined && v > this.maxInFlight)
      problems.push(
        `concurrency: ${v} requests in flight need ${v} sockets: at most ${this.maxInFlight} within this process's open-file limit (ulimit -n, less ${FD_RESERVE} kept for files and telemetry); raise the limit or run shards (--shard)`,
      );
    if (this.list.length >= MAX_LIVE_STAGES) problems.push(`at most ${MAX_LIVE_STAGES} load stages per run: this run has had ${this.list.length}; start a new run for more changes`);
    return problems;
  }

  /** Start a new stage with `change` applied; throws when `check` finds a problem. */
  set(change: LoadChange): LoadStage {
    const problems = this.check(change);
    if (problems.length) throw new Error(problems.join('; '));
    const next: LoadStage = { ...this.current, stage: this.list.length, startedAtMs: this.now(), [this.knob]: change[this.knob] };
    this.list.push(next);
    for (const l of this.listeners) l(next);
    return next;
  }

  /** Called with each new stage; returns the unsubscribe function. */
  onChange(fn: (s: LoadStage) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** No more changes (sending ended). */
  close(): void {
    this.closed = true;
    this.listeners.clear();
  }
}

/** run.json `load_stages` / summary `by_stage` load fields (snake_case). */
export function describeLoadStage(s: LoadStage): Record<string, unknown> {
  return { stage: s.stage, started_at_ms: Math.round(s.startedAtMs), concurrency: s.concurrency ?? null, rate: s.rate ?? null };
}
