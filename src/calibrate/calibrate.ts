// Fit the engine's constants to measured runs: re-simulate each run on the virtual driver and minimise the relative TTFT/TPOT error.
import { UsageError } from '../errors.js';
import { engineOptionsSchema, resolveEngine, type EngineSpec } from '../sim/engine/config.js';
import { enginePreset } from '../sim/engine/tuning.js';
import { resimulate } from './resimulate.js';
import { minimize } from './fit.js';
import { CALIBRATED_PARAMS, type CalibratedParam } from './params.js';
import type { CalibrationPoint } from './runs.js';
import { refillGap } from './trace.js';
import { maxOf, minOf } from '../util/min-max.js';

export interface Prediction {
  ttftMs: number;
  tpotMs: number;
  outputTokensPerSecond: number;
}

export interface PointFit {
  dir: string;
  measured: Prediction;
  fitted: Prediction;
  /** (predicted − measured) / measured with the constants fitted on every run. */
  fitError: Prediction;
  /** The same with constants fitted on every other run (leave-one-out); absent with fewer than 3 runs. */
  looError?: Prediction;
}

export interface CalibrationResult {
  constants: Record<string, number>;
  defaults: Record<string, number>;
  /** Engine options shared by every run (gpu, model profile, tp, dtypes), written to the profile. */
  deployment: Record<string, unknown>;
  points: PointFit[];
  /** Median |error| over runs. */
  medianFitError: { ttft: number; tpot: number };
  medianLooError?: { ttft: number; tpot: number };
  evaluations: number;
  /** Said when the fit is weaker than it looks: fewer measured figures (TTFT and TPOT per run) than fitted constants. */
  warnings: string[];
}

/**
 * Each run gives two figures (TTFT and TPOT): with fewer figures than constants the fit is underdetermined, so many sets
 * of constants fit equally well and the profile may not predict another load.
 */
export function calibrationWarnings(runs: number, params: number): string[] {
  const figures = 2 * runs;
  if (figures >= params) return [];
  return [
    `${runs} run${runs === 1 ? ' gives' : 's give'} ${figures} measured figures (TTFT and TPOT) for ${params} constants: the fit is underdetermined, so its errors look small but other loads may be predicted badly; calibrate on ${Math.ceil(params / 2)} or more runs at different loads (docs/sim.md#engine-profiles-and-tokenflood-calibrate)`,
  ];
}

export interface CalibrateOptions {
  /** Engine options that override what the runs say (calibrate's --gpu, --model-profile, ...). */
  engine?: Record<string, unknown>;
  params?: readonly CalibratedParam[];
  /** Requests simulated per run and evaluation (fewer = faster, noisier); default min(measured, 200). */
  maxRequests?: number;
}

const DEPLOYMENT_KEYS = ['engine', 'gpu', 'modelProfile', 'tp', 'weightDtype', 'kvDtype'] as const;

/**
 * The engine preset (calibrate's --engine, else the run's), the run's engine options, calibrate's overrides, then the
 * candidate constants (modelProfile is the engine's `model`): a fit starts from the engine's scheduler, not vLLM's.
 */
function engineFor(p: CalibrationPoint, o: CalibrateOptions, constants: Record<string, number>): EngineSpec {
  const { modelProfile, ...rest } = { ...enginePreset(o.engine?.engine ?? p.engine.engine), ...p.engine, ...o.engine };
  return resolveEngine({ ...rest, model: modelProfile as string | undefined, ...constants });
}

/**
 * Re-simulate one run as it was measured (its plan, trace.ts) on the virtual driver (resimulate.ts: the engine model
 * `tokenflood simulate` predicts with) with `constants`: the same requests in
 * the same order with their lengths, the prefix-cache hits the server reported already cached, the warmup first, the
 * closed loop's first-wave stagger and refill gaps (or the open loop's schedule). Then the summary's statistics over
 * the same selection, from the records the driver returns: mean ttft_ms and mean tpot_ms of the measured (non-warmup)
 * ok requests, and output throughput = their output tokens / (last end − first send).
 */
export async function predictPoint(p: CalibrationPoint, constants: Record<string, number>, o: CalibrateOptions = {}): Promise<Prediction> {
  const engine = engineFor(p, o, constants);
  const plan = p.plan;
  const warm = plan.requests.filter((r) => r.warmup).length;
  const n = Math.max(1, Math.min(plan.requests.length, warm + (o.maxRequests ?? 200)));
  const reqs = plan.requests.slice(0, n).map((r) => ({ promptTokens: r.promptTokens, outputTokens: r.outputTokens, cachedTokens: Math.max(0, Math.min(r.cachedTokens, r.promptTokens - 1)), warmup: r.warmup }));
  const records = await resimulate(engine, reqs, {
    concurrency: p.concurrency,
    rate: p.rate,
    arrival: p.arrival,
    burstiness: p.burstiness,
    startMs: plan.startMs,
    refillGapMs: refillGap(plan),
    arrivalsMs: plan.arrivalsMs?.slice(0, n),
  });
  const ok = records.filter((r) => !r.warmup && r.status === 'ok' && r.ttft_ms !== null);
  const ttft = ok.reduce((s, r) => s + r.ttft_ms!, 0) / Math.max(1, ok.length);
  const decoding = ok.filter((r) => r.tpot_ms !== null);
  const tpot = decoding.reduce((s, r) => s + r.tpot_ms!, 0) / Math.max(1, decoding.length);
  const first = minOf(ok.map((r) => r.sent_at_ms));
  const last = maxOf(ok.map((r) => r.sent_at_ms + r.e2e_ms!));
  const out = ok.reduce((s, r) => s + (r.output_tokens ?? 0), 0);
  return { ttftMs: ttft, tpotMs: tpot, outputTokensPerSecond: last > first ? (out * 1000) / (last - first) : 0 };
}

