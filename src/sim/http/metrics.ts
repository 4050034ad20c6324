// The sim server's engine metrics: per-request and per-step observations exported under one engine's names (a flavor).
import { Registry } from 'prom-client';
import { byKind } from '../../util/kinds.js';
import { vllmFlavor } from './metrics-vllm.js';
import { sglangFlavor } from './metrics-sglang.js';
import { tgiFlavor } from './metrics-tgi.js';
import type { FlavorContext, MetricsFlavor, SimObservations } from './metrics-flavors.js';

export const METRICS_FLAVORS: Record<MetricsFlavor, (ctx: FlavorContext) => SimObservations> = { vllm: vllmFlavor, sglang: sglangFlavor, tgi: tgiFlavor };
export { METRICS_FLAVOR_NAMES, type FinishedRequest, type FlavorContext, type MetricsFlavor, type SimObservations } from './metrics-flavors.js';

export interface SimMetrics extends SimObservations {
  registry: Registry;
  text(): Promise<string>;
}

export function createSimMetrics(flavor: MetricsFlavor, ctx: Omit<FlavorContext, 'registry'>): SimMetrics {
  const make: (ctx: FlavorContext) => SimObservations = byKind(METRICS_FLAVORS, flavor, 'metrics-flavor');
  const registry = new Registry();
  const obs = make({ ...ctx, registry });
  return { ...obs, registry, text: () => registry.metrics() };
}

/**
 * The standard process collector's series (as Prometheus clients export them, Python's in vLLM and SGLang): CPU
 * seconds (with prom-client's user/system split) and resident memory of the process serving the sim, so resource use
 * through /metrics works against it (docs/gpu-telemetry.md). An embedded sim shares its process with the client.
 */
export function processMetricsText(): string {
  const cpu = process.cpuUsage();
  const user = cpu.user / 1e6;
  const sys = cpu.system / 1e6;
  return [
    '# HELP process_cpu_user_seconds_total Total user CPU time spent in seconds.',
    '# TYPE process_cpu_user_seconds_total counter',
    `process_cpu_user_seconds_total ${user}`,
    '# HELP process_cpu_system_seconds_total Total system CPU time spent in seconds.',
    '# TYPE process_cpu_system_seconds_total counter',
    `process_cpu_system_seconds_total ${sys}`,
    '# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.',
    '# TYPE process_cpu_seconds_total counter',
    `process_cpu_seconds_total ${user + sys}`,
    '# HELP process_resident_memory_bytes Resident memory size in bytes.',
    '# TYPE process_resident_memory_bytes gauge',
    `process_resident_memory_bytes ${process.memoryUsage.rss()}`,
    '',
  ].join('\n');
}
