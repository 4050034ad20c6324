// `compare --baseline DIR...`: the noise floor of each compared metric over several runs of one setup (docs/commands/compare.md#noise-floor).
import { sampleMean, sampleVariance, tQuantile } from '../metrics/inference/index.js';
import { UsageError } from '../errors.js';
import { fmt, table } from './format.js';
import { compareMetrics, loadResult, valuesFromMetrics, type MetricValues } from './compare.js';
import { extraPercentileMetrics, extraPercentilesOf, extraValuesFromMetrics } from './compare-percentiles.js';
import { repeatedRunDirs } from './compare-runs.js';
import { runSamples } from './compare-samples.js';
import { perRequestTest } from './compare-significance.js';
import { readRunSummary } from './results-dir.js';
import { pText } from './compare-terminal.js';

export interface NoiseRow {
  metric: string;
  label: string;
  unit: string;
  /** Runs that have the metric. */
  runs: number;
  mean: number | null;
  /** Run-to-run sample standard deviation (n − 1). */
  sd: number | null;
  /** sd / |mean|. */
  cv: number | null;
  /** max over run pairs of |x_i − x_j| / |mean|, in %. */
  max_pairwise_pct: number | null;
  /** t(1 − α/2, 2(n − 1)) · sd · √(2/n) / |mean| in %: the smallest difference of means Welch's test calls significant with n runs a side. */
  min_significant_pct: number | null;
  /** Pairs of runs of this setup whose per-request test had p < alpha (a rate has none): false alarms of a single-run compare. */
  pairs_significant: number | null;
  pairs: number;
  /** The smallest per-request p among the pairs: how close a single-run compare of this setup came to a false alarm. */
  min_pair_p: number | null;
  /** A --fail-on threshold no pair of these runs exceeded: max_pairwise_pct rounded up to the next 0.5%. */
  suggested_threshold_pct: number | null;
}

export interface NoiseFloor {
  alpha: number;
  /** Each run used: a --baseline directory, or each run-K of a repeated-run directory. */
  runs: string[];
  metrics: NoiseRow[];
}

/** The single runs behind the --baseline directories: a repeated-run directory gives its run-K, a run itself. */
function expand(dirs: readonly string[]): string[] {
  return dirs.flatMap((d) => {
    const runs = repeatedRunDirs(d);
    if (runs.length) return runs;
    const l = loadResult(d);
    if (l.kind !== 'run' || l.source !== 'run') throw new UsageError([`--baseline: ${d} is ${l.kind === 'sweep' ? 'a sweep' : 'a vLLM result file'}; the noise floor is measured over tokenflood runs`]);
    return [d];
  });
}

function row(xs: readonly number[], n: number, alpha: number, pairP: readonly number[]): Omit<NoiseRow, 'metric' | 'label' | 'unit'> {
  const k = xs.length;
  const empty = { runs: k, mean: null, sd: null, cv: null, max_pairwise_pct: null, min_significant_pct: null, pairs_significant: null, pairs: 0, min_pair_p: null, suggested_threshold_pct: null };
  if (k < 2) return { ...empty, mean: k ? xs[0] : null };
  const mean = sampleMean(xs);
  const sd = Math.sqrt(sampleVariance(xs, mean));
  let maxDiff = 0;
  for (let i = 0; i < k; i++) for (let j = i + 1; j < k; j++) maxDiff = Math.max(maxDiff, Math.abs(xs[i] - xs[j]));
  const rel = (x: number) => (mean !== 0 ? (100 * x) / Math.abs(mean) : null);
  const maxPct = rel(maxDiff);
  return {
    runs: k,
    mean,
    sd,
    cv: mean !== 0 ? sd / Math.abs(mean) : null,
    max_pairwise_pct: maxPct,
    min_significant_pct: rel(tQuantile(1 - alpha / 2, 2 * (n - 1)) * sd * Math.sqrt(2 / n)),
    pairs_significant: pairP.length ? pairP.filter((p) => p < alpha).length : null,
    pairs: (k * (k - 1)) / 2,
    min_pair_p: pairP.length ? Math.min(...pairP) : null,
    suggested_threshold_pct: maxPct === null ? null : Math.ceil(maxPct * 2) / 2 || 0.5,
  };
}

/** The noise floor over the runs of `dirs` (at least two in all), each metric's row as NoiseRow defines it. */
export function noiseFloor(dirs: readonly string[], alpha: number): NoiseFloor {
  const runs = expand(dirs);
  if (runs.length < 2) throw new UsageError([`--baseline: the noise floor needs at least 2 runs of one setup, got ${runs.length} (${dirs.join(', ')})`]);
  const summaries = runs.map((d) => readRunSummary(d).summary);
  const ps = extraPercentilesOf({ metrics: summaries[0] });
  const values: MetricValues[] = summaries.map((s) => ({ ...valuesFromMetrics(s), ...extraValuesFromMetrics(s, ps) }));
  const samples = runs.map(runSamples);
  const metrics = [...compareMetrics(), ...extraPercentileMetrics(ps)].filter((m) => values.every((v) => m.key in v));
  return {
    alpha,
    runs,
    metrics: metrics.map((m) => {
      const xs = values.map((v) => v[m.key]).filter((x): x is number => typeof x === 'number');
      const pairP: number[] = [];
      for (let i = 0; i < runs.length; i++)
        for (let j = i + 1; j < runs.length; j++) {
          const a = samples[i];
          const b = samples[j];
          const p = a && b ? perRequestTest(m.key, a, b).p : null;
          if (p !== null) pairP.push(p);
        }
      return { metric: m.key, label: m.label, unit: m.unit, ...row(xs, xs.length, alpha, pairP) };
    }),
  };
}

const pctText = (x: number | null): string => (x === null ? '-' : `${x.toFixed(1)}%`);

/** The noise floor as a terminal table. */
export function renderNoiseFloor(nf: NoiseFloor): string {
  const n = nf.metrics[0]?.runs ?? nf.runs.length;
  return [
    `noise floor over ${nf.runs.length} runs of one setup (alpha ${nf.alpha}):`,
    ...nf.runs.map((r) => `  ${r}`),
    '',
    table(
      ['metric', 'runs', 'mean', 'sd', 'CV', 'max pair diff', `min signif. diff (${n} v ${n})`, 'pairs signif. (per-request)', 'min pair p', 'suggested threshold'],
      nf.metrics.map((r) => [
        `${r.label}${r.unit === 'ratio' ? '' : ` (${r.unit})`}`, String(r.runs), fmt(r.mean), fmt(r.sd), r.cv === null ? '-' : `${(r.cv * 100).toFixed(1)}%`,
        pctText(r.max_pairwise_pct), pctText(r.min_significant_pct), r.pairs_significant === null ? 'n/a' : `${r.pairs_significant}/${r.pairs}`, pText(r.min_pair_p), pctText(r.suggested_threshold_pct),
      ]),
    ),
    '',
    'max pair diff: the largest difference between two of these runs, in % of their mean; a --fail-on threshold below it would have failed a rerun.',
    'pairs signif.: pairs of these same-setup runs that the per-request test of a single-run compare called different; above 0, prefer run --runs N on both sides.',
  ].join('\n');
}
