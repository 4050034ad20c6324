// The sim server's /metrics: per-request and per-step observations exported under one engine's names (a flavor), plus DCGM GPU series.
import { Registry } from 'prom-client';
import type { EngineCounters } from '../engine/engine.js';
import { byKind } from '../../util/kinds.js';
import { vllmFlavor } from './metrics-vllm.js';
import { sglangFlavor } from './metrics-sglang.js';
import { tgiFlavor } from './metrics-tgi.js';
import { METRICS_FLAVOR_NAMES, type MetricsFlavor } from './metrics-flavors.js';

/** A finished request, all times in seconds of simulated time. */
export interface FinishedRequest {
  reason: 'length' | 'stop';
  /** Arrival → last token. */
  e2eS: number;
  /** Arrival → first scheduled. */
  queueS: number;
  /** First scheduled → first token. */
  prefillS: number;
  /** First token → last token. */
  decodeS: number;
  /** First scheduled → last token (prefill + decode). */
  inferenceS: number;
  promptTokens: number;
  outputTokens: number;
}

/** What the server tells its metrics, at the moment each thing happens (times in simulated seconds). */
export interface SimObservations {
  /** A request was accepted and queued. */
  arrived(promptTokens: number): void;
  /** A request was scheduled for the first time, after `queueS` in the waiting queue. */
  queued(queueS: number): void;
  firstToken(ttftS: number, prefillS: number): void;
  interToken(seconds: number): void;
  finished(f: FinishedRequest): void;
  /** One engine step ran; `prefill` when it computed any prompt tokens. */
  step(durationS: number, kind: 'prefill' | 'decode'): void;
}

export interface FlavorContext {
  registry: Registry;
  modelName: string;
  counters: () => EngineCounters;
  /** KV cache capacity in tokens (SGLang's max_total_num_tokens). */
  kvCapacityTokens: number;
  /** Simulated ms now, for rates computed at scrape time. */
  nowSimMs: () => number;
}

export const METRICS_FLAVORS: Record<MetricsFlavor, (ctx: FlavorContext) => SimObservations> = { vllm: vllmFlavor, sglang: sglangFlavor, tgi: tgiFlavor };
export { METRICS_FLAVOR_NAMES, type MetricsFlavor };

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
