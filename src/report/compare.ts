// Compare runs or sweeps: per-metric absolute and relative deltas, which direction is better, and regressions beyond a threshold.
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import type { MetricsBlock, Summary } from '../metrics/summary.js';
import { promptCacheWarning } from '../metrics/prompt-cache.js';
import { rowPairLabel, type SweepDoc, type SweepRow } from './sweep-model.js';
import { readRunSummary, readSummaryJson } from './results-dir.js';
import { readSweepDoc } from './html/sweep-report.js';
import { kindWarnings, readRunJson, runKind, type RunKind } from './compare-kind.js';
import { isFilePath, loadVllmResult, runAsVllm, type LatencySamples } from './compat/vllm-read.js';
import { metricDefs, BUILTIN_METRICS, distOf, shownIn, type MetricDef } from '../metrics/registry/index.js';
import { isExtraPercentileKey, extraPercentilePrefixes, extraPercentileMetrics, extraPercentilesOf, extraValuesFromMetrics, extraValuesFromRow } from './compare-percentiles.js';
import { ARTIFACTS, hasArtifact } from '../artifacts/registry.js';
import { turnTtftDeltas, type TurnTtftDelta } from './compare-turns.js';
import { imagesTtftDeltas, type ImagesTtftDelta } from './compare-images.js';
import { perRequestTest, runLevelTest, untested, type CompareTest, type Significance } from './compare-significance.js';
import { runSamples } from './compare-samples.js';
import { isRepeatedRunDir, readRepeatedRuns, type RepeatedRuns } from './compare-runs.js';
import { compareIdentity, identityDir, type IdentityRow } from './compare-identity.js';

export interface CompareMetric {
  key: string;
  label: string;
  unit: string;
  better: 'higher' | 'lower';
  /** When set, a regression is an absolute worsening beyond this (for rates that are often 0), not a relative one. */
  absoluteLimit?: number;
}

/** The run-level rows before the registry's and the one after them. */
const THROUGHPUT_METRICS: readonly CompareMetric[] = [
  { key: 'output_throughput', label: 'output throughput', unit: 'tok/s', better: 'higher' },
  { key: 'request_throughput', label: 'request throughput', unit: 'req/s', better: 'higher' },
  { key: 'total_token_throughput', label: 'total token throughput', unit: 'tok/s', better: 'higher' },
];
const ERROR_RATE_METRIC: CompareMetric = { key: 'error_rate', label: 'error rate', unit: 'ratio', better: 'lower', absoluteLimit: 0.01 };

type Compared = MetricDef & Required<Pick<MetricDef, 'compare'>>;
const compared = (defs: readonly MetricDef[]): Compared[] => defs.filter((d): d is Compared => shownIn(d, 'compare') && d.compare !== undefined);

/** The metrics compared, in display order: throughputs, each registry metric's rows (`ttft_p50` "TTFT p50"), error rate. */
export function compareMetrics(defs: readonly MetricDef[] = metricDefs()): CompareMetric[] {
  const rows = compared(defs).flatMap((d) => d.compare.stats.map((st) => ({ key: `${d.compare.key}_${st}`, label: `${d.compare.label} ${st}`, unit: d.compare.unit, better: d.compare.better })));
  return [...THROUGHPUT_METRICS, ...rows, ERROR_RATE_METRIC];
}

/** The built-in metrics compared, in display order (compareMetrics() adds registered ones). */
export const COMPARE_METRICS: readonly CompareMetric[] = compareMetrics(BUILTIN_METRICS);
export const COMPARE_KEYS = COMPARE_METRICS.map((m) => m.key);

export type MetricValues = Record<string, number | null>;

export function valuesFromMetrics(m: MetricsBlock): MetricValues {
  const out: MetricValues = { output_throughput: m.output_throughput, request_throughput: m.request_throughput, total_token_throughput: m.total_token_throughput };
  // A metric the summary lacks (written before it existed) has no rows on this side.
  for (const d of compared(metricDefs())) {
    const dist = distOf(m, d);
    if (dist) for (const st of d.compare.stats) out[`${d.compare.key}_${st}`] = dist[st];
  }
  out.error_rate = m.requests.error_rate;
  return out;
}

