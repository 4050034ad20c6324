// Repeated-run directories for compare: DIR/run-1/, DIR/run-2/, … (run --runs N), each a complete results directory.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Summary } from '../metrics/summary-model.js';
import { readRunSummary } from './results-dir.js';
import { ARTIFACTS, hasArtifact } from '../artifacts/registry.js';
import { extraPercentilesOf, extraValuesFromMetrics } from './compare-percentiles.js';

export type RunValues = Record<string, number | null>;

/** The run-K subdirectories of `dir` that hold a summary.json, in K order; empty when `dir` is not a repeated-run directory. */
export function repeatedRunDirs(dir: string): string[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return [];
  return readdirSync(dir)
    .map((name) => ({ name, k: /^run-(\d+)$/.exec(name)?.[1] }))
    .filter((e): e is { name: string; k: string } => e.k !== undefined && hasArtifact(join(dir, e.name), ARTIFACTS.summary))
    .sort((a, b) => Number(a.k) - Number(b.k))
    .map((e) => join(dir, e.name));
}

/** Whether `dir` holds repeated runs (its runs.json is not read: each run-K's own summary.json is). */
export const isRepeatedRunDir = (dir: string): boolean => repeatedRunDirs(dir).length > 0;

export interface RepeatedRuns {
  dirs: string[];
  summaries: Summary[];
  /** Each run's compared values (valuesOf its summary, and its --percentiles rows beyond the fixed ones). */
  runs: RunValues[];
  /** Per compared key, the mean over the runs that have it (null when none has). */
  mean: RunValues;
}

/** Read every run-K summary of `dir`; `valuesOf` turns a summary into compare's values (compare.ts valuesFromMetrics). */
export function readRepeatedRuns(dir: string, valuesOf: (s: Summary) => RunValues): RepeatedRuns {
  const dirs = repeatedRunDirs(dir);
  const summaries = dirs.map((d) => readRunSummary(d).summary);
  const runs = summaries.map((s) => ({ ...valuesOf(s), ...extraValuesFromMetrics(s, extraPercentilesOf({ metrics: s })) }));
  const keys = [...new Set(runs.flatMap((r) => Object.keys(r)))];
  const mean: RunValues = {};
  for (const k of keys) {
    const xs = runs.map((r) => r[k]).filter((x): x is number => typeof x === 'number');
    mean[k] = xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : null;
  }
  return { dirs, summaries, runs, mean };
}
