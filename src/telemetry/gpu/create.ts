// `--gpu-metrics dcgm:URL|nvidia-smi` → a GpuSampler: the one entry point the run lifecycle calls.
import { UsageError } from '../../errors.js';
import { createDcgmSampler } from './dcgm.js';
import { createNvidiaSmiSampler } from './nvidia-smi.js';
import type { GpuSampler } from './sample.js';

export type GpuMetricsSpec = { kind: 'dcgm'; url: string } | { kind: 'nvidia-smi' };

/** Parse the flag's value; the problem names the flag and the accepted forms. */
export function parseGpuMetricsSpec(value: string): GpuMetricsSpec {
  if (value === 'nvidia-smi') return { kind: 'nvidia-smi' };
  if (value.startsWith('dcgm:')) {
    const url = value.slice(5);
    let ok = false;
    try {
      const u = new URL(url);
      ok = (u.protocol === 'http:' || u.protocol === 'https:') && !u.username && !u.password;
    } catch {
      ok = false;
    }
    if (ok) return { kind: 'dcgm', url };
    throw new UsageError([`--gpu-metrics ${value}: expected dcgm:http://host:9400/metrics (an http(s) URL without credentials)`]);
  }
  throw new UsageError([`--gpu-metrics ${value}: expected dcgm:URL (a DCGM exporter's /metrics) or nvidia-smi`]);
}

export interface CreateGpuSamplerOptions {
  intervalMs: number;
  onProblem?: (message: string) => void;
  /** nvidia-smi program (tests point it at a fake); default `nvidia-smi` on PATH. */
  nvidiaSmiCommand?: string;
  now?: () => number;
}

/** A sampler for a `--gpu-metrics` value (a string is parsed first). */
export function createGpuSampler(spec: GpuMetricsSpec | string, o: CreateGpuSamplerOptions): GpuSampler {
  const s = typeof spec === 'string' ? parseGpuMetricsSpec(spec) : spec;
  return s.kind === 'dcgm'
    ? createDcgmSampler({ url: s.url, intervalMs: o.intervalMs, onProblem: o.onProblem, now: o.now })
    : createNvidiaSmiSampler({ intervalMs: o.intervalMs, command: o.nvidiaSmiCommand, onProblem: o.onProblem, now: o.now });
}

export type { GpuSample, GpuSampler, GpuSummary } from './sample.js';
export { summarizeGpuSamples } from './sample.js';
export { createHostSampler, type HostSample } from './host.js';
