// The --auto drivers for one input/output pair: the concurrency knee search, the open-loop rate profile and the SLO search.
import { LOAD_LIMITS } from '../config/schema.js';
import type { SloCheck } from '../metrics/slo.js';
import { describeMiss, type AutoRole, type AutoSearchReport, type AutoSearchStep, type RateProfileReport, type SloMiss, type SloSearchReport } from '../report/auto-search-model.js';
import { loadWords, type SweepRow } from '../report/sweep-model.js';
import { autoAdvance, autoStart, type AutoState } from './auto.js';
import type { SweepConfig } from './config.js';
import { makePoint, type InputOutput, type LoadMode, type PointSpec } from './grid.js';
import { profileRates, roundSig } from './rates.js';
import { bracketWidth, sloSearchAdvance, sloSearchStart, type SloSearchOptions, type SloSearchState } from './slo-search.js';

/** A point that ran: its row and its SLO checks (with the actual values). */
export interface PointOutcome {
  row: SweepRow;
  checks: SloCheck[];
}

export interface AutoPairContext {
  s: SweepConfig;
  io: InputOutput;
  /** Run one point; undefined when it could not run (the sweep's `failure` then says why). */
  run(p: PointSpec, role: AutoRole | null): Promise<PointOutcome | undefined>;
  /** The sweep is stopping: Ctrl-C, or a point could not run. */
  stopped(): boolean;
  /** Met the SLOs and the error threshold. */
  acceptable(r: SweepRow): boolean;
}

export interface AutoPairResult {
  /** Why the search stopped, in words; null when it was cut short (the sweep says why). */
  reason: string | null;
  search: AutoSearchReport | null;
}

/** A synchronous probe's rate is scaled down at most this much while every rate fails (six halvings). */
const RATE_FLOOR_FACTOR = 64;

/** What a run missed: its failed SLO checks, the error threshold, or no successful request at all. */
export function sloMisses(o: PointOutcome, maxErrorRate: number): SloMiss[] {
  const excess = (op: '<=' | '>=', limit: number, actual: number | null) =>
    actual === null || limit === 0 ? null : op === '<=' ? (actual - limit) / limit : (limit - actual) / limit;
  const out: SloMiss[] = o.checks
    .filter((c) => !c.passed)
    .map((c) => ({ name: c.name, op: c.op, limit: c.limit, actual: c.actual, unit: c.unit, excess: excess(c.op, c.limit, c.actual) }));
  const r = o.row;
  if (r.ok === 0) out.push({ name: 'ok_requests', op: '>=', limit: 1, actual: 0, unit: 'requests', excess: null });
  if (r.error_rate > maxErrorRate) out.push({ name: 'max_error_rate', op: '<=', limit: maxErrorRate, actual: r.error_rate, unit: 'ratio', excess: excess('<=', maxErrorRate, r.error_rate) });
  return out;
}

/** Runs points for one pair, each (mode, load) at most once, and records every run as a step. */
function measurer(ctx: AutoPairContext, steps: AutoSearchStep[], judged: boolean) {
  const cache = new Map<string, PointOutcome>();
  return async (mode: LoadMode, load: number, role: AutoRole | null): Promise<PointOutcome | undefined> => {
    const key = `${mode}:${load}`;
    const hit = cache.get(key);
    if (hit) return hit;
    const { s } = ctx;
    const o = await ctx.run(makePoint(mode, { load, requests: s.requests?.[0], durationS: s.duration?.[0] }, ctx.io), role);
    if (!o) return undefined;
    cache.set(key, o);
    const failed = sloMisses(o, s.maxErrorRate);
    steps.push({ point: o.row.name, mode, load, role, passed: judged ? failed.length === 0 : null, failed });
    return o;
  };
}

/** `--auto` in closed loop without SLOs: doubling, then refinement around the plateau or failure (auto.ts). */
async function kneeSearch(ctx: AutoPairContext): Promise<AutoPairResult> {
  const measure = measurer(ctx, [], false);
  let st: AutoState = autoStart();
  while (st.phase !== 'done' && !ctx.stopped()) {
    const o = await measure('concurrency', st.next, null);
    if (!o) break;
    st = autoAdvance(st, { load: o.row.load, output_throughput: o.row.output_throughput, acceptable: ctx.acceptable(o.row) }, ctx.s);
  }
  return { reason: st.phase === 'done' ? st.reason : null, search: null };
}

const rateText = (r: number) => `${roundSig(r, 3)} req/s`;

/**
 * Open-loop `--auto` without SLOs, as GuideLLM's sweep: concurrency 1 (synchronous: one request at a time) measures one
 * stream's request rate, concurrency --max-concurrency (throughput) the maximal one, then --auto-rates open-loop
 * rates evenly between them (rates.ts), each a normal point sent by --arrival.
 */
