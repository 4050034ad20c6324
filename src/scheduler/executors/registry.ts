// Executors by kind (k6's names), and the one function that picks the run's executor from its load options.
import type { Executor, ScheduleOptions } from './types.js';
import { constantVus } from './constant-vus.js';
import { constantArrivalRate } from './constant-arrival-rate.js';
import { replay } from './replay.js';
import { rampingVusExecutor } from './ramping-vus.js';
import { rampingArrivalRate } from './ramping-arrival-rate.js';
import { sessions } from './sessions.js';
import { userCentricExecutor } from './user-centric.js';
import { byKind } from '../../util/kinds.js';

export const EXECUTORS = {
  'constant-vus': constantVus,
  'constant-arrival-rate': constantArrivalRate,
  replay,
  'ramping-vus': rampingVusExecutor,
  'ramping-arrival-rate': rampingArrivalRate,
  'user-centric': userCentricExecutor,
} as const satisfies Record<string, Executor>;

export type ExecutorKind = keyof typeof EXECUTORS;
export const EXECUTOR_KINDS = Object.keys(EXECUTORS) as ExecutorKind[];

/** The executor of a kind; an unknown kind is a UsageError listing the valid ones. */
export const getExecutor = (kind: string, name = 'executor'): Executor => byKind<Executor>(EXECUTORS, kind, name);

/** The executor of a dynamic schedule (trace sessions); not a kind of its own in EXECUTORS: it runs only with a workload's schedule. */
export const SESSIONS_EXECUTOR: Executor = sessions;

/**
 * A dynamic schedule (trace sessions) → sessions; explicit send times (a trace) → replay; --users → user-centric; else ramps/stages → ramping-arrival-rate (rate targets) or ramping-vus
 * (VU targets); else --rate → constant-arrival-rate (capped by --concurrency); else constant-vus.
 */
export function chooseExecutor(o: Pick<ScheduleOptions, 'rate' | 'arrivalTimesMs' | 'ramp' | 'dynamic' | 'users'>): Executor {
  if (o.dynamic) return sessions;
  if (o.arrivalTimesMs) return EXECUTORS.replay;
  if (o.users !== undefined) return EXECUTORS['user-centric'];
  if (o.ramp) return o.ramp.of === 'rate' ? EXECUTORS['ramping-arrival-rate'] : EXECUTORS['ramping-vus'];
  if (o.rate !== undefined) return EXECUTORS['constant-arrival-rate'];
  return EXECUTORS['constant-vus'];
}
