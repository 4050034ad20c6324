// When a session's next turn is due: its predecessor's end, plus the mocked tool time and the think time (--think-time), each capped by --max-idle-gap.
import type { TraceRequest } from '../model.js';

export interface SessionTimingOptions {
  /** --think-time: recorded (also 0, the default), gap, none, or a fixed number of seconds. */
  thinkTime: number | 'recorded' | 'gap' | 'none';
  /** --replay-speed: recorded waits are divided by it. */
  speed: number;
  /** --max-idle-gap in seconds: the cap on each wait. */
  maxIdleGapS?: number;
}

/** How long a turn waits after its predecessor ended: the predecessor's tool call, then the think time, ms on the run clock. */
export interface TurnWait {
  toolMs: number;
  thinkMs: number;
}

/**
 * The wait before `next`, whose predecessor `prev` (the same agent's previous turn, or for a subagent's first turn the
 * parent turn that spawned it) was sent at `prevSentMs` and ended at `prevEndMs` (run clock). With speed X and cap G:
 *   tool  = min(G, prev.toolMs / X)                                     (0 without a recorded tool call)
 *   gap   = max(0, (next.atMs − prev.atMs) / X − (prevEndMs − prevSentMs) − tool)   (0 without both times)
 *   think = recorded: min(G, next.gapMs / X) when the trace records it (think_time, delay), else min(G, gap);
 *           gap: min(G, gap); none: 0; a duration d: d (not scaled).
 * `gap` keeps the recorded spacing of sends where the replayed turn was faster than the recorded one, and never waits
 * less than nothing: a slower server pushes the rest of the session later.
 */
export function turnWait(prev: TraceRequest, next: TraceRequest, prevSentMs: number, prevEndMs: number, o: SessionTimingOptions): TurnWait {
  const cap = (ms: number): number => (o.maxIdleGapS !== undefined ? Math.min(ms, o.maxIdleGapS * 1000) : ms);
  const toolMs = prev.toolMs !== undefined ? cap(prev.toolMs / o.speed) : 0;
  const gap = (): number =>
    prev.atMs !== undefined && next.atMs !== undefined ? cap(Math.max(0, (next.atMs - prev.atMs) / o.speed - (prevEndMs - prevSentMs) - toolMs)) : 0;
  const t = o.thinkTime;
  const thinkMs = typeof t === 'number' && t > 0 ? t * 1000 : t === 'none' ? 0 : t === 'gap' ? gap() : next.gapMs !== undefined ? cap(next.gapMs / o.speed) : gap();
  return { toolMs, thinkMs };
}
