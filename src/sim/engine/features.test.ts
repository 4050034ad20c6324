// KV offload to host memory and pipeline parallelism: capacity, transfer cost and step time by their formulas.
import { describe, expect, it } from 'vitest';
import { simulateRun, type VirtualRequest } from '../virtual.js';
import { resolveEngine } from './config.js';
import { decodeShape, stepCost } from './cost.js';
import { engineStepCost, stageSpec } from './pipeline.js';
import { kvTransferMs, prefillOnlyMs } from './disagg.js';
import { outsideEngineMs } from './overheads.js';

const tiny = { model: 'tiny', gpu: 'tiny-gpu', numGpuBlocksOverride: 64 } as const;
// Four 512-token system prompts in turn: the 64-block GPU cache holds fewer than two, so LRU never keeps the next one.
const cycling = (i: number): VirtualRequest => ({ promptTokens: 528, prefix: { key: `p${i % 4}`, tokens: 512 }, maxTokens: 4, ignoreEos: true });
const meanTtft = (r: ReturnType<typeof simulateRun>): number => r.records.reduce((s, x) => s + x.firstTokenMs! - x.sentMs, 0) / r.records.length;

describe('KV offload to CPU memory', () => {
  it('evicted prefix blocks are served from host memory, each hit costing its bytes over PCIe', () => {
    const plain = simulateRun({ engine: tiny, requests: cycling, load: { concurrency: 1, requests: 24 } });
    const spec = resolveEngine({ ...tiny, kvOffloadGiB: 1, pcieGBps: 25 });
    expect(spec.features.offload!.blocks).toBe(Math.floor(1024 ** 3 / (spec.kvBytesPerTokenPerGpu * 16)));
    const off = simulateRun({ engine: spec, requests: cycling, load: { concurrency: 1, requests: 24 } });
    expect(plain.counters.prefixHitsTokens).toBe(0);
    // The first round of four misses everywhere; the other 20 requests find their 512-token prefix in host memory.
    expect(off.counters.offloadHitsTokens).toBe(20 * 512);
    expect(off.counters.offloadTransferBytes).toBe(off.counters.offloadHitsTokens * spec.kvBytesPerTokenPerGpu);
    expect(meanTtft(off)).toBeLessThan(meanTtft(plain));
    // Over a slow link the copy costs more than recomputing: TTFT grows by the transfer time, bytes / bandwidth.
    const slow = simulateRun({ engine: { ...tiny, kvOffloadGiB: 1, pcieGBps: 0.01 }, requests: cycling, load: { concurrency: 1, requests: 24 } });
    const transferMs = (512 * spec.kvBytesPerTokenPerGpu) / 0.01e9 * 1000;
    const hit = slow.records[10];
    const hitNoTransfer = off.records[10];
    expect(hit.firstTokenMs! - hit.sentMs - (hitNoTransfer.firstTokenMs! - hitNoTransfer.sentMs)).toBeCloseTo(transferMs - (512 * spec.kvBytesPerTokenPerGpu) / 25e9 * 1000, 6);
  });

  it('a preempted request is swapped to host memory and resumes without recomputing', () => {
    const load = { concurrency: 12, requests: 24 };
    const req = [{ promptTokens: 100, maxTokens: 200, ignoreEos: true }];
    const plain = simulateRun({ engine: tiny, requests: req, load });
    const off = simulateRun({ engine: { ...tiny, kvOffloadGiB: 1 }, requests: req, load });
    expect(plain.counters.preemptions).toBeGreaterThan(0);
    expect(off.counters.preemptions).toBeGreaterThan(0);
    expect(off.counters.offloadTransferBytes).toBeGreaterThan(0);
    expect(off.records.every((r) => r.outputTokens === 200 && !r.error)).toBe(true);
    expect(off.durationMs).toBeLessThan(plain.durationMs);
  });
});

