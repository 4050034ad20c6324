// Engine scheduling differences (vLLM / SGLang / TensorRT-LLM): prefill policy, admission reservation, CUDA graphs,
// KV budget, and the data/engines presets that set them.
import { describe, expect, it } from 'vitest';
import { simulateRun, type VirtualRecord } from '../virtual.js';
import { resolveEngine } from './config.js';
import { stepCost, decodeShape } from './cost.js';
import { ENGINE_NAMES } from './engines.js';
import { withEngineProfile } from './tuning.js';
import { sglangChunkedPrefillSize } from './scheduling.js';

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const tpotMs = (r: VirtualRecord): number => (r.endMs - r.firstTokenMs!) / (r.outputTokens - 1);
const ttftMs = (r: VirtualRecord): number => r.firstTokenMs! - r.sentMs;

/**
 * Poisson arrivals at 10 req/s (about what the engine sustains), 2,000-token prompts, 200 output tokens, a 2,048-token
 * step budget (vLLM's default below 70 GiB): prefills
 * keep arriving while decodes run. (A closed loop of identical requests would keep prefill-first in lockstep waves.)
 */
function loaded(engine: Record<string, unknown>) {
  const run = simulateRun({
    engine: { model: 'llama-3.1-8b', gpu: 'h100', maxNumBatchedTokens: 2048, ...engine },
    requests: [{ promptTokens: 2000, maxTokens: 200, ignoreEos: true }],
    load: { rate: 10, requests: 400, seed: 3 },
  });
  return { ttft: mean(run.records.map(ttftMs)), tpot: mean(run.records.map(tpotMs)), records: run.records };
}

describe('schedule policy', () => {
  it('prefill-first (SGLang) lowers mean TTFT and raises mean TPOT under load versus decode-first (vLLM), same workload', () => {
    const vllm = loaded({ schedulePolicy: 'decode-first' });
    const sglang = loaded({ schedulePolicy: 'prefill-first' });
    expect(sglang.ttft).toBeLessThan(vllm.ttft * 0.9);
    expect(sglang.tpot).toBeGreaterThan(vllm.tpot * 1.1);
    expect(sglang.records.every((r) => r.outputTokens === 200)).toBe(true);
  });

  it('with one request at a time the policies agree (nothing to choose between)', () => {
    const one = (schedulePolicy: 'decode-first' | 'prefill-first') =>
      simulateRun({ engine: { schedulePolicy }, requests: [{ promptTokens: 500, maxTokens: 50, ignoreEos: true }], load: { concurrency: 1, requests: 3 } }).records;
    const a = one('decode-first');
    const b = one('prefill-first');
    expect(b.map(ttftMs)).toEqual(a.map(ttftMs));
    expect(b.map((r) => r.endMs)).toEqual(a.map((r) => r.endMs));
  });
});

describe('new-token ratio (KV kept for running requests at admission)', () => {
  it('on a small cache, ratio 1 (TensorRT-LLM GUARANTEED_NO_EVICT) never preempts where ratio 0 (vLLM) does', () => {
    const peak = (newTokenRatio: number) => {
      const run = simulateRun({
        engine: { numGpuBlocksOverride: 200, newTokenRatio }, // 3,200 tokens
        requests: [{ promptTokens: 100, maxTokens: 300, ignoreEos: true }],
        load: { concurrency: 32, requests: 64 },
      });
      return { done: run.records.filter((r) => r.outputTokens === 300).length, preemptions: run.counters.preemptions };
    };
    const none = peak(0);
    const full = peak(1);
    expect(none.preemptions).toBeGreaterThan(0);
    expect(full.preemptions).toBe(0);
    expect([none.done, full.done]).toEqual([64, 64]);
  });
});

