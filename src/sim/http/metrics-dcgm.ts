// DCGM-exporter-named series for the sim server's simulated GPUs: utilization from step busy time, memory, power, temperature, clocks.
import { Gauge, type Registry } from 'prom-client';
import type { EngineSpec } from '../engine/config.js';
import type { EngineCounters, StepResult } from '../engine/engine.js';
import { gpuReading, simGpuLabels, stepOccupancy } from '../engine/gpu-model.js';

export { powerW, stepOccupancy } from '../engine/gpu-model.js';

const BINS = 20;

/**
 * Busy time of the simulated GPUs in fixed bins of window/20 simulated ms (bounded memory at any time scale).
 * fraction(now) = Σ busy ms in the bins of the last window / the time those bins span up to now.
 */
export function createBusyBins(windowSimMs: number) {
  const binMs = windowSimMs / BINS;
  const busy = new Map<number, { ms: number; weighted: number }>();
  return {
    add(start: number, end: number, weight: number): void {
      // Unscraped for long: forget bins older than the window.
      if (busy.size > 4 * BINS) for (const b of busy.keys()) if (b < start / binMs - BINS) busy.delete(b);
      for (let b = Math.floor(start / binMs); b * binMs < end; b++) {
        const overlap = Math.min(end, (b + 1) * binMs) - Math.max(start, b * binMs);
        if (overlap <= 0) continue;
        const bin = busy.get(b) ?? { ms: 0, weighted: 0 };
        bin.ms += overlap;
        bin.weighted += overlap * weight;
        busy.set(b, bin);
      }
    },
    /** [busy share, occupancy-weighted busy share] over the trailing window ending at `now`. */
    fraction(now: number): [number, number] {
      const cur = Math.floor(now / binMs);
      const first = Math.max(0, Math.ceil((now - windowSimMs) / binMs));
      for (const b of busy.keys()) if (b < first) busy.delete(b);
      const span = now - first * binMs;
      if (span <= 0) return [0, 0];
      let ms = 0;
      let weighted = 0;
      for (const [b, v] of busy) {
        if (b > cur) continue;
        ms += v.ms;
        weighted += v.weighted;
      }
      return [Math.min(1, ms / span), Math.min(1, weighted / span)];
    },
  };
}

export interface SimGpuTelemetry {
  /** Call for each delivered engine step (simulated ms). */
  onStep(step: StepResult, startSimMs: number, endSimMs: number): void;
  registry: Registry;
}

export interface SimGpuTelemetryOptions {
  registry: Registry;
  spec: EngineSpec;
  counters: () => EngineCounters;
  nowSimMs: () => number;
  /** Utilization is averaged over this trailing window of simulated ms (one wall-clock second by default). */
  windowSimMs: number;
}

export function createSimGpuTelemetry(o: SimGpuTelemetryOptions): SimGpuTelemetry {
  const { spec, registry } = o;
  const bins = createBusyBins(o.windowSimMs);
  // One read of the model per scrape, shared by every series and GPU.
  let cache: { at: number; v: Record<string, number> } | undefined;
  const read = (): Record<string, number> => {
    const now = o.nowSimMs();
    if (cache && cache.at === now) return cache.v;
    const [util, smActive] = bins.fraction(now);
    const r = gpuReading(spec, util, smActive, o.counters().kvUsage);
    const v = {
      DCGM_FI_DEV_GPU_UTIL: r.utilPct,
      DCGM_FI_PROF_SM_ACTIVE: r.smActive,
      DCGM_FI_DEV_FB_USED: r.fbUsedMib,
      DCGM_FI_DEV_FB_FREE: r.fbFreeMib,
      DCGM_FI_DEV_POWER_USAGE: r.powerW,
      DCGM_FI_DEV_GPU_TEMP: r.tempC,
      DCGM_FI_DEV_SM_CLOCK: r.smClockMhz,
      DCGM_FI_DEV_MEM_CLOCK: r.memClockMhz,
    };
    cache = { at: now, v };
    return v;
  };
  const series: [keyof ReturnType<typeof read>, string][] = [
    ['DCGM_FI_DEV_GPU_UTIL', 'GPU utilization (in %).'],
    ['DCGM_FI_PROF_SM_ACTIVE', 'The ratio of cycles an SM has at least 1 warp assigned (in %).'],
    ['DCGM_FI_DEV_FB_USED', 'Framebuffer memory used (in MiB).'],
    ['DCGM_FI_DEV_FB_FREE', 'Framebuffer memory free (in MiB).'],
    ['DCGM_FI_DEV_POWER_USAGE', 'Power draw (in W).'],
    ['DCGM_FI_DEV_GPU_TEMP', 'GPU temperature (in C).'],
    ['DCGM_FI_DEV_SM_CLOCK', 'SM clock frequency (in MHz).'],
    ['DCGM_FI_DEV_MEM_CLOCK', 'Memory clock frequency (in MHz).'],
  ];
  const gpus = simGpuLabels(spec).map((l, i) => ({ gpu: l.gpu, UUID: l.uuid, device: `nvidia${i}`, modelName: l.modelName, Hostname: 'tokenflood-sim' }));
  for (const [name, help] of series) {
    new Gauge({
      name, help, labelNames: ['gpu', 'UUID', 'device', 'modelName', 'Hostname'], registers: [registry],
      collect() {
        // Tensor-parallel GPUs run every step in lockstep: the same figures on each.
        const v = read()[name];
        for (const labels of gpus) this.set(labels, v);
      },
    });
  }
  return {
    registry,
    onStep(step, start, end) {
      bins.add(start, end, stepOccupancy(step));
    },
  };
}