async function rateProfile(ctx: AutoPairContext): Promise<AutoPairResult> {
  const { s } = ctx;
  const steps: AutoSearchStep[] = [];
  const report: RateProfileReport = { goal: 'profile', mode: 'rate', runs: 0, synchronous_rate: null, max_rate: null, rates: [], steps };
  const measure = measurer(ctx, steps, false);
  const result = (reason: string | null): AutoPairResult => ((report.runs = steps.length), { reason, search: report });
  const sync = await measure('concurrency', 1, 'synchronous');
  if (!sync) return result(null);
  report.synchronous_rate = sync.row.request_throughput;
  const top = ctx.stopped() ? undefined : await measure('concurrency', s.maxConcurrency, 'throughput');
  if (!top) return result(null);
  report.max_rate = top.row.request_throughput;
  report.rates = profileRates(report.synchronous_rate, report.max_rate, s.autoRates);
  const probes = `synchronous probe (concurrency 1) ${rateText(report.synchronous_rate)}, throughput run (concurrency ${s.maxConcurrency}) ${rateText(report.max_rate)}`;
  if (!report.rates.length) return result(`${probes}: the throughput run measured no higher request rate than one stream, so there are no rates between them to run`);
  for (const r of report.rates) {
    if (ctx.stopped() || !(await measure('rate', r, null))) return result(null);
  }
  return result(`open-loop profile: ${probes}; ${report.rates.length} rates between them (${report.rates.join(', ')} req/s); ${steps.length} runs`);
}

/** `--auto --slo`: bracketing and bisection (slo-search.ts); a rate search starts from a synchronous probe's request rate. */
async function sloSearch(ctx: AutoPairContext): Promise<AutoPairResult> {
  const { s } = ctx;
  const steps: AutoSearchStep[] = [];
  const report: SloSearchReport = {
    goal: 'slo', mode: s.mode, runs: 0, bracket: [null, null], precision_target: s.searchPrecision, precision_reached: null, converged: false, stop: 'ended_early', steps,
  };
  const measure = measurer(ctx, steps, true);
  const result = (reason: string | null): AutoPairResult => ((report.runs = steps.length), { reason, search: report });
  let opt: SloSearchOptions;
  const precision = s.searchPrecision;
  if (s.mode === 'concurrency') opt = { start: 1, min: 1, max: s.maxConcurrency, integer: true, precision, maxRuns: s.autoMaxRuns };
  else {
    const probe = await measure('concurrency', 1, 'synchronous');
    if (!probe) return result(null);
    const start = roundSig(probe.row.request_throughput);
    if (!(start > 0)) {
      report.stop = 'probe_failed';
      return result('the synchronous probe (concurrency 1) completed no request: no request rate to start the search from');
    }
    opt = { start, min: start / RATE_FLOOR_FACTOR, max: LOAD_LIMITS.ratePerS, integer: false, precision, maxRuns: s.autoMaxRuns - 1 };
  }
  let st: SloSearchState = sloSearchStart(opt);
  while (st.next !== null && !ctx.stopped()) {
    const o = await measure(s.mode, st.next, null);
    // A run cut short by Ctrl-C measured less than asked: it does not move the bracket.
    if (!o || ctx.stopped()) break;
    st = sloSearchAdvance(st, st.next, ctx.acceptable(o.row), opt);
  }
  report.bracket = [st.pass, st.fail];
  report.precision_reached = bracketWidth(st);
  report.converged = st.stop === 'precision' || st.stop === 'resolution';
  if (st.stop === null) return result(null);
  report.stop = st.stop;
  report.runs = steps.length;
  return result(describeSloSearch(report, s));
}

/** The search's outcome in one sentence: the answer, the bracket, the precision reached against the target, the runs. */
export function describeSloSearch(r: SloSearchReport, s: Pick<SweepConfig, 'maxConcurrency' | 'autoMaxRuns'>): string {
  const w = (x: number) => loadWords(r.mode, x);
  const [pass, fail] = r.bracket;
  const missAt = (load: number | null) => {
    const step = r.steps.find((x) => x.mode === r.mode && x.load === load);
    return step && step.failed.length ? ` — ${step.failed.map(describeMiss).join(', ')}` : '';
  };
  const target = r.precision_target.kind === 'absolute' ? String(r.precision_target.value) : `${r.precision_target.value * 100}%`;
  const p = r.precision_reached;
  const width = p ? `width ${roundSig(p.absolute, 4)}${p.relative !== null ? ` (${(p.relative * 100).toFixed(1)}%)` : ''}` : 'open';
  const runs = `${r.runs} run${r.runs === 1 ? '' : 's'}`;
  const bracket = `bracket [${pass ?? '–'}, ${fail ?? '–'}], ${width}, target ${target}`;
  if (r.stop === 'min_load_fails') return `no load meets the SLOs: even ${w(fail!)} fails${missAt(fail)}; ${runs}`;
  if (r.stop === 'max_load_passes') return `${w(pass!)}, the highest allowed (--max-concurrency ${s.maxConcurrency}), still meets the SLOs: the limit is higher; ${runs}`;
  const head = pass === null ? 'no passing load found yet' : `highest load meeting the SLOs: ${w(pass)}`;
  const tail = fail === null ? '' : `; lowest failing: ${w(fail)}${missAt(fail)}`;
  if (r.stop === 'max_runs') return `${head}${tail}; stopped at --auto-max-runs ${s.autoMaxRuns} before the precision was reached: ${bracket}; ${runs}`;
  return `${head}${tail}; ${bracket}${r.stop === 'resolution' ? ' (no load fits between the bounds)' : ' reached'}; ${runs}`;
}

/** Run the --auto search the config asks for on one input/output pair. */
export function runAutoPair(ctx: AutoPairContext): Promise<AutoPairResult> {
  if (ctx.s.slo) return sloSearch(ctx);
  return ctx.s.mode === 'rate' ? rateProfile(ctx) : kneeSearch(ctx);
}
