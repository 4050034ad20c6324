// --shard, --start-at and the Indexed Job's environment: parsed, or refused with what was wrong.
import { describe, expect, it } from 'vitest';
import { parseShard, parseStartAt, shardFromEnv } from './shard.js';
import { resolveRunConfig } from './load.js';

describe('shard options', () => {
  it('parses I/N with a 0-based index', () => {
    expect(parseShard('0/3')).toEqual({ index: 0, count: 3 });
    expect(parseShard(' 2 / 3 ')).toEqual({ index: 2, count: 3 });
    expect(() => parseShard('3/3')).toThrow(/not below the count 3/);
    expect(() => parseShard('1/0')).toThrow(/shard count N from 1/);
    expect(() => parseShard('-1/3')).toThrow(/expected I\/N/);
  });

  it('parses ISO times with a zone and epoch ms', () => {
    expect(parseStartAt('2026-12-01T18:00:00Z')).toBe(Date.UTC(2026, 11, 1, 18));
    expect(parseStartAt('2026-12-01T19:00:00+01:00')).toBe(Date.UTC(2026, 11, 1, 18));
    expect(parseStartAt('1796148000000')).toBe(1796148000000);
    expect(() => parseStartAt('2026-12-01 18:00')).toThrow(/ISO 8601 time with its zone/);
  });

  it('reads the shard from JOB_COMPLETION_INDEX and TOKENFLOOD_SHARDS, only when TOKENFLOOD_SHARDS is set', () => {
    expect(shardFromEnv({ JOB_COMPLETION_INDEX: '2', TOKENFLOOD_SHARDS: '4' })).toEqual({ shard: '2/4' });
    expect(shardFromEnv({ JOB_COMPLETION_INDEX: '2' })).toEqual({});
    expect(shardFromEnv({ TOKENFLOOD_SHARDS: '4' }).problem).toMatch(/JOB_COMPLETION_INDEX is not/);
    expect(shardFromEnv({ JOB_COMPLETION_INDEX: '4', TOKENFLOOD_SHARDS: '4' }).problem).toMatch(/not below the count 4/);
    const c = resolveRunConfig({ flags: { concurrency: 8 }, env: { JOB_COMPLETION_INDEX: '1', TOKENFLOOD_SHARDS: '4' } }).config;
    expect(c.shard).toBe('1/4');
    // --shard given wins over the environment.
    expect(resolveRunConfig({ flags: { concurrency: 8, shard: '3/4' }, env: { JOB_COMPLETION_INDEX: '1', TOKENFLOOD_SHARDS: '4' } }).config.shard).toBe('3/4');
  });

  it('refuses what a shard cannot split', () => {
    const problems = (flags: Record<string, unknown>) => {
      try {
        resolveRunConfig({ flags, env: {} });
        return [];
      } catch (e) {
        return (e as { problems: string[] }).problems;
      }
    };
    expect(problems({ shard: '0/2', concurrency: 4, ui: true }).join()).toMatch(/--ui/);
    expect(problems({ shard: '0/2', concurrency: 4, cacheAb: true }).join()).toMatch(/--cache-ab/);
    expect(problems({ shard: '0/2', concurrency: 4, rampUp: '5s', duration: '20s' }).join()).toMatch(/VU ramps/);
    expect(problems({ shard: '0/2', rate: 10, rampUp: '5s', duration: '20s' })).toEqual([]);
    expect(problems({ shard: '0/2', stages: '5s:10/s,5s:0' })).toEqual([]);
  });
});