const rel = (pred: number, meas: number): number => (meas > 0 ? (pred - meas) / meas : 0);
const errors = (pred: Prediction, meas: Prediction): Prediction => ({
  ttftMs: rel(pred.ttftMs, meas.ttftMs), tpotMs: rel(pred.tpotMs, meas.tpotMs), outputTokensPerSecond: rel(pred.outputTokensPerSecond, meas.outputTokensPerSecond),
});
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const measuredOf = (p: CalibrationPoint): Prediction => ({ ttftMs: p.ttftMs, tpotMs: p.tpotMs, outputTokensPerSecond: p.outputTokensPerSecond });

/** Default value of each fitted option for this deployment (the GPU profile's bwEfficiency, the schema's defaults). */
function defaultsFor(p: CalibrationPoint, o: CalibrateOptions, params: readonly CalibratedParam[]): Record<string, number> {
  const spec = engineFor(p, o, {});
  const schemaDefaults = engineOptionsSchema.parse({}) as Record<string, unknown>;
  const out: Record<string, number> = {};
  for (const q of params) out[q.option] = q.option === 'bwEfficiency' ? spec.gpu.bwEfficiency : (schemaDefaults[q.option] as number);
  return out;
}

interface Fit {
  constants: Record<string, number>;
  evaluations: number;
}

/**
 * Minimise mean over runs of ((TTFT_pred − TTFT)/TTFT)² + ((TPOT_pred − TPOT)/TPOT)² over the params (log space where
 * declared), with Nelder–Mead restarted from its best point (`rounds` runs in all).
 */
async function fit(points: readonly CalibrationPoint[], o: CalibrateOptions, params: readonly CalibratedParam[], start: Record<string, number>, rounds = 2): Promise<Fit> {
  const enc = (q: CalibratedParam, v: number): number => (q.log ? Math.log(v) : v);
  const dec = (q: CalibratedParam, x: number): number => (q.log ? Math.exp(x) : x);
  const toConstants = (x: number[]): Record<string, number> => Object.fromEntries(params.map((q, i) => [q.option, dec(q, x[i])]));
  const objective = async (x: number[]): Promise<number> => {
    const c = toConstants(x);
    let sum = 0;
    for (const p of points) {
      const e = errors(await predictPoint(p, c, o), measuredOf(p));
      sum += e.ttftMs ** 2 + e.tpotMs ** 2;
    }
    return sum / points.length;
  };
  const lower = params.map((q) => enc(q, q.min));
  const upper = params.map((q) => enc(q, q.max));
  let x = params.map((q) => enc(q, Math.min(q.max, Math.max(q.min, start[q.option]))));
  let evaluations = 0;
  for (let round = 0; round < rounds; round++) {
    const r = await minimize(objective, x, { lower, upper, maxEvaluations: 100 * params.length, tolerance: 1e-8, step: round === 0 && rounds > 1 ? 0.15 : 0.05 });
    x = r.x;
    evaluations += r.evaluations;
  }
  return { constants: toConstants(x), evaluations };
}

/** Fit the constants on every run, then leave each run out in turn and predict it from the others. */
export async function calibrate(points: readonly CalibrationPoint[], o: CalibrateOptions = {}): Promise<CalibrationResult> {
  if (points.length === 0) throw new UsageError(['calibrate: no runs given']);
  const params = o.params ?? CALIBRATED_PARAMS;
  const problems: string[] = [];
  for (const p of points) {
    try {
      engineFor(p, o, {});
    } catch (e) {
      if (!(e instanceof UsageError)) throw e;
      problems.push(...e.problems.map((m) => `${p.dir}: ${m}`));
    }
  }
  if (problems.length) throw new UsageError(problems);
  const defaults = defaultsFor(points[0], o, params);
  const all = await fit(points, o, params, defaults);
  let evaluations = all.evaluations;
  const fits: PointFit[] = [];
  for (const p of points) {
    const fitted = await predictPoint(p, all.constants, o);
    fits.push({ dir: p.dir, measured: measuredOf(p), fitted, fitError: errors(fitted, measuredOf(p)) });
  }
  if (points.length >= 3) {
    for (const [i, p] of points.entries()) {
      // Started from the full fit (one round): the constants move only as far as this run's absence lets them.
      const others = await fit(points.filter((_, j) => j !== i), o, params, all.constants, 1);
      evaluations += others.evaluations;
      fits[i].looError = errors(await predictPoint(p, others.constants, o), measuredOf(p));
    }
  }
  const deployment: Record<string, unknown> = {};
  for (const k of DEPLOYMENT_KEYS) {
    const vals = new Set(points.map((p) => JSON.stringify(o.engine?.[k] ?? p.engine[k] ?? null)));
    const v = o.engine?.[k] ?? points[0].engine[k];
    if (vals.size === 1 && v !== undefined) deployment[k] = v;
  }
  const med = (pick: (f: PointFit) => Prediction | undefined) => ({
    ttft: median(fits.map((f) => Math.abs(pick(f)?.ttftMs ?? 0))),
    tpot: median(fits.map((f) => Math.abs(pick(f)?.tpotMs ?? 0))),
  });
  return {
    constants: all.constants,
    defaults,
    deployment,
    points: fits,
    medianFitError: med((f) => f.fitError),
    medianLooError: points.length >= 3 ? med((f) => f.looError) : undefined,
    evaluations,
    warnings: calibrationWarnings(points.length, params.length),
  };
}