describe('CUDA graphs and the KV budget', () => {
  it('a decode step above the largest captured batch pays the eager launch cost per layer', () => {
    const graphs = resolveEngine({ cudaGraphMaxBatch: 512 });
    const eager = resolveEngine({ cudaGraphMaxBatch: 128, eagerLayerOverheadMs: 0.04 });
    const layers = graphs.model.layers;
    expect(stepCost(eager, decodeShape(128, 1000)).totalMs).toBeCloseTo(stepCost(graphs, decodeShape(128, 1000)).totalMs, 9);
    expect(stepCost(eager, decodeShape(256, 1000)).totalMs - stepCost(graphs, decodeShape(256, 1000)).totalMs).toBeCloseTo(layers * 0.04, 9);
  });

  it('TensorRT-LLM takes its KV budget as a fraction of the memory free after weights', () => {
    const GiB = 1024 ** 3;
    const vllm = resolveEngine({ gpuMemoryUtilization: 0.9 });
    const trt = resolveEngine({ kvFreeMemoryFraction: 0.9 });
    const used = vllm.weightBytesPerGpu + 1.5 * GiB;
    const perBlock = vllm.kvBytesPerTokenPerGpu * vllm.blockSize;
    expect(vllm.numBlocks).toBe(Math.floor((vllm.gpu.memBytes * 0.9 - used) / perBlock));
    expect(trt.numBlocks).toBe(Math.floor(((trt.gpu.memBytes - used) * 0.9) / perBlock));
    expect(trt.numBlocks).toBeGreaterThan(vllm.numBlocks); // 0.9 of 63 GiB free > 0.9 · 80 GiB − 17 GiB
  });
});

describe('engine presets (data/engines/*.yaml)', () => {
  it('each preset loads and sets its engine\'s scheduler; flags given and an engine profile win over it', () => {
    const got = Object.fromEntries(ENGINE_NAMES.map((e) => [e, withEngineProfile({ engine: e })]));
    expect(got.vllm).toMatchObject({ schedulePolicy: 'decode-first', maxNumBatchedTokens: 8192, blockSize: 16, gpuMemoryUtilization: 0.9 });
    expect(got.sglang).toMatchObject({ schedulePolicy: 'prefill-first', blockSize: 1, gpuMemoryUtilization: 0.88, newTokenRatio: 0.7 });
    expect(got.trtllm).toMatchObject({ schedulePolicy: 'decode-first', maxNumSeqs: 2048, blockSize: 32, kvFreeMemoryFraction: 0.9, newTokenRatio: 1 });
    expect(withEngineProfile({ engine: 'sglang', blockSize: 16, maxNumBatchedTokens: undefined })).toMatchObject({ blockSize: 16, maxNumBatchedTokens: 8192 });
    for (const e of ENGINE_NAMES) expect(() => resolveEngine(got[e] as never)).not.toThrow();
  });
});

describe('SGLang chunked prefill size by GPU memory (server_args.py)', () => {
  it('2048 below 35 GB, 8192 below 160 GB, 16384 above; a size given or in the profile wins', () => {
    expect(sglangChunkedPrefillSize(24 * 1024 ** 3)).toBe(2048);
    expect(sglangChunkedPrefillSize(80 * 1024 ** 3)).toBe(8192);
    expect(sglangChunkedPrefillSize(141 * 1024 ** 3)).toBe(8192);
    expect(sglangChunkedPrefillSize(192 * 1024 ** 3)).toBe(16384);
    expect(withEngineProfile({ engine: 'sglang', gpu: 'b200' })).toMatchObject({ maxNumBatchedTokens: 16384 });
    expect(withEngineProfile({ engine: 'sglang', gpu: 'mi300x' })).toMatchObject({ maxNumBatchedTokens: 16384 });
    expect(withEngineProfile({ engine: 'sglang', gpu: 'h200' })).toMatchObject({ maxNumBatchedTokens: 8192 });
    expect(withEngineProfile({ engine: 'sglang', gpu: 'l4' })).toMatchObject({ maxNumBatchedTokens: 2048 });
    expect(withEngineProfile({ engine: 'sglang', gpu: 'b200', maxNumBatchedTokens: 4096 })).toMatchObject({ maxNumBatchedTokens: 4096 });
    // vLLM's preset keeps its own fixed budget on every GPU.
    expect(withEngineProfile<Record<string, unknown>>({ engine: 'vllm', gpu: 'b200' }).maxNumBatchedTokens).toBe(8192);
    expect(resolveEngine(withEngineProfile({ engine: 'sglang', gpu: 'b200', model: 'llama-3.1-8b' }) as never).maxNumBatchedTokens).toBe(16384);
  });
});
