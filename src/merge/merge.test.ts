// The shards' clock-skew checks and client health combined.
import { describe, expect, it } from 'vitest';
import { mergeClientHealth, shardClockSkew } from './merge.js';
import type { ShardDir } from './shards.js';
import type { ClientHealth } from '../metrics/health.js';

const shard = (index: number, run: Record<string, unknown>): ShardDir => ({ dir: `s${index}`, run, index, count: 2, configHash: 'h', originUnixMs: 0 });
const health = (p99: number, bound: boolean, count: number): ClientHealth => ({
  event_loop_delay_ms: { p50: 1, p99, max: p99 * 2 },
  cpu_percent: { one_core: 50, machine: 25 },
  send_lag_ms: { p50: 0.1, p99, max: p99, count },
  dropped: count > 5 ? 1 : 0,
  client_bound: bound,
  reasons: bound ? ['the event loop was blocked'] : [],
});

describe('merge', () => {
  it('bounds the skew between shards from their offsets against the same server', () => {
    const skew = shardClockSkew([
      shard(0, { start_sync: { clock_skew: { offset_ms: 12, uncertainty_ms: 5 } } }),
      shard(1, { start_sync: { clock_skew: { offset_ms: -30, uncertainty_ms: 8 } } }),
    ]);
    expect(skew).toEqual({ spread_ms: 42, uncertainty_ms: 13, at_least_ms: 29 });
    expect(shardClockSkew([shard(0, { start_sync: { clock_skew: { offset_ms: null } } }), shard(1, {})])).toBeNull();
  });

  it('combines client health: bound if any shard was, worst percentiles, summed counts', () => {
    const h = mergeClientHealth([shard(0, { client_health: health(3, false, 4) }), shard(1, { client_health: health(20, true, 6) })])!;
    expect(h.client_bound).toBe(true);
    expect(h.send_lag_ms).toEqual({ p50: 0.1, p99: 20, max: 20, count: 10 });
    expect(h.dropped).toBe(1);
    expect(h.reasons).toEqual(['shard 1/2: the event loop was blocked']);
  });
});
