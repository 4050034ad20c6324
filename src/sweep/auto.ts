// `sweep --auto` as a pure state machine: double concurrency until throughput stops growing or a level fails, then bisect.
// It only chooses levels; where throughput bends (the knee) is judged once, by the insights over every level run.

export interface AutoOptions {
  /** Stop doubling when the gain in output throughput is below this fraction (0.05 = 5%). */
  minGain: number;
  /** Bisection steps between the last two levels. */
  refine: number;
  maxConcurrency: number;
}

/** What a finished level contributes to the search. */
export interface AutoResult {
  load: number;
  output_throughput: number;
  /** Met the SLOs and the error threshold. */
  acceptable: boolean;
}

type Lvl = AutoResult;

export type AutoState =
  | { phase: 'double'; next: number; prev: Lvl | null; before: Lvl | null }
  | { phase: 'refine'; next: number; lo: Lvl; hi: Lvl; left: number; why: 'plateau' | 'failed'; stop: string; tried: number[] }
  | { phase: 'done'; reason: string };

export function autoStart(): AutoState {
  return { phase: 'double', next: 1, prev: null, before: null };
}

/** The reason once refinement ends: why doubling stopped, and which levels refined it (no verdict of its own on the knee). */
function finished(stop: string, lo: Lvl, hi: Lvl, tried: number[]): string {
  return `${stop}; refined between ${lo.load} and ${hi.load}${tried.length ? ` with level${tried.length > 1 ? 's' : ''} ${tried.join(', ')}` : ''}`;
}

function bisect(lo: Lvl, hi: Lvl, left: number, why: 'plateau' | 'failed', stop: string, tried: number[]): AutoState {
  const mid = Math.round((lo.load + hi.load) / 2);
  if (left <= 0 || mid <= lo.load || mid >= hi.load) return { phase: 'done', reason: tried.length ? finished(stop, lo, hi, tried) : stop };
  return { phase: 'refine', next: mid, lo, hi, left, why, stop, tried };
}

/**
 * Advance the search with the result of the level just run (`r.load` must equal `state.next`).
 * Doubling stops when a level is not acceptable (SLO broken or too many errors), when output throughput grew by less
 * than minGain over the previous level, or at maxConcurrency. Refinement then bisects: for a failure, between the
 * last good level and the failing one (a passing midpoint moves the lower bound up); for a plateau, between the two
 * levels before the stopping one (a midpoint that already reaches (1 − minGain) of the better bound's throughput moves
 * the upper bound down).
 */
export function autoAdvance(state: AutoState, r: AutoResult, opt: AutoOptions): AutoState {
  if (state.phase === 'done') return state;
  if (state.phase === 'double') {
    const prev = state.prev;
    if (!r.acceptable) {
      if (!prev) return { phase: 'done', reason: 'concurrency 1 already fails the SLOs or the error threshold' };
      return bisect(prev, r, opt.refine, 'failed', `concurrency ${r.load} fails the SLOs or the error threshold`, []);
    }
    if (prev && r.output_throughput < prev.output_throughput * (1 + opt.minGain)) {
      const gain = prev.output_throughput > 0 ? (r.output_throughput / prev.output_throughput - 1) * 100 : 0;
      // `prev` added no more than minGain below `r`, so the bend lies at or below `prev`: refine between the level
      // before it (the last one clearly below the plateau) and `prev`, where the knee analysis needs samples.
      const stop = `throughput plateau: output throughput grew ${gain.toFixed(1)}% from concurrency ${prev.load} to ${r.load} (< ${(opt.minGain * 100).toFixed(0)}%)`;
      return state.before ? bisect(state.before, prev, opt.refine, 'plateau', stop, []) : bisect(prev, r, opt.refine, 'plateau', stop, []);
    }
    if (r.load * 2 > opt.maxConcurrency) return { phase: 'done', reason: `reached --max-concurrency ${opt.maxConcurrency} while throughput was still growing` };
    return { phase: 'double', next: r.load * 2, prev: r, before: prev };
  }
  const { lo, hi, why } = state;
  let towardLo: boolean;
  if (!r.acceptable) towardLo = true;
  else if (why === 'failed') towardLo = false;
  else towardLo = r.output_throughput >= (1 - opt.minGain) * Math.max(lo.output_throughput, hi.output_throughput);
  const [nlo, nhi] = towardLo ? [lo, r] : [r, hi];
  return bisect(nlo, nhi, state.left - 1, why, state.stop, [...state.tried, r.load]);
}
