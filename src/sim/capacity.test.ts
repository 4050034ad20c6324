// Capacity planner against hand calculations.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { planCapacity } from './capacity.js';

const GiB = 1024 ** 3;

describe('planCapacity', () => {
  it('Llama-70B KV at 4,096 tokens FP16 = 80·4096·2·1024·2 bytes = 1.25 GiB', () => {
    const r = planCapacity({ modelProfile: 'llama-3.1-70b', tp: 4, kvDtype: 'fp16', inputTokens: 3072, outputTokens: 1024 });
    expect(r.kvBytesPerToken).toBe(80 * 2 * 8 * 128 * 2);
    expect(r.kvBytesPerRequest).toBe(80 * 4096 * 2 * 1024 * 2);
    expect(r.kvBytesPerRequest / GiB).toBeCloseTo(1.25, 6);
  });

  it('weights and KV capacity follow the hand calculation (Llama-8B on H100)', () => {
    const r = planCapacity({ inputTokens: 1000, outputTokens: 24 });
    const weights = 8.03e9 * 2;
    expect(r.weightBytes / weights).toBeCloseTo(1, 2);
    // (80 GiB · 0.9 − weights − 1.5 GiB) / (32·2·8·128·2 bytes per token), rounded down to 16-token blocks
    const expected = (80 * GiB * 0.9 - r.weightBytes - 1.5 * GiB) / 131072;
    expect(Math.abs(r.kvCapacityTokens - expected)).toBeLessThan(16);
    expect(r.kvCapacityRequests).toBe(Math.floor(r.kvCapacityTokens / 1024));
  });

  it('decode TPOT at batch 1 ≈ weights / (HBM · efficiency); prefill of 4k tokens is compute-bound', () => {
    const r = planCapacity({ inputTokens: 4096, outputTokens: 128, concurrency: 32 });
    expect(r.tpotBatch1Ms).toBeCloseTo((r.weightBytes / (3.35e12 * 0.75)) * 1000, 0);
    // 2 · 8.03e9 · 4096 FLOPs at 50% of 989 TFLOPS ≈ 133 ms plus attention
    expect(r.prefillMs).toBeGreaterThan(130);
    expect(r.prefillMs).toBeLessThan(160);
    expect(r.bottleneck).toBe('prefill-compute');
  });

  it('sizes replicas with a margin and names the KV bottleneck', () => {
    const r = planCapacity({ gpu: 'a100-40gb', inputTokens: 8000, outputTokens: 2000, concurrency: 100 });
    expect(r.bottleneck).toBe('kv-capacity');
    expect(r.replicas).toBe(Math.ceil(120 / r.maxConcurrencyPerReplica));
    expect(r.gpus).toBe(r.replicas);
    const small = planCapacity({ inputTokens: 200, outputTokens: 400, concurrency: 8 });
    expect(small.bottleneck).toBe('decode-bandwidth');
    expect(small.replicas).toBe(1);
  });

  it('rate → concurrency by Little’s law', () => {
    const r = planCapacity({ inputTokens: 500, outputTokens: 200, rate: 10 });
    expect(r.concurrency).toBe(Math.ceil((10 * r.e2eMs) / 1000));
  });

  it('a model that does not fit is a usage error', () => {
    expect(() => planCapacity({ modelProfile: 'llama-3.1-70b', gpu: 'h100' })).toThrow(UsageError);
    expect(() => planCapacity({ modelProfile: 'nope' })).toThrow(/unknown model profile "nope": use one of llama-3.1-8b/);
  });
});

describe('planCapacity with --engine-profile', () => {
  it('takes the deployment and fitted constants from the profile; flags given win', async () => {
    const { writeFileSync, mkdtempSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const p = join(mkdtempSync(join(tmpdir(), 'tf-cap-')), 'p.yaml');
    writeFileSync(p, 'gpu: a100-40gb\nmodel-profile: llama-3.1-8b\nbw-efficiency: 0.39\n');
    const base = planCapacity({ gpu: 'a100-40gb', modelProfile: 'llama-3.1-8b' });
    const fitted = planCapacity({ engineProfile: p });
    expect(fitted.gpu).toBe('a100-40gb');
    // Batch-1 decode is memory-bound: half the bandwidth efficiency (0.78 → 0.39) nearly doubles TPOT.
    expect(fitted.tpotBatch1Ms / base.tpotBatch1Ms).toBeGreaterThan(1.8);
    expect(planCapacity({ engineProfile: p, gpu: 'h100' }).gpu).toBe('h100');
  });
});
