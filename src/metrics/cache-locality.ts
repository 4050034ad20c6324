// Cache locality: did requests of one shared-prefix group reach an endpoint that had already served (and cached) that prefix?
import type { RequestRecord } from './record.js';

export interface PrefixGroupStats {
  /** Measured ok requests of the group. */
  requests: number;
  /** Where they were served: endpoint (or endpoint/served_by behind a router) → requests. */
  endpoints: Record<string, number>;
  /** Σ cached_tokens / Σ input_tokens over its measured ok requests that reported cached_tokens; null when none did. */
  cached_token_rate: number | null;
}

export interface PrefixGroupsSummary {
  /** Measured ok requests with a prefix group. */
  requests: number;
  /** Of those, the ones with an earlier ok request of the same group anywhere (the first of each group cannot hit). */
  eligible: number;
  /** Of the eligible, the ones whose endpoint had served an ok request of the same group before: cache_locality = hits / eligible. */
  hits: number;
  cached_token_rate: number | null;
  /** Distinct serving units seen; with 1 every eligible request is a hit by definition (one server, nothing to route). */
  units: number;
  by_group: Record<string, PrefixGroupStats>;
}

interface Entry {
  group: number;
  unit: string;
  sent: number;
  id: number;
  attempt: number;
  warmup: boolean;
  cached: number | null;
  input: number;
}

/**
 * The serving unit of a record: its endpoint, plus the replica a router named (`x-served-by`), so that routing behind
 * one URL counts too; "-" for a run with one endpoint and no such header.
 */
export function servingUnit(r: Pick<RequestRecord, 'endpoint' | 'served_by'>): string {
  if (r.served_by !== undefined) return r.endpoint !== undefined ? `${r.endpoint}/${r.served_by}` : r.served_by;
  return r.endpoint ?? '-';
}

/** Collects the ok records of prefix groups (warmup too: they fill caches) and derives locality at the end. */
export class CacheLocalityAggregator {
  private readonly entries: Entry[] = [];
  add(r: RequestRecord): void {
    if (r.prefix_group === undefined || r.status !== 'ok') return;
    this.entries.push({ group: r.prefix_group, unit: servingUnit(r), sent: r.sent_at_ms, id: r.id, attempt: r.attempt, warmup: r.warmup, cached: r.cached_tokens, input: r.input_tokens ?? 0 });
  }
  get size(): number {
    return this.entries.length;
  }
  /**
   * In send order (sent_at_ms, then id, attempt): a measured request is eligible when an earlier ok request of its
   * group exists, and a hit when one of those was served by the same unit. cache_locality = hits / eligible.
   */
  summary(): { cacheLocality: number | null; groups: PrefixGroupsSummary } | undefined {
    if (!this.entries.length) return undefined;
    const sorted = [...this.entries].sort((a, b) => a.sent - b.sent || a.id - b.id || a.attempt - b.attempt);
    const seen = new Map<number, Set<string>>();
    const acc = new Map<number, { requests: number; endpoints: Record<string, number>; cached: number; input: number; reported: boolean }>();
    let requests = 0;
    let eligible = 0;
    let hits = 0;
    let cached = 0;
    let input = 0;
    let reported = false;
    for (const e of sorted) {
      const units = seen.get(e.group);
      if (!e.warmup) {
        requests++;
        if (units) {
          eligible++;
          if (units.has(e.unit)) hits++;
        }
        let g = acc.get(e.group);
        if (!g) acc.set(e.group, (g = { requests: 0, endpoints: {}, cached: 0, input: 0, reported: false }));
        g.requests++;
        g.endpoints[e.unit] = (g.endpoints[e.unit] ?? 0) + 1;
        if (e.cached !== null) {
          g.cached += e.cached;
          g.input += e.input;
          g.reported = true;
          cached += e.cached;
          input += e.input;
          reported = true;
        }
      }
      if (units) units.add(e.unit);
      else seen.set(e.group, new Set([e.unit]));
    }
    if (!requests) return undefined;
    const rate = (c: number, i: number, any: boolean) => (any && i > 0 ? c / i : null);
    const by_group: Record<string, PrefixGroupStats> = {};
    for (const [g, a] of [...acc.entries()].sort((x, y) => x[0] - y[0]))
      by_group[String(g)] = { requests: a.requests, endpoints: Object.fromEntries(Object.entries(a.endpoints).sort(([x], [y]) => (x < y ? -1 : 1))), cached_token_rate: rate(a.cached, a.input, a.reported) };
    const units = new Set(sorted.filter((e) => !e.warmup).map((e) => e.unit)).size;
    return { cacheLocality: eligible ? hits / eligible : null, groups: { requests, eligible, hits, cached_token_rate: rate(cached, input, reported), units, by_group } };
  }
}
