// The GPU timeline source: --gpu-metrics (DCGM or nvidia-smi) and host metrics (always; --server-pid adds a process) sampled beside the run into gpu_metrics.jsonl.
import type { Summary } from '../metrics/summary-model.js';
import type { SourceContext, SourceResult, TimelineSource } from './source.js';
import { drop, GpuSummaryBuilder, MAX_GPUS, Running, saneGpuSample, type GpuSample } from './gpu/sample.js';
import { stripControls } from '../util/terminal-text.js';
import { forEachLine, Thinner } from './jsonl-lines.js';
import { TELEMETRY_FLUSH } from './sample-writer.js';
import type { LineAppender } from '../util/line-appender.js';
// Imported up front, not on start: the sources start on the run clock, before the first request, so start() must not
// spend that time loading a module (a dynamic import here delayed every run's first send by tens of ms).
import { createHostSampler } from './gpu/host.js';
import { ARTIFACTS, appendArtifact, artifactPath } from '../artifacts/registry.js';

export const GPU_METRICS_JSONL = ARTIFACTS.gpuMetrics.file;

export interface GpuSourceConfig {
  gpuMetrics?: string;
  serverPid?: number;
  /** Seconds between samples (--scrape-interval, shared with the server metrics). */
  scrapeInterval: number;
}

/** One line of gpu_metrics.jsonl: the GPUs at one moment, or the host at one moment; t_ms on the run clock. */
export type GpuLine = Line;
type Line = { t_ms: number; source?: string; gpus: Record<string, unknown>[] } | { t_ms: number; host: Record<string, unknown> };

/**
 * The source of every measured run (the lifecycle runs no source on the virtual driver): host metrics always (a few
 * os calls and one /proc read per interval), GPUs with --gpu-metrics, a process with --server-pid. The GPU samplers'
 * modules (and pidusage) are loaded only when asked for. Lines go through the one JSONL appender, written at most
 * once a second off the request path; a failed write (disk full) stops the file, and run.json says why.
 */
export function gpuSources(c: GpuSourceConfig): TimelineSource[] {
  const intervalMs = c.scrapeInterval * 1000;
  let stopAll: (() => Promise<void>) | undefined;
  let gpuStats: (() => Record<string, number>) | undefined;
  let rejected = 0;
  let cutGpus = 0;
  let out: LineAppender | undefined;
  let lines = 0;
  const push = (l: Line) => {
    out!.append(JSON.stringify(l) + '\n');
    lines++;
  };
  return [
    {
      name: 'gpu',
      async start(ctx: SourceContext) {
        const createGpuSampler = c.gpuMetrics !== undefined ? (await import('./gpu/create.js')).createGpuSampler : undefined;
        out = appendArtifact(ctx.outDir, ARTIFACTS.gpuMetrics, { ...TELEMETRY_FLUSH, unit: 'lines' });
        const gpu = c.gpuMetrics !== undefined ? createGpuSampler!(c.gpuMetrics, { intervalMs, onProblem: ctx.notice, now: ctx.now }) : undefined;
        const host = createHostSampler({ intervalMs, serverPid: c.serverPid, onProblem: ctx.notice, now: ctx.now });
        const live = (l: Line) => (push(l), ctx.onSample?.({ source: 'gpu', tMs: l.t_ms, line: l as unknown as Record<string, unknown> }));
        gpuStats = gpu?.stats?.bind(gpu);
        await gpu?.start((gpus, t) => {
          // Every reading goes through the sanity rule; a set never holds more than MAX_GPUS GPUs.
          const bad: string[] = [];
          if (gpus.length > MAX_GPUS) cutGpus += gpus.length - MAX_GPUS;
          const kept = gpus.slice(0, MAX_GPUS).map((g) => saneGpuSample(g, bad));
          if (bad.length && !rejected) ctx.notice(`GPU metrics: a reading out of range was dropped (${stripControls(bad[0]).slice(0, 120)}); such readings are counted in run.json gpu_metrics.rejected_values`);
          rejected += bad.length;
          live({ t_ms: t, gpus: kept as unknown as Record<string, unknown>[] });
        });
        await host.start((h, t) => live({ t_ms: t, host: h as unknown as Record<string, unknown> }));
        stopAll = async () => {
          await Promise.all([gpu?.stop(), host.stop()]);
          await out!.flush();
          out!.close();
        };
      },
      async stop(): Promise<SourceResult> {
        await stopAll?.();
        out?.close(); // also when start failed part-way (closing twice is a no-op)
        const failure = out?.failure?.reason;
        const extra = { ...(gpuStats?.() ?? {}), ...(rejected ? { rejected_values: rejected } : {}), ...(cutGpus ? { gpus_past_limit: cutGpus } : {}), ...(failure ? { write_error: failure } : {}) };
        return { meta: { gpu_metrics: { source: c.gpuMetrics ?? null, server_pid: c.serverPid ?? null, samples: lines, interval_ms: intervalMs, ...extra } }, files: failure ? [] : [GPU_METRICS_JSONL] };
      },
    },
  ];
}

