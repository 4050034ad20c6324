// Which requests the client cancels on purpose (--cancel-after, --cancel-rate) and when: a pure, seeded plan per request.
import { createRng } from '../util/rng.js';

export interface CancelOptions {
  /** Seconds after send (--cancel-after). */
  cancelAfter?: number;
  /** Share of requests cancelled, 0..1 (--cancel-rate); absent with --cancel-after alone: every request. */
  cancelRate?: number;
  /** --dataset-seed (or its default): the same seed selects the same requests. */
  seed: number;
  /** --timeout in seconds: the expected life before any request has finished ok. */
  timeoutS: number;
}

/** The plan: the delay after send (ms) at which request `index` is cancelled, or undefined when it is not. */
export interface CancelPlan {
  delayMs(index: number): number | undefined;
  /** An ok request finished after `e2eMs`: it moves the expected life (used without --cancel-after). */
  observeOk(e2eMs: number): void;
}

/** Two uniform draws of request `index` under `seed`, independent of send order (so a fixed seed picks the same requests). */
export function cancelDraws(seed: number, index: number): [number, number] {
  // The index is spread over the 32-bit state (Knuth's multiplicative hash) so neighbouring ids are unrelated.
  const rng = createRng((seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0);
  return [rng.next(), rng.next()];
}

/**
 * undefined when neither flag is set. Selection: request i is cancelled when its first draw u₁ < rate (every
 * request without --cancel-rate). Delay: --cancel-after when given; else u₂ · L, where L (the request's expected
 * life) is the mean E2E of the ok requests that finished before it was sent, or --timeout while none has.
 */
export function cancelPlan(o: CancelOptions): CancelPlan | undefined {
  if (o.cancelAfter === undefined && o.cancelRate === undefined) return undefined;
  const rate = o.cancelRate ?? 1;
  const fixedMs = o.cancelAfter !== undefined ? o.cancelAfter * 1000 : undefined;
  let okCount = 0;
  let okSumMs = 0;
  return {
    delayMs(index) {
      if (rate <= 0) return undefined;
      const [u1, u2] = cancelDraws(o.seed, index);
      if (u1 >= rate) return undefined;
      if (fixedMs !== undefined) return fixedMs;
      const lifeMs = okCount > 0 ? okSumMs / okCount : o.timeoutS * 1000;
      return u2 * lifeMs;
    },
    observeOk(e2eMs) {
      okCount++;
      okSumMs += e2eMs;
    },
  };
}