export function valuesFromRow(r: SweepRow): MetricValues {
  const out: MetricValues = { output_throughput: r.output_throughput, request_throughput: r.request_throughput, total_token_throughput: r.total_token_throughput };
  // Row columns are `<key>_<stat>_<suffix>` (ttft_p50_ms, output_speed_p50_tok_s); a registered metric's only when the row has it.
  const row = r as unknown as Record<string, number | null | undefined>;
  for (const d of compared(metricDefs()))
    for (const st of d.compare.stats) {
      const col = `${d.compare.key}_${st}_${d.compare.sweepSuffix}`;
      if (col in row || BUILTIN_METRICS.includes(d)) out[`${d.compare.key}_${st}`] = row[col] ?? null;
    }
  out.error_rate = r.error_rate;
  return out;
}

export interface MetricDelta {
  metric: string;
  label: string;
  unit: string;
  better: 'higher' | 'lower';
  baseline: number | null;
  candidate: number | null;
  /** candidate − baseline. */
  delta: number | null;
  /** (candidate − baseline) / |baseline|; null when the baseline is 0 or missing. */
  relative: number | null;
  /** The threshold this row is judged by: its --fail-on METRIC=N%, else --threshold (error_rate: its absolute limit). */
  threshold_pct: number;
  /** Worse than the baseline by more than the threshold, before any test. */
  beyond_threshold: boolean;
  /** The test behind p (docs/metrics.md#tests-in-compare); null when none applies (`note` says why). */
  test: CompareTest | null;
  /** 95% interval of delta (candidate − baseline). */
  ci95: [number, number] | null;
  /** Two-sided p-value of "no difference"; null when untested. */
  p: number | null;
  /** p < alpha; null when untested. */
  significant: boolean | null;
  note?: string;
  /** regressed / improved: beyond the threshold and (mode significant) significant or untested; within noise: beyond it but not significant. */
  verdict: 'regressed' | 'improved' | 'within noise' | 'same' | 'n/a';
  regressed: boolean;
  improved: boolean;
}

/** How --fail-on judges a row: `significant` (default): beyond the threshold and p < alpha; `strict`: beyond the threshold alone. */
export type FailOnMode = 'significant' | 'strict';

export interface JudgeOptions {
  alpha: number;
  mode: FailOnMode;
  /** Per-metric thresholds in % from --fail-on METRIC=N% (error_rate: percentage points). */
  thresholds: Record<string, number>;
}

export const DEFAULT_ALPHA = 0.05;
const DEFAULT_JUDGE: JudgeOptions = { alpha: DEFAULT_ALPHA, mode: 'significant', thresholds: {} };

/**
 * One metric's delta. Worse = lower for higher-is-better metrics, higher for lower-is-better ones.
 * Regressed when worse by more than thresholdPct % of the baseline (or, for metrics with an absolute limit such as
 * error_rate, by more than that limit); improved when better by the same margin. Missing values never regress.
 */
export function metricDelta(m: CompareMetric, baseline: number | null, candidate: number | null, thresholdPct: number): MetricDelta {
  const out: MetricDelta = {
    metric: m.key, label: m.label, unit: m.unit, better: m.better, baseline, candidate, delta: null, relative: null,
    threshold_pct: m.absoluteLimit !== undefined ? m.absoluteLimit * 100 : thresholdPct, beyond_threshold: false,
    test: null, ci95: null, p: null, significant: null, verdict: 'n/a', regressed: false, improved: false,
  };
  if (baseline === null || candidate === null) return out;
  const delta = candidate - baseline;
  out.delta = delta;
  out.relative = baseline !== 0 ? delta / Math.abs(baseline) : null;
  const worse = m.better === 'higher' ? -delta : delta;
  if (m.absoluteLimit !== undefined) {
    out.regressed = worse > m.absoluteLimit;
    out.improved = -worse > m.absoluteLimit;
  } else if (baseline !== 0) {
    out.regressed = worse / Math.abs(baseline) > thresholdPct / 100;
    out.improved = -worse / Math.abs(baseline) > thresholdPct / 100;
  } else {
    out.regressed = worse > 0;
    out.improved = worse < 0;
  }
  out.beyond_threshold = out.regressed;
  out.verdict = out.regressed ? 'regressed' : out.improved ? 'improved' : 'same';
  return out;
}

/**
 * A row judged with its test: in mode `significant` a change beyond the threshold counts (regressed / improved) only
 * when p < alpha, else it is "within noise"; an untested row (a rate between single runs, a sweep point) keeps the
 * threshold's verdict. Mode `strict` keeps the threshold's verdict always, and shows the test beside it.
 */
