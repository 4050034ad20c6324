// The metric registry: every per-request metric in display order; summary, tables, compare, SLOs, stats.csv and Prometheus read it.
import type { DistStats } from '../stats.js';
import { shownIn, type MetricDef, type Place } from './metric-def.js';
import { ttft } from './ttft.js';
import { ttftFromScheduled } from './ttft-from-scheduled.js';
import { ttfat } from './ttfat.js';
import { firstEvent } from './first-event.js';
import { tpot } from './tpot.js';
import { itl } from './itl.js';
import { e2e } from './e2e.js';
import { outputSpeed } from './output-speed.js';
import { inputTokens } from './input-tokens.js';
import { outputTokens } from './output-tokens.js';
import { reasoningTokens } from './reasoning-tokens.js';
import { cachedTokens } from './cached-tokens.js';
import { scheduleLag } from './schedule-lag.js';
import { joinWait } from './join-wait.js';
import { toolWait } from './tool-wait.js';

export * from './metric-def.js';

/** The built-in metrics, in display order (summary.json keys, table rows, compare rows follow it). */
export const BUILTIN_METRICS: readonly MetricDef[] = [
  ttft, ttftFromScheduled, ttfat, firstEvent, tpot, itl, e2e, outputSpeed, inputTokens, outputTokens, reasoningTokens, cachedTokens, scheduleLag,
];

/**
 * The metrics broken down by turn index (summary.json by_turn, docs/metrics.md#sessions-and-turns), and the session
 * waits (summary.json sessions): kept out of BUILTIN_METRICS so the metrics block of a run without sessions is unchanged.
 */
export const TURN_METRICS: readonly MetricDef[] = [ttft, tpot, e2e];
/** The latency metrics broken down by image count per request (summary.json by_images, docs/metrics.md#images-video-and-audio). */
export const MEDIA_METRICS: readonly MetricDef[] = [ttft, tpot, itl, e2e];
export const SESSION_WAIT_METRICS: readonly MetricDef[] = [joinWait, toolWait];

const extra: MetricDef[] = [];

/**
 * Add a metric (a library user's, or a test's): from then on aggregators made after it compute it and every view
 * that shows its places does. Returns a function that removes it again. Its id must be new.
 */
export function registerMetric(def: MetricDef): () => void {
  if (metricDefs().some((d) => d.id === def.id)) throw new Error(`registerMetric: a metric "${def.id}" is already registered`);
  extra.push(def);
  return () => {
    const i = extra.indexOf(def);
    if (i >= 0) extra.splice(i, 1);
  };
}

/** Every metric, built-in ones first, then the registered ones in the order they were added. */
export function metricDefs(): readonly MetricDef[] {
  return extra.length ? [...BUILTIN_METRICS, ...extra] : BUILTIN_METRICS;
}

/** The metrics shown in `place`, in display order. */
export const metricsShownIn = (place: Place): MetricDef[] => metricDefs().filter((d) => shownIn(d, place));

/** A metric by summary id (`ttft_ms`), or undefined. */
export const metricById = (id: string): MetricDef | undefined => metricDefs().find((d) => d.id === id);

/** A metrics block's distribution of `def` (undefined in summaries written before the metric existed). */
export const distOf = (block: object, def: Pick<MetricDef, 'id'>): DistStats | undefined => (block as Record<string, DistStats | undefined>)[def.id];
