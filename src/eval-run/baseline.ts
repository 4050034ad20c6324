// The idle baseline of --eval-under-load: the graded set alone, at concurrency 1, on the same target and sampling.
import { run, type RunResult } from '../run.js';
import type { ResolvedRun } from '../config/load.js';
import type { RunConfig } from '../config/schema.js';
import type { UnderLoadPlan } from '../eval/under-load.js';

/** The same target and sampling, the set alone at concurrency 1, no ramps, stages or SLOs. */
export async function runIdleBaseline(resolved: ResolvedRun, plan: UnderLoadPlan, outDir: string, signal?: AbortSignal): Promise<RunResult> {
  const c = resolved.config;
  const config: RunConfig = {
    ...c, concurrency: 1, rate: undefined, requests: undefined, duration: undefined, stages: undefined, rampUp: undefined, rampDown: undefined,
    warmup: 0, slo: undefined, failOnSlo: false, out: outDir, overwrite: true, quiet: true, json: false, evalUnderLoad: undefined,
  };
  // The loaded run before it climbed the command's validation ladder: the baseline reuses its result.
  return run({ config, headers: resolved.headers, ladder: resolved.ladder }, { signal, workload: plan.baseline() });
}