export function judged(d: MetricDelta, sig: Significance, o: Pick<JudgeOptions, 'alpha' | 'mode'>): MetricDelta {
  const significant = sig.p === null ? null : sig.p < o.alpha;
  const out: MetricDelta = { ...d, test: sig.test, ci95: sig.ci95, p: sig.p, significant, ...(sig.note ? { note: sig.note } : {}) };
  if (o.mode === 'strict' || significant !== false || d.delta === null) return out;
  if (d.regressed || d.improved) return { ...out, regressed: false, improved: false, verdict: 'within noise' };
  return out;
}

export interface PointComparison {
  /** "run" for runs; e.g. "concurrency 8, 256x256" for sweep points. */
  point: string;
  load: number | null;
  deltas: MetricDelta[];
}

export interface CandidateComparison {
  baseline: string;
  candidate: string;
  kind: 'run' | 'sweep';
  points: PointComparison[];
  /** Sweep points present in only one of the two. */
  unmatched: string[];
  regressions: { point: string; metric: string }[];
  /** Ways the candidate differs in kind from the baseline (time scale, workload, endpoint, …): its deltas may mislead. */
  warnings: string[];
  /** Runs (or sweep points) of either side answered from a prefix cache they did not ask for (summary.prompt_cache), each naming its side and run. */
  prompt_cache_warnings: string[];
  /** How many runs each side holds: 1 for a run, K for a repeated-run directory (run-1/ … run-K/; its values are their means); null for a sweep. */
  baseline_runs: number | null;
  candidate_runs: number | null;
  /** Runs with turns (summary by_turn): TTFT per turn index on both sides, informational only (docs/output-format.md#compare). */
  by_turn?: TurnTtftDelta[];
  /** Runs with media (summary by_images): TTFT per image count on both sides, informational only. */
  by_images?: ImagesTtftDelta[];
  /** Both sides' tags and server identity (run.json), field by field, differences flagged (compare-identity.ts). */
  identity: IdentityRow[];
}

/** One --fail-on metric's outcome in one candidate (and sweep point). */
export interface GateLine {
  candidate: string;
  point: string;
  metric: string;
  verdict: MetricDelta['verdict'];
  relative: number | null;
  p: number | null;
  threshold_pct: number;
  /** Whether it fails the comparison (verdict regressed). */
  failed: boolean;
}

export interface CompareResult {
  threshold_pct: number;
  fail_on: string[];
  /** Per-metric thresholds given as --fail-on METRIC=N%. */
  fail_on_thresholds: Record<string, number>;
  fail_on_mode: FailOnMode;
  alpha: number;
  /** Each --fail-on metric's verdict per candidate and point (with "all": only the rows beyond their threshold). */
  gate: GateLine[];
  comparisons: CandidateComparison[];
  /** Regressions among the --fail-on metrics (all metrics with "all"). */
  failures: { candidate: string; point: string; metric: string }[];
  failed: boolean;
  /** Every comparison's warnings, each prefixed with its candidate directory. */
  warnings: string[];
}

/**
 * A loaded result; `what` says what it measured (compared across inputs for warnings). A run's `values` are the
 * compared metrics (a key missing: that side has no such metric); `format` says whose definitions they follow, and
 * `samples` (vLLM definitions) replace the records for the report's distributions.
 */
export type Loaded = (
  | { kind: 'run'; dir: string; values: MetricValues; format: 'tokenflood' | 'vllm'; source: 'run' | 'vllm-result'; samples?: LatencySamples; metrics?: MetricsBlock; extraPercentiles?: number[]; repeated?: RepeatedRuns }
  | { kind: 'sweep'; dir: string; doc: SweepDoc }
) & { what: RunKind; promptCache?: string[] };

/** The prompt-cache warnings of a run's summary, or of each sweep point's summary.json ("point NAME: ..."). */
function promptCacheOf(dir: string, summary?: Summary, doc?: SweepDoc): string[] {
  if (summary) {
    const w = promptCacheWarning(summary);
    return w ? [w] : [];
  }
  const out: string[] = [];
  for (const r of doc?.points ?? []) {
    if (r.status === 'failed') continue;
    const s = readSummaryJson(join(dir, r.dir), []);
    const w = s && promptCacheWarning(s);
    if (w) out.push(`point ${r.name}: ${w}`);
  }
  return out;
}

