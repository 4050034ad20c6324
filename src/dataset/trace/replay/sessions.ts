// Session trace replay: each session turn by turn, subagents spawned and joined, think and tool waits; --sessions N closed loop.
import type { Workload } from '../../workload-types.js';
import type { TraceReplayContext } from './context.js';
import { UsageError } from '../../../errors.js';

export function createSessionTraceWorkload(ctx: TraceReplayContext): Workload {
  throw new UsageError([`--replay: ${ctx.path}: replaying sessions of ${ctx.trace.summary.kind} traces is not built yet`]);
}
