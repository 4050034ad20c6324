// GPU samples from a DCGM exporter's Prometheus text (/metrics), parsed with parse-prometheus-text-format, and a polling sampler.
import { createRequire } from 'node:module';
import { UsageError } from '../../errors.js';
import { stripControls } from '../../util/terminal-text.js';
import type { GpuSample, GpuSampler, GpuSampleListener } from './sample.js';

interface Family {
  name: string;
  metrics: { value?: string; labels?: Record<string, string> }[];
}
// CommonJS package without types: loaded through require, typed here by what this file reads.
const parsePrometheusText = createRequire(import.meta.url)('parse-prometheus-text-format') as (text: string) => Family[];

/** DCGM field → sample field (dcgm-exporter's default counters; units as DCGM reports them). */
export const DCGM_FIELDS = {
  DCGM_FI_DEV_GPU_UTIL: 'util_pct',
  DCGM_FI_PROF_SM_ACTIVE: 'sm_active',
  DCGM_FI_DEV_FB_USED: 'fb_used_mib',
  DCGM_FI_DEV_FB_FREE: 'fb_free_mib',
  DCGM_FI_DEV_POWER_USAGE: 'power_w',
  DCGM_FI_DEV_GPU_TEMP: 'temp_c',
  DCGM_FI_DEV_SM_CLOCK: 'sm_clock_mhz',
  DCGM_FI_DEV_MEM_CLOCK: 'mem_clock_mhz',
} as const satisfies Record<string, keyof GpuSample>;

/**
 * Per-GPU samples from DCGM exporter text, keyed by the `gpu` label (falling back to `UUID`), in index order.
 * Other series and non-numeric values are ignored; throws only when the text is not Prometheus text at all.
 */
export function parseDcgmText(text: string): GpuSample[] {
  const gpus = new Map<string, GpuSample>();
  for (const f of parsePrometheusText(text)) {
    const field = (DCGM_FIELDS as Record<string, keyof GpuSample | undefined>)[f.name];
    if (!field) continue;
    for (const m of f.metrics) {
      const labels = m.labels ?? {};
      const id = labels.gpu ?? labels.UUID;
      const v = Number(m.value);
      if (id === undefined || m.value === undefined || !Number.isFinite(v)) continue;
      const s = gpus.get(id) ?? { gpu: id };
      if (labels.UUID) s.uuid = labels.UUID;
      if (labels.modelName) s.model_name = labels.modelName;
      (s as unknown as Record<string, number>)[field] = v;
      gpus.set(id, s);
    }
  }
  return [...gpus.values()].sort((a, b) => a.gpu.localeCompare(b.gpu, 'en', { numeric: true }));
}

export interface DcgmSamplerOptions {
  url: string;
  intervalMs: number;
  /** Deadline of one scrape (default min(interval, 2 s)): a hung exporter never piles up requests. */
  timeoutMs?: number;
  /** Called at the first failed scrape after start (the run goes on); later failures are counted in stats(). */
  onProblem?: (message: string) => void;
  now?: () => number;
}

export function createDcgmSampler(o: DcgmSamplerOptions): GpuSampler {
  const timeoutMs = o.timeoutMs ?? Math.min(o.intervalMs, 2000);
  const now = o.now ?? (() => Date.now());
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<unknown> | undefined;
  let stopped = false;
  let failed = 0;
  const scrape = async (deadlineMs = timeoutMs): Promise<GpuSample[]> => {
    const res = await fetch(o.url, { signal: AbortSignal.timeout(deadlineMs), headers: { accept: 'text/plain' } });
    const text = await res.text();
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    return parseDcgmText(text);
  };
  return {
    async start(onSample: GpuSampleListener) {
      let first: GpuSample[];
      try {
        // Before the run: a first connection may take longer than one period.
        first = await scrape(Math.max(timeoutMs, 5000));
      } catch (e) {
        throw new UsageError([`--gpu-metrics dcgm:${o.url}: no DCGM exporter answered (${(e as Error).message})`]);
      }
      if (!first.length) throw new UsageError([`--gpu-metrics dcgm:${o.url}: the page has no DCGM_FI_* series`]);
      onSample(first, now());
      const tick = (): void => {
        if (stopped || inFlight) return; // a slow scrape skips ticks instead of stacking
        const t = now();
        inFlight = scrape()
          .then((s) => !stopped && onSample(s, t))
          .catch((e: unknown) => {
            if (failed++ === 0) o.onProblem?.(`GPU metrics scrape of ${o.url} failed: ${stripControls(String((e as Error).message)).slice(0, 200)}; the run goes on, later failures are counted (run.json gpu_metrics.failed_scrapes)`);
          })
          .finally(() => (inFlight = undefined));
      };
      timer = setInterval(tick, o.intervalMs);
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      timer = undefined;
      await inFlight;
    },
    stats: () => ({ failed_scrapes: failed }),
  };
}