export function loadResult(dir: string): Loaded {
  if (isFilePath(dir)) {
    const v = loadVllmResult(dir);
    return { kind: 'run', dir, values: v.values, format: 'vllm', source: 'vllm-result', samples: v.samples, extraPercentiles: v.extraPercentiles, what: v.what };
  }
  if (isRepeatedRunDir(dir)) {
    // Repeated runs (run --runs N): the values are the runs' means, each run's kept for Welch's test.
    const repeated = readRepeatedRuns(dir, valuesFromMetrics);
    const first = repeated.summaries[0];
    const promptCache = repeated.summaries.flatMap((s, i) => promptCacheOf(repeated.dirs[i], s).map((w) => `run ${i + 1}: ${w}`));
    return { kind: 'run', dir, values: repeated.mean, metrics: first, format: 'tokenflood', source: 'run', repeated, what: runKind((first.run as Record<string, unknown> | undefined) ?? readRunJson(repeated.dirs[0])), promptCache };
  }
  if (hasArtifact(dir, ARTIFACTS.sweep)) {
    const doc = readSweepDoc(dir);
    // The points share one config: the first point that ran speaks for the sweep.
    const first = doc.points.find((r) => r.status !== 'failed');
    const what = runKind(first ? readRunJson(join(dir, first.dir)) : {}, doc.mode);
    if (typeof doc.sim_time_scale === 'number') Object.assign(what, { sim_time_scale: doc.sim_time_scale, sim_server: true });
    return { kind: 'sweep', dir, doc, what, promptCache: promptCacheOf(dir, undefined, doc) };
  }
  if (hasArtifact(dir, ARTIFACTS.requests) || hasArtifact(dir, ARTIFACTS.summary)) {
    const summary = readRunSummary(dir).summary;
    return { kind: 'run', dir, values: valuesFromMetrics(summary), metrics: summary, format: 'tokenflood', source: 'run', what: runKind((summary.run as Record<string, unknown> | undefined) ?? readRunJson(dir)), promptCache: promptCacheOf(dir, summary) };
  }
  throw new UsageError([`compare: ${dir} holds neither a run (requests.jsonl) nor a sweep (sweep.json), and is not a vLLM bench result file`]);
}

/**
 * With a vLLM result on either side, every tokenflood run is recomputed from its requests.jsonl under vLLM's
 * definitions (report/compat), so like is compared with like; returns the inputs unchanged otherwise.
 */
export function alignDefinitions(all: readonly Loaded[]): { loaded: Loaded[]; definitions: 'tokenflood' | 'vllm' } {
  if (!all.some((l) => l.kind === 'run' && l.format === 'vllm')) return { loaded: [...all], definitions: 'tokenflood' };
  const loaded = all.map((l): Loaded => (l.kind === 'run' && l.format === 'tokenflood' ? { ...l, ...runAsVllm(l.dir), metrics: undefined, format: 'vllm' } : l));
  return { loaded, definitions: 'vllm' };
}

const pointKey = (r: SweepRow) => `${r.mode === 'rate' ? `rate ${r.load}` : `concurrency ${r.load}`}, ${rowPairLabel(r)}`;

/** The test of one row between two runs: Welch across repeated runs when either side has them, else per-request tests. */
function testOf(key: string, base: Loaded & { kind: 'run' }, cand: Loaded & { kind: 'run' }): Significance {
  if (base.format === 'vllm' || cand.format === 'vllm') return untested("under vLLM's definitions: no per-request tests");
  if (base.repeated || cand.repeated) {
    const runs = (l: Loaded & { kind: 'run' }) => (l.repeated ? l.repeated.runs.map((r) => r[key] ?? null) : [l.values[key] ?? null]);
    return runLevelTest(runs(base), runs(cand));
  }
  const a = runSamples(base.dir);
  const b = runSamples(cand.dir);
  return a && b ? perRequestTest(key, a, b) : untested('no requests.jsonl on a side');
}

/** Per-request tests between two sweep points, from each point's own requests.jsonl. */
const pointTest = (baseDir: string, r: SweepRow, candDir: string, c: SweepRow) => (key: string): Significance => {
  const a = runSamples(join(baseDir, r.dir));
  const b = runSamples(join(candDir, c.dir));
  return a && b ? perRequestTest(key, a, b) : untested('no requests.jsonl in a sweep point');
};

