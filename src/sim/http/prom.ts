// prom-client helpers shared by the sim server's metric flavors: gauges read at scrape time and mirrored engine counters.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { EngineCounters } from '../engine/engine.js';

export type Labels = Record<string, string>;

export interface PromKit {
  registry: Registry;
  labels: Labels;
  /** A gauge set from the engine's counters at each scrape. */
  gauge(name: string, help: string, pick: (c: EngineCounters) => number): void;
  /** A counter that follows a cumulative engine counter (adds the increase since the last scrape). */
  mirrored(name: string, help: string, pick: (c: EngineCounters) => number): void;
  hist(name: string, help: string, buckets: number[], extraLabels?: string[]): Histogram;
  counter(name: string, help: string, extraLabels?: string[]): Counter;
}

export function promKit(registry: Registry, labels: Labels, counters: () => EngineCounters): PromKit {
  const labelNames = Object.keys(labels);
  return {
    registry,
    labels,
    gauge(name, help, pick) {
      new Gauge({
        name, help, labelNames, registers: [registry],
        collect() { this.set(labels, pick(counters())); },
      });
    },
    mirrored(name, help, pick) {
      let last = 0;
      const counter = new Counter({
        name, help, labelNames, registers: [registry],
        collect() {
          const v = pick(counters());
          if (v > last) this.inc(labels, v - last);
          last = v;
        },
      });
      counter.inc(labels, 0);
    },
    // Series without extra labels exist from the start (count 0), as the engines' clients create them.
    hist(name, help, buckets, extra = []) {
      const h = new Histogram({ name, help, buckets, labelNames: [...labelNames, ...extra], registers: [registry] });
      if (!extra.length) h.zero(labels);
      return h;
    },
    counter(name, help, extra = []) {
      const c = new Counter({ name, help, labelNames: [...labelNames, ...extra], registers: [registry] });
      if (!extra.length) c.inc(labels, 0);
      return c;
    },
  };
}

/** Prometheus-style exponential buckets: start, start·factor, ... (count of them). */
export function exponentialBuckets(start: number, factor: number, count: number): number[] {
  const out: number[] = [];
  for (let i = 0, v = start; i < count; i++, v *= factor) out.push(Number(v.toPrecision(6)));
  return out;
}