describe('pipeline parallelism', () => {
  it('splits weights and layers over stages: a model too big for one GPU fits, KV capacity grows', () => {
    expect(() => resolveEngine({ model: 'llama-3.1-70b', gpu: 'h100' })).toThrow(/raise --tp/);
    const pp4 = resolveEngine({ model: 'llama-3.1-70b', gpu: 'h100', pp: 4 });
    expect(pp4.weightBytesPerGpu * 4).toBeCloseTo(pp4.params.total * 2, 0);
    const one = resolveEngine({ model: 'llama-3.1-8b', gpu: 'h100' });
    const two = resolveEngine({ model: 'llama-3.1-8b', gpu: 'h100', pp: 2 });
    expect(two.kvBytesPerTokenPerGpu).toBe(one.kvBytesPerTokenPerGpu / 2);
    expect(two.kvCapacityTokens).toBeGreaterThan(2 * one.kvCapacityTokens);
  });

  it('step time = max(m, pp) · stage time(batch / m) + (pp − 1) · hand-off, m = min(pp, requests); the simulated TPOT follows it', () => {
    const spec = resolveEngine({ model: 'llama-3.1-8b', gpu: 'h100', pp: 2 });
    const st = stageSpec(spec);
    expect(st.model.layers).toBe(16);
    for (const batch of [1, 8]) {
      const shape = decodeShape(batch, 600);
      const m = Math.min(2, batch);
      const sub = decodeShape(batch / m, 600);
      const stage = stepCost(st, sub);
      const handOff = spec.gpu.linkLatencyUs / 1000 + ((sub.newTokens * spec.model.hidden * 2) / (spec.gpu.linkGBps * 1e9)) * 1000;
      const overhead = stepCost(spec, { ...shape, newTokens: 0, contextTokens: 0, attentionPairs: 0 }).overheadMs;
      const expected = 2 * (stage.totalMs - stage.overheadMs) + handOff + overhead;
      expect(engineStepCost(spec, shape).totalMs).toBeCloseTo(expected, 9);
    }
    // Batch 1 reads every stage's weights in turn: no faster than one GPU (plus the hand-off).
    const tpot = (pp: number) => {
      const r = simulateRun({ engine: { model: 'llama-3.1-8b', gpu: 'h100', pp }, requests: [{ promptTokens: 512, maxTokens: 201, ignoreEos: true }], load: { concurrency: 1, requests: 1 } });
      return (r.records[0].endMs - r.records[0].firstTokenMs!) / 200;
    };
    const ppSpec = engineStepCost(spec, decodeShape(1, 612)).totalMs;
    expect(Math.abs(tpot(2) - ppSpec) / ppSpec).toBeLessThan(0.01);
    expect(tpot(2)).toBeGreaterThan(tpot(1) * 0.95);
  });
});

describe('disaggregated prefill and decode', () => {
  const base = { model: 'llama-3.1-8b', gpu: 'h100' } as const;

  it('TTFT = time outside the engine + prefill on the prefill pool + KV transfer (latency + prompt KV bytes / link)', () => {
    const spec = resolveEngine({ ...base, disagg: '1:1', disaggLinkGBps: 10, disaggLatencyMs: 2 });
    const run = simulateRun({ engine: spec, requests: [{ promptTokens: 4000, maxTokens: 50, ignoreEos: true }], load: { concurrency: 1, requests: 2 } });
    // The time outside the engine (API server, tokenization) comes first, as for every request.
    const expected = outsideEngineMs(spec, 4000) + prefillOnlyMs(spec, 4000) + 2 + ((4000 * spec.kvBytesPerTokenPerGpu) / 10e9) * 1000;
    for (const r of run.records) {
      expect(r.firstTokenMs! - r.sentMs).toBeCloseTo(expected, 6);
      expect(r.outputTokens).toBe(50);
    }
    expect(kvTransferMs(spec, 4000)).toBeCloseTo(2 + (4000 * spec.kvBytesPerTokenPerGpu) / 10e6, 9);
  });

  it('the decode pool only decodes: long prefills of new requests no longer stretch the running requests\' TPOT', () => {
    const mix = (i: number): VirtualRequest => (i % 2 ? { promptTokens: 6000, maxTokens: 20, ignoreEos: true } : { promptTokens: 100, maxTokens: 300, ignoreEos: true });
    const itlMax = (engine: Parameters<typeof resolveEngine>[0]) => {
      const run = simulateRun({ engine, requests: mix, load: { concurrency: 8, requests: 32 } });
      expect(run.records.every((r) => !r.error && r.outputTokens === (r.promptTokens > 1000 ? 20 : 300))).toBe(true);
      const longOut = run.records.filter((r) => r.promptTokens < 1000);
      return Math.max(...longOut.flatMap((r) => r.tokenTimesMs.slice(1).map((t, j) => t - r.tokenTimesMs[j])));
    };
    const colocated = itlMax(base);
    const split = itlMax({ ...base, disagg: '1:1' });
    // Colocated, a 6,000-token prefill chunk (8,192-token budget) shares a step with the decodes: one ITL spikes to
    // the prefill's length; disaggregated, ITL stays at the decode step time.
    const decodeStep = engineStepCost(resolveEngine(base), decodeShape(8, 400)).totalMs;
    expect(colocated).toBeGreaterThan(5 * decodeStep);
    expect(split).toBeLessThan(2 * decodeStep);
  });
});
