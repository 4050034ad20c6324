import { describe, it, expect } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { resolveRunConfig } from '../config/load.js';
import { DEFAULT_SHORT_THRESHOLD, LENGTH_SAMPLE, lengthMix, describeMix, UnplannableLengths } from './length-mix.js';
import { boundedSize, runLengthPlan } from '../cli/short-baseline-auto.js';

const plan = (flags: Record<string, unknown>) => runLengthPlan(resolveRunConfig({ flags }).config);

describe('mixed-length detection', () => {
  it('the default boundary is the first of the default length bands, 4k = 4096 tokens', () => {
    expect(DEFAULT_SHORT_THRESHOLD).toBe(4096);
  });

  it('a --mix of short and long classes is mixed; its shares follow the weights', () => {
    const p = plan({ mix: 'short: 70% in 256 out 32; long: 30% in 12000 out 32', requests: 1000 });
    expect(p.lengths.length).toBe(1000);
    expect(p.sampled).toBe(false);
    const m = lengthMix(p);
    expect(m.mixed).toBe(true);
    expect(m.shortShare).toBeGreaterThan(0.65);
    expect(m.shortShare).toBeLessThan(0.75);
    expect(m.shortRequests + m.longRequests).toBe(1000);
    expect(describeMix(m)).toMatch(/^\d+% under 4k, \d+% over$/);
  });

  it('one length, or a lognormal on one side of 4k, is not mixed; a lognormal spanning it is', () => {
    expect(lengthMix(plan({ inputTokens: 8000 })).mixed).toBe(false);
    expect(lengthMix(plan({ inputTokens: 'lognormal:mean=500,sd=200' })).mixed).toBe(false);
    const spanning = lengthMix(plan({ inputTokens: 'lognormal:mean=4000,sd=3000', requests: 400 }));
    expect(spanning.mixed).toBe(true);
    expect(spanning.longShare).toBeGreaterThan(0.2);
  });

  it('a side needs 10% of the plan and 5 requests', () => {
    // 5% long: under the share.
    expect(lengthMix(plan({ mix: 'a: 95% in 256; b: 5% in 12000', requests: 400 })).mixed).toBe(false);
    // 30% long of 10 requests: 3, under the count; of 20: 6, enough.
    const lengths = (short: number, long: number) => [...Array(short).fill(100), ...Array(long).fill(9000)];
    expect(lengthMix({ lengths: lengths(7, 3), planned: 10, sampled: false })).toMatchObject({ longRequests: 3, mixed: false });
    expect(lengthMix({ lengths: lengths(14, 6), planned: 20, sampled: false })).toMatchObject({ longRequests: 6, mixed: true });
    // Exactly 10% is enough; just under is not.
    expect(lengthMix({ lengths: lengths(90, 10), planned: 100, sampled: false }).mixed).toBe(true);
    expect(lengthMix({ lengths: lengths(91, 9), planned: 100, sampled: false }).mixed).toBe(false);
    // A sample's shares stand for the planned count: 30% of a 1000-request plan from a 100-draw sample.
    expect(lengthMix({ lengths: lengths(70, 30), planned: 1000, sampled: true })).toMatchObject({ shortRequests: 700, longRequests: 300 });
    expect(lengthMix({ lengths: [], planned: 0, sampled: false }).mixed).toBe(false);
  });

  it('an endless --duration run is judged on a sample of its first draws', () => {
    const p = plan({ mix: 'short: 50% in 256; long: 50% in 12000', duration: 30 });
    expect(p.planned).toBeUndefined();
    expect(p.sampled).toBe(true);
    expect(p.lengths.length).toBe(LENGTH_SAMPLE);
    expect(lengthMix(p).mixed).toBe(true);
  });

  it('the prefix counts toward a prompt: 3000 + 2000 tokens is long', () => {
    const p = plan({ mix: 'a: 50% in 100; b: 50% in 2000', prefixTokens: 3000, requests: 100 });
    expect(Math.min(...p.lengths)).toBeGreaterThanOrEqual(3100);
    expect(lengthMix(p).mixed).toBe(true);
  });

  it('a once-mode dataset: every planned request, as counted by the tokenizer', () => {
    const dir = mkdtempSync(join(tmpdir(), 'length-mix-'));
    const file = join(dir, 'd.jsonl');
    const lines = Array.from({ length: 20 }, (_, i) => JSON.stringify({ prompt: 'word '.repeat(i % 4 === 0 ? 6000 : 50) }));
    writeFileSync(file, lines.join('\n') + '\n');
    const p = plan({ dataset: file, datasetMode: 'once' });
    expect(p.planned).toBe(20);
    expect(p.sampled).toBe(false);
    expect(p.lengths.filter((x) => x >= 4096).length).toBe(5);
    expect(lengthMix(p).mixed).toBe(true);
  });

  it('multi-turn data cannot be planned', () => {
    const dir = mkdtempSync(join(tmpdir(), 'length-mix-'));
    const file = join(dir, 'conv.jsonl');
    const conv = { conversations: [{ from: 'human', value: 'hi there' }, { from: 'gpt', value: 'hello' }, { from: 'human', value: 'more' }, { from: 'gpt', value: 'sure' }] };
    writeFileSync(file, `${JSON.stringify(conv)}\n`.repeat(3));
    expect(() => plan({ dataset: file })).toThrow(UnplannableLengths);
  });
});

describe('the automatic baseline size', () => {
  it('a quarter of the requests, at least 20, at most 200, never more than the run', () => {
    expect(boundedSize(100, undefined).requests).toBe(25);
    expect(boundedSize(60, undefined).requests).toBe(20);
    expect(boundedSize(12, undefined).requests).toBe(12);
    expect(boundedSize(10_000, undefined).requests).toBe(200);
    expect(boundedSize(100, undefined).sizeRule).toMatch(/a quarter of the mixed run's 100 requests.*: 25 requests$/);
    // A closed loop's first wave gives no values, so it comes on top: 25 + 16.
    expect(boundedSize(100, undefined, 16).requests).toBe(41);
    expect(boundedSize(30, undefined, 16).requests).toBe(30);
  });

  it('a quarter of the duration, at least 10 s, at most 120 s, never more than the run', () => {
    expect(boundedSize(undefined, 60).duration).toBe(15);
    expect(boundedSize(undefined, 20).duration).toBe(10);
    expect(boundedSize(undefined, 4).duration).toBe(4);
    expect(boundedSize(undefined, 3600).duration).toBe(120);
    expect(boundedSize(undefined, 60).requests).toBeUndefined();
  });
});