/** Each line of `dir`/gpu_metrics.jsonl, streamed (never the file as one string); a line cut short by a crash is skipped. */
export function forEachGpuLine(dir: string, fn: (l: Line) => void): void {
  forEachLine(artifactPath(dir, ARTIFACTS.gpuMetrics), (l) => {
    try {
      const o = JSON.parse(l) as Line;
      if (o && typeof o.t_ms === 'number') fn(o);
    } catch {
      // skipped
    }
  });
}

/** The lines of `dir`/gpu_metrics.jsonl; [] when absent. A line cut short by a crash is skipped. `maxLines`: an evenly spaced subset (charts). */
export function readGpuLines(dir: string, maxLines = Infinity): Line[] {
  const t = new Thinner<Line>(maxLines);
  forEachGpuLine(dir, (l) => t.add(l));
  return t.result();
}

const MB = 1e6;

/**
 * Adds summary.gpu (in place) from gpu_metrics.jsonl, streamed: the GPU summary (docs/gpu-telemetry.md) and a `host`
 * block (client CPU % mean and max, memory used max, network bytes received and sent with their MB/s; the
 * --server-pid process's CPU % mean and RSS max). The same in run and report, since both derive it from the file.
 * `also` sees every line of the same pass (the lifecycle keeps the report's chart sample so: the file is read once).
 * MB/s = bytes of every host sample after the first ÷ the time from the first sample to the last (each sample's
 * bytes are those since the one before it).
 */
export function withGpuSection(dir: string, summary: Summary, also?: (l: Line) => void): Summary {
  const gpus = new GpuSummaryBuilder();
  let sets = 0;
  let hosts = 0;
  const cpu = new Running();
  const mem = new Running();
  const srvCpu = new Running();
  const cpuUser = new Running();
  const cpuSys = new Running();
  const srvUser = new Running();
  const srvSys = new Running();
  const srvRss = new Running();
  let rx: number | undefined;
  let tx: number | undefined;
  let rxRate = 0;
  let txRate = 0;
  let t0: number | undefined;
  let t1 = 0;
  let modelled = false;
  forEachGpuLine(dir, (l) => {
    also?.(l); // the same pass feeds the caller (the report's chart sample)
    if ('gpus' in l && Array.isArray(l.gpus)) {
      sets++;
      if (l.source === 'model') modelled = true;
      gpus.add(l.gpus as unknown as GpuSample[]);
    } else if ('host' in l && l.host && typeof l.host === 'object') {
      const h = l.host;
      hosts++;
      cpu.add(h.cpu_pct);
      mem.add(h.mem_used_mib);
      srvCpu.add(h.server_cpu_pct);
      cpuUser.add(h.cpu_user_pct);
      cpuSys.add(h.cpu_sys_pct);
      srvUser.add(h.server_cpu_user_pct);
      srvSys.add(h.server_cpu_sys_pct);
      srvRss.add(h.server_rss_mib);
      const r = typeof h.net_rx_bytes === 'number' && Number.isFinite(h.net_rx_bytes) ? h.net_rx_bytes : undefined;
      const t = typeof h.net_tx_bytes === 'number' && Number.isFinite(h.net_tx_bytes) ? h.net_tx_bytes : undefined;
      if (r !== undefined) rx = (rx ?? 0) + r;
      if (t !== undefined) tx = (tx ?? 0) + t;
      if (t0 === undefined) t0 = l.t_ms;
      else {
        rxRate += r ?? 0;
        txRate += t ?? 0;
        t1 = l.t_ms;
      }
    }
  });
  if (!sets && !hosts) return summary;
  const spanS = t0 !== undefined && t1 > t0 ? (t1 - t0) / 1000 : 0;
  const r3 = (x: number): number => Number(x.toFixed(3));
  const host = drop({
    samples: hosts,
    cpu_pct_mean: cpu.mean,
    cpu_pct_max: cpu.max,
    cpu_user_pct_mean: cpuUser.mean,
    cpu_sys_pct_mean: cpuSys.mean,
    mem_used_mib_max: mem.max,
    net_rx_bytes: rx,
    net_tx_bytes: tx,
    net_rx_mb_per_s: rx !== undefined && spanS > 0 ? r3(rxRate / MB / spanS) : undefined,
    net_tx_mb_per_s: tx !== undefined && spanS > 0 ? r3(txRate / MB / spanS) : undefined,
    server_cpu_pct_mean: srvCpu.mean,
    server_cpu_user_pct_mean: srvUser.mean,
    server_cpu_sys_pct_mean: srvSys.mean,
    server_rss_mib_max: srvRss.max,
  });
  // A simulated sweep's GPUs are the engine model's (lines with `source: "model"`), and it has no host.
  summary.gpu = { ...(modelled ? { source: 'model' } : {}), ...(sets ? gpus.summary() : {}), samples: sets, ...(hosts || !modelled ? { host } : {}) };
  return summary;
}
