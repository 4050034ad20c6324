// Open-loop trace replay: stand-alone requests sent at their recorded times (scaled by --replay-speed). Built by issue 27's replay work.
import type { Workload } from '../../workload-types.js';
import type { TraceReplayContext } from './context.js';
import { UsageError } from '../../../errors.js';

export function createOpenLoopTraceWorkload(ctx: TraceReplayContext): Workload {
  throw new UsageError([`--replay: ${ctx.path}: replaying ${ctx.trace.summary.kind} traces is not built yet`]);
}