function comparePoints(base: Loaded, cand: Loaded, thresholdPct: number, o: JudgeOptions): { points: PointComparison[]; unmatched: string[] } {
  // The baseline's --percentiles beyond the fixed rows add rows (TTFT p99.9, …); a side without them shows none.
  // Under vLLM's definitions (no metrics block) the values already hold them: a vLLM result's p99.9_ttft_ms, or a recomputed run's.
  const ps = base.kind === 'sweep' ? extraPercentilesOf({ rows: base.doc.points }) : base.metrics ? extraPercentilesOf({ metrics: base.metrics }) : (base.extraPercentiles ?? []);
  const metrics = [...compareMetrics(), ...extraPercentileMetrics(ps)];
  // Only the metrics both sides have (a vLLM result has no output speed; extra percentiles only if it was written with them).
  const deltas = (b: MetricValues, c: MetricValues, test: (key: string) => Significance) =>
    metrics.filter((m) => m.key in b && m.key in c).map((m) => judged(metricDelta(withLimit(m), b[m.key] ?? null, c[m.key] ?? null, o.thresholds[m.key] ?? thresholdPct), test(m.key), o));
  // error_rate=N in --fail-on: N percentage points replace its absolute limit.
  const withLimit = (m: CompareMetric): CompareMetric => (m.absoluteLimit !== undefined && o.thresholds[m.key] !== undefined ? { ...m, absoluteLimit: o.thresholds[m.key] / 100 } : m);
  // Repeated runs already carry their extra percentiles (the runs' mean).
  const fromRun = (l: Loaded & { kind: 'run' }) => ({ ...l.values, ...(l.metrics && !l.repeated ? extraValuesFromMetrics(l.metrics, ps) : {}) });
  const fromRow = (r: SweepRow) => ({ ...valuesFromRow(r), ...extraValuesFromRow(r, ps) });
  if (base.kind === 'run' && cand.kind === 'run') return { points: [{ point: 'run', load: null, deltas: deltas(fromRun(base), fromRun(cand), (k) => testOf(k, base, cand)) }], unmatched: [] };
  if (base.kind !== 'sweep' || cand.kind !== 'sweep') throw new UsageError([`compare: ${base.dir} is a ${base.kind} but ${cand.dir} is a ${cand.kind}; compare runs with runs and sweeps with sweeps`]);
  // A point that could not run has no measurements: comparing its zeros would report a regression that is an outage.
  const ran = (rows: readonly SweepRow[]) => rows.filter((r) => r.status !== 'failed');
  const notRun = (rows: readonly SweepRow[], side: string) => rows.filter((r) => r.status === 'failed').map((r) => `${pointKey(r)} (did not run in the ${side})`);
  const cmap = new Map(ran(cand.doc.points).map((r) => [pointKey(r), r]));
  const bkeys = new Set(base.doc.points.map(pointKey));
  const ckeys = new Set(cand.doc.points.map(pointKey));
  const points: PointComparison[] = [];
  const unmatched: string[] = [...notRun(base.doc.points, 'baseline'), ...notRun(cand.doc.points, 'candidate')];
  for (const r of ran(base.doc.points)) {
    const c = cmap.get(pointKey(r));
    if (c) points.push({ point: pointKey(r), load: r.load, deltas: deltas(fromRow(r), fromRow(c), pointTest(base.dir, r, cand.dir, c)) });
    else if (!ckeys.has(pointKey(r))) unmatched.push(`${pointKey(r)} (baseline only)`);
  }
  for (const r of ran(cand.doc.points)) if (!bkeys.has(pointKey(r))) unmatched.push(`${pointKey(r)} (candidate only)`);
  return { points, unmatched };
}

/** Validate --fail-on: metric keys or "all". */
export function parseFailOn(text: string | undefined): string[] {
  return parseFailOnSpec(text).metrics;
}

/**
 * --fail-on's entries: metric keys or "all", each optionally with its own threshold, METRIC=N or METRIC=N% (percent of
 * the baseline; error_rate: percentage points). Every problem is reported at once.
 */
