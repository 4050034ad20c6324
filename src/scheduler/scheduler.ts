// The scheduler: runs the executor the load options choose (src/scheduler/executors/), calling `send` for every slot.
import { chooseExecutor } from './executors/registry.js';
import type { ScheduleOptions, SendFn } from './executors/types.js';

export type { Executor, ExecutorParams, ScheduleOptions, SendFn, Slot, Waits } from './executors/types.js';
export { phaseAt, rampPlan, type RampPlan, type Stage } from './stages.js';
export { realWaits, sleepUntil } from './executors/limits.js';
export { chooseExecutor, EXECUTORS, EXECUTOR_KINDS, getExecutor, type ExecutorKind } from './executors/registry.js';

/** Run the schedule, calling `send` for every slot; resolves when every sent request has finished. */
export function runSchedule(o: ScheduleOptions, send: SendFn): Promise<void> {
  return chooseExecutor(o).run(o, send);
}
