// `sweep --auto --slo` as a pure state machine: the highest load meeting every SLO, by bracketing (doubling or halving), then bisection.
import { roundSig } from './rates.js';

/** When the bracket is narrow enough: lowest failing − highest passing ≤ value (absolute), or that gap / highest passing ≤ value (relative). */
export type Precision = { kind: 'absolute' | 'relative'; value: number };

export interface SloSearchOptions {
  /** First load measured. */
  start: number;
  /** Lowest load halving may reach; below it the search gives up (even the lowest load fails). */
  min: number;
  /** Highest load doubling may reach (it is measured itself when doubling would pass it). */
  max: number;
  /** Whole loads (concurrency); otherwise rates, rounded to 3 significant digits. */
  integer: boolean;
  precision: Precision;
  /** Measurements this machine may make. */
  maxRuns: number;
}

/**
 * Why the search stopped: `precision` (the bracket is within the precision), `resolution` (no load fits between the
 * bounds: adjacent concurrencies), `max_runs`, `max_load_passes` (the highest load allowed met the SLOs: the limit
 * may be higher), `min_load_fails` (the lowest load tried failed: nothing meets the SLOs).
 */
export type SloSearchStop = 'precision' | 'resolution' | 'max_runs' | 'max_load_passes' | 'min_load_fails';

export interface SloSearchState {
  /** The next load to measure; null once the search is done. */
  next: number | null;
  /** Highest passing load measured, or null. Every load measured below it that passed is lower still. */
  pass: number | null;
  /** Lowest failing load measured above `pass`, or null. */
  fail: number | null;
  /** Loads measured, in order, with their verdicts. */
  steps: { load: number; passed: boolean }[];
  stop: SloSearchStop | null;
}

export function sloSearchStart(opt: SloSearchOptions): SloSearchState {
  return { next: opt.start, pass: null, fail: null, steps: [], stop: null };
}

/** fail − pass, and that gap relative to pass; null while one side of the bracket is open. */
export function bracketWidth(st: Pick<SloSearchState, 'pass' | 'fail'>): { absolute: number; relative: number | null } | null {
  if (st.pass === null || st.fail === null) return null;
  const absolute = st.fail - st.pass;
  return { absolute, relative: st.pass > 0 ? absolute / st.pass : null };
}

function withinPrecision(st: SloSearchState, p: Precision): boolean {
  const w = bracketWidth(st);
  if (!w) return false;
  return p.kind === 'absolute' ? w.absolute <= p.value + 1e-12 : w.relative !== null && w.relative <= p.value + 1e-12;
}

/** A load strictly between lo and hi near their midpoint, or null when none exists at the load's resolution. */
function midpoint(lo: number, hi: number, integer: boolean): number | null {
  if (integer) {
    const m = Math.floor((lo + hi) / 2);
    return m > lo && m < hi ? m : null;
  }
  const exact = (lo + hi) / 2;
  for (let d = 3; d <= 15; d++) {
    const m = roundSig(exact, d);
    if (m > lo && m < hi) return m;
  }
  return null;
}

const done = (st: SloSearchState, stop: SloSearchStop): SloSearchState => ({ ...st, next: null, stop });

/**
 * Advance with the verdict of the load just measured (`load` must equal `state.next`). Bracketing: from the start,
 * double while loads pass (capped at max) or halve while they fail (down to min), until one passing and one failing
 * load bound the limit. Bisection: measure a load halfway between them; a pass raises the lower bound, a failure
 * lowers the upper one. Every load measured lies strictly inside the current bracket, so none is measured twice. The
 * SLOs are taken to be monotone in load (a load above a failing one fails too), as for latency and error objectives.
 */
export function sloSearchAdvance(state: SloSearchState, load: number, passed: boolean, opt: SloSearchOptions): SloSearchState {
  if (state.next === null) return state;
  let st: SloSearchState = { ...state, steps: [...state.steps, { load, passed }] };
  if (passed) st.pass = load;
  else st.fail = load;
  if (st.pass !== null && st.fail !== null) {
    if (withinPrecision(st, opt.precision)) return done(st, 'precision');
    const mid = midpoint(st.pass, st.fail, opt.integer);
    if (mid === null) return done(st, 'resolution');
    st = { ...st, next: mid };
  } else if (passed) {
    if (load >= opt.max) return done(st, 'max_load_passes');
    st = { ...st, next: Math.min(opt.max, opt.integer ? load * 2 : roundSig(load * 2)) };
  } else {
    const half = opt.integer ? Math.floor(load / 2) : roundSig(load / 2);
    if (half < opt.min || half <= 0) return done(st, 'min_load_fails');
    st = { ...st, next: half };
  }
  return st.steps.length >= opt.maxRuns ? done(st, 'max_runs') : st;
}
