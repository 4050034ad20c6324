// Cache locality: hits counted in send order per serving unit; the first request of each group is not eligible.
import { describe, it, expect } from 'vitest';
import { CacheLocalityAggregator, servingUnit } from './cache-locality.js';
import type { RequestRecord } from './record.js';

const rec = (id: number, group: number, unit: { endpoint?: string; served_by?: string }, extra: Partial<RequestRecord> = {}): RequestRecord =>
  ({ id, attempt: 1, warmup: false, status: 'ok', sent_at_ms: id * 10, prefix_group: group, cached_tokens: 0, input_tokens: 100, ...unit, ...extra }) as RequestRecord;

describe('cache locality', () => {
  it('counts a hit when the same unit served the group before, in send order', () => {
    const agg = new CacheLocalityAggregator();
    // Added out of order: the aggregator sorts by send time.
    for (const r of [
      rec(3, 0, { endpoint: 't2' }, { cached_tokens: 0 }),
      rec(1, 0, { endpoint: 't1' }),
      rec(2, 0, { endpoint: 't1' }, { cached_tokens: 80 }),
      rec(4, 1, { endpoint: 't2' }),
      rec(5, 1, { endpoint: 't2' }, { cached_tokens: 80 }),
      rec(6, 0, { endpoint: 't2' }, { cached_tokens: 80, status: 'http_error' }),
    ])
      agg.add(r);
    const s = agg.summary()!;
    // Eligible: 2, 3 (group 0) and 5 (group 1); hits: 2 and 5. The failed request is left out.
    expect(s.groups.requests).toBe(5);
    expect(s.groups.eligible).toBe(3);
    expect(s.groups.hits).toBe(2);
    expect(s.cacheLocality).toBeCloseTo(2 / 3, 12);
    expect(s.groups.by_group['0']).toEqual({ requests: 3, endpoints: { t1: 2, t2: 1 }, cached_token_rate: 80 / 300 });
    expect(s.groups.cached_token_rate).toBeCloseTo(160 / 500, 12);
  });

  it('uses the replica a router named, and warmup requests fill caches without being counted', () => {
    expect(servingUnit({ served_by: 'replica-1' })).toBe('replica-1');
    expect(servingUnit({ endpoint: 't1', served_by: 'r2' })).toBe('t1/r2');
    expect(servingUnit({})).toBe('-');
    const agg = new CacheLocalityAggregator();
    agg.add(rec(1, 0, { served_by: 'replica-0' }, { warmup: true }));
    agg.add(rec(2, 0, { served_by: 'replica-0' }));
    agg.add(rec(3, 0, { served_by: 'replica-1' }, { cached_tokens: null }));
    const s = agg.summary()!;
    expect([s.groups.requests, s.groups.eligible, s.groups.hits, s.groups.units]).toEqual([2, 2, 1, 2]);
    expect(agg.summary()!.groups.by_group['0'].cached_token_rate).toBe(0);
  });

  it('says nothing without prefix groups', () => {
    const agg = new CacheLocalityAggregator();
    agg.add({ ...rec(1, 0, {}), prefix_group: undefined });
    expect(agg.summary()).toBeUndefined();
  });
});
