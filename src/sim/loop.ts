// Real-time step loop: runs engine steps at absolute wall-clock deadlines (scaled), sleeping while idle.
import type { Engine, StepResult } from './engine/engine.js';
import { MAX_TIMER_MS } from '../util/timer.js';

export interface RealtimeLoop {
  /** Simulated ms since the loop was created, read from the wall clock. */
  nowSimMs(): number;
  /** Call after adding a request: starts a step if the engine was idle. */
  wake(): void;
  close(): void;
}

export interface RealtimeLoopOptions {
  engine: Engine;
  /** Simulated ms per wall-clock ms; 10 = ten times faster than real time. */
  timeScale: number;
  /** Called at the end of each step with the step and its simulated start/end times. */
  onStep(step: StepResult, startSimMs: number, endSimMs: number): void;
  /** Wall clock in ms (injectable for tests). */
  clock?: () => number;
}

/**
 * Each step ends at an absolute simulated deadline (previous end + step duration), so timer lateness never
 * accumulates: when the process wakes late, every step already due is delivered at once and the loop catches up.
 */
export function createRealtimeLoop(o: RealtimeLoopOptions): RealtimeLoop {
  const clock = o.clock ?? (() => performance.now());
  const t0 = clock();
  const nowSimMs = (): number => (clock() - t0) * o.timeScale;
  // Capped at the longest timer (a longer one fires after 1 ms); tick() sleeps again until the step is due.
  const wallDelayMs = (simMs: number): number => Math.min(MAX_TIMER_MS, Math.max(0, t0 + simMs / o.timeScale - clock()));
  let timer: NodeJS.Timeout | undefined;
  let pending: { step: StepResult; start: number; end: number } | undefined = undefined;
  let closed = false;

  type Pending = { step: StepResult; start: number; end: number };
  const begin = (startSimMs: number): Pending | undefined => {
    const step = o.engine.step();
    return step ? { step, start: startSimMs, end: startSimMs + step.durationMs } : undefined;
  };
  const tick = (): void => {
    timer = undefined;
    // Deliver every step whose deadline has passed, then sleep until the next one.
    for (let guard = 0; guard < 100_000; guard++) {
      const due = pending;
      if (!due || closed || due.end > nowSimMs()) break;
      o.onStep(due.step, due.start, due.end);
      pending = begin(due.end);
    }
    if (pending && !closed) timer = setTimeout(tick, wallDelayMs(pending.end));
  };

  return {
    nowSimMs,
    wake() {
      if (closed || pending) return;
      pending = begin(nowSimMs());
      if (pending) timer = setTimeout(tick, wallDelayMs(pending.end));
    },
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      pending = undefined;
    },
  };
}
