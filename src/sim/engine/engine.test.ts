// Engine behaviour: calibration, batching, KV pressure, prefix caching, preemption, limits.
import { describe, expect, it } from 'vitest';
import { simulateRun, type VirtualRecord } from '../virtual.js';
import { resolveEngine } from './config.js';
import { contextLengthError, createEngine } from './engine.js';

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const tpotMs = (r: VirtualRecord): number => (r.endMs - r.firstTokenMs!) / (r.outputTokens - 1);
const ttftMs = (r: VirtualRecord): number => r.firstTokenMs! - r.sentMs;

/** B identical requests sent at once; mean TPOT over all of them. */
function batchTpot(gpu: string, batch: number): number {
  const run = simulateRun({ engine: { gpu }, requests: [{ promptTokens: 128, maxTokens: 64, ignoreEos: true }], load: { concurrency: batch, requests: batch } });
  return mean(run.records.map(tpotMs));
}

describe('engine calibration (llama-3.1-8b BF16)', () => {
  it('batch-1 TPOT is ~6.5 ms on H100 SXM and ~13.3 ms on A100-40GB', () => {
    expect(Math.abs(batchTpot('h100', 1) - 6.5) / 6.5).toBeLessThan(0.15);
    expect(Math.abs(batchTpot('a100-40gb', 1) - 13.3) / 13.3).toBeLessThan(0.15);
  });

  it('TPOT is nearly flat up to batch 8, then rises', () => {
    const t1 = batchTpot('h100', 1);
    expect(batchTpot('h100', 8) / t1).toBeLessThan(1.1);
    expect(batchTpot('h100', 256) / t1).toBeGreaterThan(1.5);
  });
});

describe('scheduler and KV cache', () => {
  it('TTFT rises sharply once the KV cache is full', () => {
    const run = (numGpuBlocksOverride: number) =>
      simulateRun({
        engine: { numGpuBlocksOverride },
        requests: [{ promptTokens: 512, maxTokens: 256, ignoreEos: true }],
        load: { concurrency: 32, requests: 96 },
      });
    const roomy = mean(run(100_000).records.map(ttftMs));
    const full = run(400); // 6,400 tokens: room for ~8 of the 32 requests
    expect(mean(full.records.map(ttftMs))).toBeGreaterThan(5 * roomy);
    expect(full.records.every((r) => r.outputTokens === 256 && !r.error)).toBe(true);
  });

  it('prefix caching: a repeated long prompt gets a 5x lower TTFT and reports cached tokens', () => {
    const ids = Array.from({ length: 8000 }, (_, i) => (i * 7919) % 50_000);
    const run = simulateRun({ requests: [{ promptTokenIds: ids, maxTokens: 8, ignoreEos: true }], load: { concurrency: 1, requests: 2 } });
    const [first, second] = run.records;
    expect(ttftMs(first) / ttftMs(second)).toBeGreaterThan(5);
    expect(first.cachedTokens).toBe(0);
    expect(second.cachedTokens).toBe(7984); // 499 full blocks; the last block is recomputed to sample
    expect(run.counters.prefixHitsTokens).toBe(7984);
  });

  it('prefix caching off: no reuse', () => {
    const ids = Array.from({ length: 4000 }, (_, i) => i);
    const run = simulateRun({ engine: { prefixCaching: false }, requests: [{ promptTokenIds: ids, maxTokens: 4, ignoreEos: true }], load: { concurrency: 1, requests: 2 } });
    expect(run.records[1].cachedTokens).toBe(0);
  });

  it('preempts the newest request under KV pressure and still finishes every request', () => {
    const run = simulateRun({
      engine: { numGpuBlocksOverride: 200 },
      requests: [{ promptTokens: 100, maxTokens: 400, ignoreEos: true }],
      load: { concurrency: 16, requests: 32 },
    });
    expect(run.counters.preemptions).toBeGreaterThan(0);
    expect(run.records.every((r) => r.outputTokens === 400 && r.tokenTimesMs.length === 400)).toBe(true);
    expect(run.counters.running + run.counters.waiting).toBe(0);
    expect(run.counters.kvUsage).toBe(0);
  });

  it('rejects requests longer than max_model_len with vLLM wording', () => {
    const spec = resolveEngine({ maxModelLen: 1024 });
    const engine = createEngine(spec);
    expect(engine.add({ id: 'a', promptTokens: 1000, outputTokens: 100 })).toBe(
      "This model's maximum context length is 1024 tokens. However, you requested 1100 tokens (1000 in the messages, 100 in the completion). Please reduce the length of the messages or completion.",
    );
    expect(contextLengthError(1024, 1000, 24)).toBeUndefined();
    const run = simulateRun({ engine: spec, requests: [{ promptTokens: 2000, maxTokens: 10 }], load: { concurrency: 2, requests: 3 } });
    expect(run.records.every((r) => r.error?.startsWith("This model's maximum context length is 1024"))).toBe(true);
  });

  it('abort frees the request blocks', () => {
    const engine = createEngine(resolveEngine({ numGpuBlocksOverride: 100 }));
    engine.add({ id: 'x', promptTokens: 800, outputTokens: 50 });
    engine.step();
    expect(engine.counters().kvUsage).toBeGreaterThan(0.4);
    expect(engine.abort('x')).toBe(true);
    expect(engine.counters().kvUsage).toBe(0);
    expect(engine.hasWork()).toBe(false);
  });

  it('chunked prefill: a long prompt spreads over steps of at most maxNumBatchedTokens', () => {
    const engine = createEngine(resolveEngine({ maxNumBatchedTokens: 1024 }));
    engine.add({ id: 'p', promptTokens: 3000, outputTokens: 2 });
    const shapes = [engine.step()!, engine.step()!, engine.step()!];
    expect(shapes.map((s) => s.shape.newTokens)).toEqual([1024, 1024, 952]);
    expect(shapes[2].outputs).toEqual([{ id: 'p', tokenIndex: 1, finished: false }]);
  });

  it('async scheduling: a request added while a step runs is first scheduled two steps later; an idle engine starts it at once', () => {
    const engine = createEngine(resolveEngine({ asyncScheduling: true }));
    engine.add({ id: 'a', promptTokens: 100, outputTokens: 10 });
    expect(engine.step()!.started.map((s) => s.id)).toEqual(['a']);
    engine.add({ id: 'b', promptTokens: 100, outputTokens: 10 }); // arrives while step 1 runs
    expect(engine.counters().waiting).toBe(1);
    expect(engine.step()!.started).toEqual([]); // step 2 was planned while step 1 ran
    expect(engine.step()!.started.map((s) => s.id)).toEqual(['b']);
    const sync = createEngine(resolveEngine({ asyncScheduling: false }));
    sync.add({ id: 'a', promptTokens: 100, outputTokens: 10 });
    sync.step();
    sync.add({ id: 'b', promptTokens: 100, outputTokens: 10 });
    expect(sync.step()!.started.map((s) => s.id)).toEqual(['b']);
  });
});
