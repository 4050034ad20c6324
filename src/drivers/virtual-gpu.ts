// The virtual driver's GPU timeline: the engine model's GPUs (busy time of its steps, KV blocks in use) sampled every
// scrape interval of virtual time into gpu_metrics.jsonl, each line marked `source: "model"`. Modelled, not measured.
import type { EngineSpec } from '../sim/engine/config.js';
import type { EngineCounters } from '../sim/engine/engine.js';
import { gpuReading, simGpuLabels, stepOccupancy, type StepCostShare } from '../sim/engine/gpu-model.js';
import { ARTIFACTS, appendArtifact } from '../artifacts/registry.js';
import { TELEMETRY_FLUSH } from '../telemetry/sample-writer.js';
import type { SourceContext, SourceResult, TimelineSource } from '../telemetry/source.js';
import type { LineAppender } from '../util/line-appender.js';
import type { VirtualClock } from './virtual-clock.js';

/** run.json `gpu_metrics.source` and each line's `source`: the figures are the engine model's. */
export const MODELLED_GPU_SOURCE = 'model';

export interface VirtualGpuSource extends TimelineSource {
  /** Each engine step as it is planned (virtual ms): the GPUs are busy from `startMs` to `endMs`. */
  step(res: StepCostShare, startMs: number, endMs: number): void;
}

/**
 * Each sample covers the period since the one before: util_pct = 100 × (virtual ms inside engine steps in the period)
 * / period; sm_active the same with each step weighted by its occupancy; memory, power, temperature and clocks from
 * sim/engine/gpu-model.ts with the KV use at the sample. A step in progress counts up to the sample's moment.
 */
export function virtualGpuSource(clock: VirtualClock, spec: EngineSpec, counters: () => EngineCounters, intervalMs: number): VirtualGpuSource {
  const labels = simGpuLabels(spec);
  let steps: { start: number; end: number; weight: number }[] = [];
  let out: LineAppender | undefined;
  let ctx: SourceContext | undefined;
  let unlisten: (() => void) | undefined;
  let lastMs = 0;
  let nextDue = intervalMs;
  let lines = 0;
  let stopped = false;

  const sample = (tMs: number): void => {
    const span = tMs - lastMs;
    let busy = 0;
    let weighted = 0;
    for (const s of steps) {
      const overlap = Math.min(s.end, tMs) - Math.max(s.start, lastMs);
      if (overlap <= 0) continue;
      busy += overlap;
      weighted += overlap * s.weight;
    }
    steps = steps.filter((s) => s.end > tMs);
    const util = span > 0 ? Math.min(1, busy / span) : 0;
    const r = gpuReading(spec, util, span > 0 ? Math.min(1, weighted / span) : 0, counters().kvUsage);
    const gpus = labels.map((l) => ({
      gpu: l.gpu, uuid: l.uuid, model_name: l.modelName, util_pct: r.utilPct, sm_active: Number(r.smActive.toFixed(4)),
      fb_used_mib: r.fbUsedMib, fb_free_mib: r.fbFreeMib, power_w: Number(r.powerW.toFixed(1)), temp_c: r.tempC,
      sm_clock_mhz: r.smClockMhz, mem_clock_mhz: r.memClockMhz,
    }));
    const line = { t_ms: Math.round(tMs * 1000) / 1000, source: MODELLED_GPU_SOURCE, gpus };
    out!.append(JSON.stringify(line) + '\n');
    lines++;
    lastMs = tMs;
    ctx!.onSample?.({ source: 'gpu', tMs, line });
  };
  // State changes only at events: every interval boundary before the next event is sampled now, nothing awaited.
  const advance = (_from: number, to: number): undefined => {
    if (stopped) return undefined;
    while (nextDue < to) {
      sample(nextDue);
      nextDue += intervalMs;
    }
    return undefined;
  };

  return {
    name: 'gpu-model',
    step(res, startMs, endMs) {
      if (!stopped && endMs > startMs) steps.push({ start: startMs, end: endMs, weight: stepOccupancy(res) });
    },
    start(c) {
      ctx = c;
      out = appendArtifact(c.outDir, ARTIFACTS.gpuMetrics, { ...TELEMETRY_FLUSH, unit: 'lines' });
      lastMs = clock.now();
      sample(lastMs);
      nextDue = lastMs + intervalMs;
      unlisten = clock.onAdvance(advance);
    },
    async stop(): Promise<SourceResult> {
      if (ctx && !stopped) {
        unlisten?.();
        if (clock.now() > lastMs) sample(clock.now()); // the period up to the last answer, as a real sampler's last line
      }
      stopped = true;
      if (out) {
        await out.flush();
        out.close();
      }
      const failure = out?.failure?.reason;
      return {
        meta: { gpu_metrics: { source: MODELLED_GPU_SOURCE, server_pid: null, samples: lines, interval_ms: intervalMs, ...(failure ? { write_error: failure } : {}) } },
        files: out && !failure ? [ARTIFACTS.gpuMetrics.file] : [],
      };
    },
  };
}
