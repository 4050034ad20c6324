// Where a sweep's points run: the real driver against one server (run() per point), or the virtual driver on the engine model (simulate() per point).
import { run, type RunResult } from '../run.js';
import { resolveSimulate, simulate } from '../simulate.js';
import { startEmbeddedServer } from '../target.js';
import { resolveRunConfig, type ResolvedRun } from '../config/load.js';
import type { RunConfig, RunConfigInput } from '../config/schema.js';
import type { LifecycleOptions } from '../lifecycle/lifecycle.js';
import { redactUrl } from '../util/url.js';
import { Once } from '../util/once.js';
import type { SweepConfig } from './config.js';
import type { SweepEngine } from './simulated.js';

export interface SweepTarget {
  /** As shown and stored (sweep.json `target_url`): the redacted URL, or the engine a simulated sweep models. */
  shown: string;
  embedded: boolean;
  simulated: boolean;
  /** One point as one lifecycle on this target's driver; `opts` sees the point's resolved config. */
  runPoint(flags: RunConfigInput, opts: (c: RunConfig) => LifecycleOptions): Promise<RunResult>;
  /** The run config of `flags` against this target (the idle eval baseline's); undefined for a simulated sweep. */
  resolve(flags: Record<string, unknown>): ResolvedRun | undefined;
  close(): Promise<void>;
}

/** The real driver: --base-url, else the embedded simulated server started for all points. */
export async function openRealTarget(s: SweepConfig, baseUrl: string | undefined): Promise<SweepTarget> {
  const sim = baseUrl ? undefined : await startEmbeddedServer(s);
  const url = baseUrl ?? sim!.baseUrl;
  // One validation ladder for the whole sweep: the first point's run climbs it, every later point reuses its result.
  const ladder = new Once<unknown>();
  const resolve = (flags: Record<string, unknown>): ResolvedRun => ({ ...resolveRunConfig({ flags: { ...flags, baseUrl: url }, unsharded: 'sweep' }), ladder });
  return {
    shown: redactUrl(url),
    embedded: sim !== undefined,
    simulated: false,
    resolve,
    runPoint: (flags, opts) => {
      const point = resolve(flags as Record<string, unknown>);
      return run(point, opts(point.config));
    },
    close: async () => sim?.close(),
  };
}

/** The virtual driver: each point is simulate() with the sweep's engine options; nothing to open or close. */
export function virtualTarget(engine: SweepEngine): SweepTarget {
  return {
    shown: engine.target,
    embedded: false,
    simulated: true,
    resolve: () => undefined,
    runPoint: (flags, opts) => {
      const point = resolveSimulate({ ...(flags as Record<string, unknown>), ...engine.flags });
      // The modelled GPU timeline too: a real sweep's points always hold gpu_metrics.jsonl (host, and GPUs when asked).
      return simulate(point, opts(point.run.config), { gpuModel: true });
    },
    close: async () => {},
  };
}
