// The GPU timeline source: --gpu-metrics (DCGM or nvidia-smi) and host metrics (--server-pid) sampled beside the run into gpu_metrics.jsonl.
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Summary } from '../metrics/summary-model.js';
import type { SourceContext, SourceResult, TimelineSource } from './source.js';
import { drop, max, mean, summarizeGpuSamples, type GpuSample } from './gpu/sample.js';

export const GPU_METRICS_JSONL = 'gpu_metrics.jsonl';

export interface GpuSourceConfig {
  gpuMetrics?: string;
  serverPid?: number;
  /** Seconds between samples (--scrape-interval, shared with the server metrics). */
  scrapeInterval: number;
}

/** One line of gpu_metrics.jsonl: the GPUs at one moment, or the host at one moment; t_ms on the run clock. */
type Line = { t_ms: number; gpus: Record<string, unknown>[] } | { t_ms: number; host: Record<string, unknown> };

/**
 * The source, or none when neither --gpu-metrics nor --server-pid is given. The samplers' modules (and pidusage)
 * are loaded only then. Lines are buffered and appended at most once a second, off the request path.
 */
export function gpuSources(c: GpuSourceConfig): TimelineSource[] {
  if (c.gpuMetrics === undefined && c.serverPid === undefined) return [];
  const intervalMs = c.scrapeInterval * 1000;
  let stopAll: (() => Promise<void>) | undefined;
  let file = '';
  let pending: string[] = [];
  let lines = 0;
  const flush = () => {
    if (!pending.length) return;
    appendFileSync(file, pending.join(''));
    pending = [];
  };
  const push = (l: Line) => {
    pending.push(JSON.stringify(l) + '\n');
    lines++;
  };
  return [
    {
      name: 'gpu',
      async start(ctx: SourceContext) {
        const { createGpuSampler, createHostSampler } = await import('./gpu/create.js');
        file = join(ctx.outDir, GPU_METRICS_JSONL);
        writeFileSync(file, '');
        const gpu = c.gpuMetrics !== undefined ? createGpuSampler(c.gpuMetrics, { intervalMs, onProblem: ctx.notice, now: ctx.now }) : undefined;
        const host = createHostSampler({ intervalMs, serverPid: c.serverPid, onProblem: ctx.notice, now: ctx.now });
        const live = (l: Line) => (push(l), ctx.onSample?.({ source: 'gpu', tMs: l.t_ms, line: l as unknown as Record<string, unknown> }));
        await gpu?.start((gpus, t) => live({ t_ms: t, gpus: gpus as unknown as Record<string, unknown>[] }));
        await host.start((h, t) => live({ t_ms: t, host: h as unknown as Record<string, unknown> }));
        const timer = setInterval(flush, 1000);
        timer.unref();
        stopAll = async () => {
          clearInterval(timer);
          await Promise.all([gpu?.stop(), host.stop()]);
          flush();
        };
      },
      async stop(): Promise<SourceResult> {
        await stopAll?.();
        return { meta: { gpu_metrics: { source: c.gpuMetrics ?? null, server_pid: c.serverPid ?? null, samples: lines, interval_ms: intervalMs } }, files: [GPU_METRICS_JSONL] };
      },
    },
  ];
}

const nums = (rows: Record<string, unknown>[], k: string): number[] => rows.map((r) => r[k]).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));

/** The lines of `dir`/gpu_metrics.jsonl; [] when absent. A line cut short by a crash is skipped. */
export function readGpuLines(dir: string): Line[] {
  const p = join(dir, GPU_METRICS_JSONL);
  if (!existsSync(p)) return [];
  const out: Line[] = [];
  for (const l of readFileSync(p, 'utf8').split('\n')) {
    if (!l.trim()) continue;
    try {
      const o = JSON.parse(l) as Line;
      if (typeof o.t_ms === 'number') out.push(o);
    } catch {
      // skipped
    }
  }
  return out;
}

/**
 * Adds summary.gpu (in place) from gpu_metrics.jsonl: the GPU summary (docs/gpu-telemetry.md) and a `host` block
 * (client CPU % mean and max, memory used max; the --server-pid process's CPU % mean and RSS max). The same in run
 * and report, since both derive it from the file.
 */
export function withGpuSection(dir: string, summary: Summary): Summary {
  const lines = readGpuLines(dir);
  if (!lines.length) return summary;
  const sets = lines.flatMap((l) => ('gpus' in l ? [l.gpus] : []));
  const hosts = lines.flatMap((l) => ('host' in l ? [l.host] : []));
  const host = drop({
    samples: hosts.length,
    cpu_pct_mean: mean(nums(hosts, 'cpu_pct')),
    cpu_pct_max: max(nums(hosts, 'cpu_pct')),
    mem_used_mib_max: max(nums(hosts, 'mem_used_mib')),
    server_cpu_pct_mean: mean(nums(hosts, 'server_cpu_pct')),
    server_rss_mib_max: max(nums(hosts, 'server_rss_mib')),
  });
  summary.gpu = { ...(sets.length ? summarizeGpuSamples(sets as unknown as GpuSample[][]) : {}), samples: sets.length, host };
  return summary;
}
