// Issue 31: `tokenflood capacity` for today's deployments: released precision with no dtype flag, --ep, --dp-attention,
// --pp, --disagg, speculative decoding (with the draft's memory) and KV offload; bad combinations exit 2.
import { describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { capture } from './io-capture.js';

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const cap = capture();
  const code = await main(args, cap.io);
  return { code, out: cap.out, err: cap.err };
}
const json = async (args: string[]): Promise<Record<string, any>> => {
  const r = await cli([...args, '--json']);
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out);
};
const R1 = ['capacity', '--model-profile', 'deepseek-r1', '--gpu', 'h200', '--tp', '8', '--concurrency', '64'];

describe('capacity: parallelism and features', () => {
  it('deepseek-r1 on 8x H200 runs with no dtype flag (FP8) and with --ep 8; EP keeps memory, streams whole experts, pays routing skew in prefill', async () => {
    const tp = await json(R1);
    expect(tp).toMatchObject({ weight_dtype: 'fp8', tp: 8, ep: 1, gpus: 8 });
    const ep = await json([...R1, '--ep', '8']);
    expect(ep).toMatchObject({ weight_dtype: 'fp8', tp: 8, ep: 8, gpus: 8 });
    expect(ep.weight_bytes_per_gpu).toBeCloseTo(tp.weight_bytes_per_gpu, 0);
    // Decode at 64 is weight-bound either way, and whole experts (EP) stream better than 1/8 slices of each (TP).
    expect(ep.tpot_at_concurrency_ms).toBeLessThan(tp.tpot_at_concurrency_ms);
    // At a 16k-token prefill the busiest EP GPU's expert load (routing skew 1.2) makes the step slower than TP's.
    const long = ['--input-tokens', '16384', '--max-num-batched-tokens', '16384'];
    expect((await json([...R1, '--ep', '8', ...long])).prefill_ms).toBeGreaterThan((await json([...R1, ...long])).prefill_ms);
    const table = (await cli([...R1, '--ep', '8'])).out;
    expect(table).toMatch(/parallelism\s+EP8 \(experts placed whole, not sliced\)/);
  });

  it('--dp-attention: the MLA latent is no longer replicated (KV capacity x ~tp), attention weights are', async () => {
    const tp = await json(R1);
    const dp = await json([...R1, '--ep', '8', '--dp-attention']);
    expect(dp.weight_bytes_per_gpu).toBeGreaterThan(tp.weight_bytes_per_gpu);
    // 8x the tokens per byte, minus the KV room the replicated attention weights take.
    expect(dp.kv_capacity_tokens / tp.kv_capacity_tokens).toBeGreaterThan(6);
    expect(dp.kv_capacity_tokens / tp.kv_capacity_tokens).toBeLessThan(8.01);
  });

  it('--pp, --disagg, --spec-method draft and --kv-offload-gib change GPUs, memory and TPOT', async () => {
    const base = ['capacity', '--model-profile', 'llama-3.1-70b', '--gpu', 'h100', '--tp', '4', '--concurrency', '32'];
    const plain = await json(base);
    const pp = await json([...base, '--pp', '2']);
    expect(pp).toMatchObject({ pp: 2, gpus_per_replica: 8 });
    expect(pp.weight_bytes_per_gpu).toBeCloseTo(plain.weight_bytes_per_gpu / 2, -6);
    const dis = await json([...base, '--disagg', '1:2']);
    expect(dis).toMatchObject({ prefill_instances: 1, decode_instances: 2, gpus_per_replica: 12 });
    expect(dis.kv_capacity_requests).toBeGreaterThanOrEqual(2 * plain.kv_capacity_requests - 1);
    const spec = await json([...base, '--spec-method', 'draft', '--spec-draft-cost', '0.1']);
    expect(spec.draft_weight_bytes_per_gpu).toBeCloseTo(0.1 * plain.weight_bytes_per_gpu, -3);
    expect(spec.kv_capacity_tokens).toBeLessThan(plain.kv_capacity_tokens);
    expect(spec.tokens_per_step).toBeGreaterThan(2);
    expect(spec.tpot_batch1_ms).toBeLessThan(plain.tpot_batch1_ms);
    const sized = await json([...base, '--spec-method', 'draft', '--spec-draft-gib', '4']);
    expect(sized.draft_weight_bytes_per_gpu).toBe(4 * 1024 ** 3);
    const off = await json([...base, '--kv-offload-gib', '64']);
    expect(off.kv_offload_tokens).toBeGreaterThan(0);
    expect(off.kv_capacity_tokens).toBe(plain.kv_capacity_tokens);
  });

  it('bad parallel layouts: one message per problem naming the flag, exit 2', async () => {
    const dense = await cli(['capacity', '--model-profile', 'llama-3.1-8b', '--ep', '2']);
    expect(dense.code).toBe(2);
    expect(dense.err).toMatch(/--ep 2: llama-3.1-8b is a dense model/);
    const notDividing = await cli([...R1, '--ep', '3']);
    expect(notDividing.code).toBe(2);
    expect(notDividing.err).toMatch(/--ep 3: must divide --tp 8/);
  });
});