export function parseFailOnSpec(text: string | undefined): { metrics: string[]; thresholds: Record<string, number> } {
  if (!text) return { metrics: [], thresholds: {} };
  const keys = compareMetrics().map((m) => m.key);
  const problems: string[] = [];
  const metrics: string[] = [];
  const thresholds: Record<string, number> = {};
  for (const part of text.split(',').map((x) => x.trim()).filter(Boolean)) {
    const [name, limit] = part.split('=', 2).map((x) => x.trim());
    if (name !== 'all' && !keys.includes(name) && !isExtraPercentileKey(name)) {
      problems.push(`--fail-on: unknown metric "${name}" (known: ${keys.join(', ')}, ${extraPercentilePrefixes().join('|')}_p<P> for a --percentiles value such as ttft_p99_9, or all)`);
      continue;
    }
    metrics.push(name);
    if (limit === undefined) continue;
    const m = /^(\d+(?:\.\d+)?)%?$/.exec(limit);
    if (!m || name === 'all') problems.push(`--fail-on: ${name === 'all' ? '"all" takes no threshold (use --threshold)' : `"${part}": expected METRIC=N%, a non-negative percentage such as ${name}=5%`}`);
    else thresholds[name] = Number(m[1]);
  }
  if (problems.length) throw new UsageError(problems);
  return { metrics, thresholds };
}

/** The per-turn TTFT deltas of two runs with tokenflood summaries, when either has by_turn. */
function turnsOf(base: Loaded, cand: Loaded): { by_turn?: TurnTtftDelta[]; by_images?: ImagesTtftDelta[] } {
  if (base.kind !== 'run' || cand.kind !== 'run' || !base.metrics || !cand.metrics) return {};
  const t = turnTtftDeltas(base.metrics, cand.metrics);
  const i = imagesTtftDeltas(base.metrics, cand.metrics);
  return { ...(t ? { by_turn: t } : {}), ...(i ? { by_images: i } : {}) };
}

const runCount = (l: Loaded): number | null => (l.kind === 'run' ? (l.repeated?.dirs.length ?? 1) : null);

/** Compare each candidate with the baseline. */
export function compareResults(baseline: Loaded, candidates: readonly Loaded[], thresholdPct: number, failOn: readonly string[], judge: Partial<JudgeOptions> = {}): CompareResult {
  const o: JudgeOptions = { ...DEFAULT_JUDGE, ...judge };
  const comparisons = candidates.map((cand): CandidateComparison => {
    const { points, unmatched } = comparePoints(baseline, cand, thresholdPct, o);
    const regressions = points.flatMap((p) => p.deltas.filter((d) => d.regressed).map((d) => ({ point: p.point, metric: d.metric })));
    return { baseline: baseline.dir, candidate: cand.dir, kind: baseline.kind, baseline_runs: runCount(baseline), candidate_runs: runCount(cand), points, unmatched, regressions, warnings: kindWarnings(baseline.what, cand.what), prompt_cache_warnings: [
      ...(baseline.promptCache ?? []).map((w) => `baseline ${baseline.dir}: ${w}`),
      ...(cand.promptCache ?? []).map((w) => `candidate ${cand.dir}: ${w}`),
    ], ...turnsOf(baseline, cand), identity: compareIdentity(identityDir(baseline), identityDir(cand)) };
  });
  // A --fail-on percentile row (ttft_p99_9) exists only when the baseline asked for that percentile.
  const rows = new Set(comparisons.flatMap((c) => c.points.flatMap((p) => p.deltas.map((d) => d.metric))));
  const keys = compareMetrics().map((m) => m.key);
  const missing = failOn.filter((m) => isExtraPercentileKey(m) && !keys.includes(m) && !rows.has(m));
  if (missing.length) throw new UsageError(missing.map((m) => `--fail-on: unknown metric "${m}": the baseline has no such percentile (give it to the runs' --percentiles, e.g. --percentiles 50,90,95,99,99.9 for ttft_p99_9)`));
  const watch = (m: string) => failOn.includes('all') || failOn.includes(m);
  const failures = comparisons.flatMap((c) => c.regressions.filter((r) => watch(r.metric)).map((r) => ({ candidate: c.candidate, ...r })));
  const warnings = comparisons.flatMap((c) => c.warnings.map((w) => `${c.candidate}: ${w}`));
  const gate = comparisons.flatMap((c) =>
    c.points.flatMap((p) =>
      p.deltas
        .filter((d) => failOn.includes(d.metric) || (failOn.includes('all') && d.beyond_threshold))
        .map((d): GateLine => ({ candidate: c.candidate, point: p.point, metric: d.metric, verdict: d.verdict, relative: d.relative, p: d.p, threshold_pct: d.threshold_pct, failed: d.regressed })),
    ),
  );
  return { threshold_pct: thresholdPct, fail_on: [...failOn], fail_on_thresholds: { ...o.thresholds }, fail_on_mode: o.mode, alpha: o.alpha, gate, comparisons, failures, failed: failures.length > 0, warnings };
}
