// runs.json: the aggregate of a repeated run (--runs N), built from each run's summary (docs/output-format.md#runsjson).
import type { Summary } from '../metrics/summary.js';
import { VERSION } from '../version.js';
import { aggregateRuns, CV_LIMITS, RUNS_CONFIDENCE, runMetrics, runValues, type RunsMetricAggregate } from './aggregate.js';

/** One run of the set, as runs.json lists it. */
export interface RunsEntry {
  /** 1-based. */
  run: number;
  /** Its directory, relative to the runs directory (`run-1`). */
  dir: string;
  run_id: string | null;
  started_at: string | null;
  stopped_reason: string;
  requests: number;
  ok: number;
  failed: number;
  duration_s: number;
  /** In the aggregate: only runs that completed (an interrupted or early-stopped run measured something else). */
  included: boolean;
}

export interface RunsDoc {
  schema_version: 1;
  kind: 'runs';
  tool: 'tokenflood';
  version: string;
  started_at: string;
  finished_at: string;
  runs_requested: number;
  runs_completed: number;
  /** Stopped (Ctrl-C, SIGTERM) before every run was made. */
  interrupted: boolean;
  /** A run after the first that could not run (its error), ending the set; null otherwise. */
  failure: string | null;
  cooldown_s: number;
  /** --dataset-seed: null = fresh prompts in every run; a number = the same prompts in every run. */
  dataset_seed: number | null;
  prompts: 'fresh per run' | 'identical in every run';
  /** The embedded simulated server, started once for all runs (its prefix cache carries over from run to run). */
  embedded_server: boolean;
  confidence: number;
  cv_limits: Record<string, number | null>;
  runs: RunsEntry[];
  /** Each headline metric across the included runs, keyed as compare keys it (`ttft_p99`). */
  metrics: Record<string, RunsMetricAggregate>;
  /** Keys of the metrics flagged unreliable. */
  unreliable: string[];
}

export interface RunsDocInput {
  startedAt: string;
  requested: number;
  interrupted: boolean;
  cooldownS: number;
  datasetSeed: number | undefined;
  embedded: boolean;
  failure?: string | null;
  /** The runs made, in order: their directory name and final summary. */
  runs: readonly { dir: string; summary: Summary }[];
}

export function runsEntry(k: number, dir: string, s: Summary): RunsEntry {
  const run = s.run as Record<string, unknown>;
  const stopped = String(run.stopped_reason ?? 'completed');
  return {
    run: k,
    dir,
    run_id: typeof run.run_id === 'string' ? run.run_id : null,
    started_at: typeof run.started_at === 'string' ? run.started_at : null,
    stopped_reason: stopped,
    requests: s.requests.total,
    ok: s.requests.ok,
    failed: s.requests.failed,
    duration_s: s.duration_s,
    included: stopped === 'completed',
  };
}

export function buildRunsDoc(i: RunsDocInput): RunsDoc {
  const entries = i.runs.map((r, idx) => runsEntry(idx + 1, r.dir, r.summary));
  const included = i.runs.filter((_, idx) => entries[idx].included);
  const metrics = aggregateRuns(included.map((r) => runValues(r.summary)), runMetrics());
  return {
    schema_version: 1,
    kind: 'runs',
    tool: 'tokenflood',
    version: VERSION,
    started_at: i.startedAt,
    finished_at: new Date().toISOString(),
    runs_requested: i.requested,
    runs_completed: entries.filter((e) => e.included).length,
    interrupted: i.interrupted,
    failure: i.failure ?? null,
    cooldown_s: i.cooldownS,
    dataset_seed: i.datasetSeed ?? null,
    prompts: i.datasetSeed === undefined ? 'fresh per run' : 'identical in every run',
    embedded_server: i.embedded,
    confidence: RUNS_CONFIDENCE,
    cv_limits: { ...CV_LIMITS },
    runs: entries,
    metrics,
    unreliable: Object.entries(metrics).filter(([, m]) => m.unreliable).map(([k]) => k),
  };
}
