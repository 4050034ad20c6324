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
