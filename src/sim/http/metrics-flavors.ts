// The sim server's metric flavors by name and the observations each flavor implements (apart from the builders: no prom-client, no cycle).
import type { Registry } from 'prom-client';
import type { EngineCounters } from '../engine/engine.js';
export const METRICS_FLAVOR_NAMES = ['vllm', 'sglang', 'tgi'] as const;
export type MetricsFlavor = (typeof METRICS_FLAVOR_NAMES)[number];

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
  /** A request was aborted before it finished (its client went away): dropped from the engine, its KV freed. */
  aborted?(): void;
  /** One engine step ran; `prefill` when it computed any prompt tokens. */
  step(durationS: number, kind: 'prefill' | 'decode'): void;
}

export interface FlavorContext {
  registry: Registry;
  modelName: string;
  counters: () => EngineCounters;
  /** KV cache capacity in tokens (SGLang's max_total_num_tokens). */
  kvCapacityTokens: number;
  /** Speculative decoding is on: export its counters (as vLLM does only then). */
  specDecode?: boolean;
  /** Simulated ms now, for rates computed at scrape time. */
  nowSimMs: () => number;
}

