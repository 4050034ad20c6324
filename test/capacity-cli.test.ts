// `tokenflood capacity` end to end: MLA and sliding-window KV figures, the long-request mix, headroom in the table and --json, bad input exit 2.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { tmpDir } from './helpers.js';
import { capture } from './io-capture.js';

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const cap = capture();
  const code = await main(args, cap.io);
  return { code, out: cap.out, err: cap.err };
}
const row = (out: string, label: string): string => out.split('\n').find((l) => l.startsWith(label))?.slice(label.length).trim() ?? '';

describe('capacity: the models people serve now', () => {
  it('--model-profile deepseek-v3: 70,272 B of KV per token (61 × 576 × 2) and ~69 MiB per 1K tokens', async () => {
    const r = await cli(['capacity', '--model-profile', 'deepseek-v3']);
    expect(r.code, r.err).toBe(0);
    expect(row(r.out, 'KV per token')).toBe('70,272 B (68.6 KiB)');
    expect(row(r.out, 'KV per 1K tokens')).toBe('68.6 MiB (1,024 tokens)');
    // Released in FP8: 627 GiB of weights, TP16 on 80 GB GPUs (TP32 at BF16).
    expect(row(r.out, 'model / GPU')).toMatch(/^deepseek-v3 on 16x h100 \(weights fp8, KV bf16\).*TP16 is the smallest that holds the weights/);
    const j = JSON.parse((await cli(['capacity', '--model-profile', 'deepseek-v3', '--json'])).out);
    expect(j).toMatchObject({ kv_bytes_per_token: 70_272, kv_bytes_per_k_tokens: 70_272 * 1024, tp: 16, tp_auto: true, weight_dtype: 'fp8' });
    const bf16 = JSON.parse((await cli(['capacity', '--model-profile', 'deepseek-v3', '--weight-dtype', 'bf16', '--json'])).out);
    expect(bf16).toMatchObject({ tp: 32, weight_dtype: 'bf16' });
  });

  // Issue 25, item 14: this failed at the default BF16 weights (1,250 GiB do not fit 8 x 141 GB).
  it('models default to their released precision: deepseek-v3 on 8x H200 runs with no dtype flag', async () => {
    const r = await cli(['capacity', '--model-profile', 'deepseek-v3', '--gpu', 'h200', '--tp', '8']);
    expect(r.code, r.err).toBe(0);
    expect(row(r.out, 'model / GPU')).toBe('deepseek-v3 on 8x h200 (weights fp8, KV bf16)');
    for (const [model, dtype] of [['deepseek-r1', 'fp8'], ['kimi-k2', 'fp8'], ['gpt-oss-120b', 'mxfp4'], ['gpt-oss-20b', 'mxfp4'], ['llama-3.1-70b', 'bf16']])
      expect(JSON.parse((await cli(['capacity', '--model-profile', model, '--gpu', 'h200', '--json'])).out).weight_dtype, model).toBe(dtype);
  });

  it('gpt-oss-120b in MXFP4 on one H100: KV per request follows the sliding-window formula', async () => {
    const j = JSON.parse((await cli(['capacity', '--model-profile', 'gpt-oss-120b', '--weight-dtype', 'mxfp4', '--input-tokens', '4000', '--output-tokens', '96', '--json'])).out);
    expect(j.tp).toBe(1);
    expect(j.kv_bytes_per_request).toBe(2048 * (18 * 4096 + 18 * 128));
    expect(j.weight_bytes / 1e9).toBeCloseTo(65, -1);
  });

  it('the practice example: long-request share, utilization and headroom in the table and in --json', async () => {
    const args = ['capacity', '--model-profile', 'llama-3.1-70b', '--gpu', 'a100-80gb', '--tp', '4', '--input-tokens', '3000', '--output-tokens', '400', '--concurrency', '50', '--long-share', '0.2', '--long-input-tokens', '12000', '--long-output-tokens', '1000'];
    const t = await cli(args);
    expect(t.code, t.err).toBe(0);
    const j = JSON.parse((await cli([...args, '--json'])).out);
    expect(row(t.out, 'long requests')).toBe('20.0% of requests: 12000 in + 1000 out tokens');
    expect(row(t.out, 'KV utilization')).toBe(`${(j.kv_utilization * 100).toFixed(1)}% of one replica's KV cache at ${j.concurrency_per_replica} requests (full length)`);
    // One answer (issue 25): compute sets the replica count, the GPUs line says so, and the sized deployment has headroom.
    expect(row(t.out, 'replicas / GPUs')).toBe(`${j.replicas} replicas x TP4 = ${j.gpus} GPUs (set by compute: 1 replica would hold the requests, the FLOPs need ${j.replicas} at --mfu ${j.mfu} with the margin)`);
    expect(j.replicas).toBe(j.replicas_for_compute);
    expect(row(t.out, 'decode step')).toBe(`${(j.decode_compute_utilization * 100).toFixed(1)}% of peak FLOPs, ${(j.decode_bandwidth_utilization * 100).toFixed(1)}% of peak HBM bandwidth`);
    expect(row(t.out, 'compute utilization')).toMatch(new RegExp(`^${(j.compute_utilization * 100).toFixed(1)}% of 4 GPUs x peak x --mfu ${j.mfu}`));
    expect(row(t.out, 'headroom')).toBe(j.headroom_text);
    expect(j).toMatchObject({ long_share: 0.2, long_input_tokens: 12000, long_output_tokens: 1000, headroom_limit: 'compute' });
    expect(j.headroom).toBeGreaterThan(0);
    expect(t.out).not.toMatch(/over capacity/);
    const slower = JSON.parse((await cli([...args, '--mfu', '0.25', '--json'])).out);
    expect(slower.replicas).toBeGreaterThan(1.5 * j.replicas);
  });

  const bad: [string, string[], RegExp][] = [
    ['--long-share without --long-input-tokens', ['--long-share', '0.2'], /--long-input-tokens: needed with --long-share/],
    ['--long-share above 1', ['--long-share', '1.5', '--long-input-tokens', '100'], /--long-share/],
    ['long requests past the context', ['--model-profile', 'llama-2-70b', '--tp', '4', '--long-share', '0.2', '--long-input-tokens', '12000'], /--long-input-tokens \+ --long-output-tokens: 12256 tokens exceed the 4096-token context of llama-2-70b/],
    ['--mfu 0', ['--mfu', '0'], /--mfu/],
    ['an unknown weight dtype', ['--weight-dtype', 'int2'], /--weight-dtype/],
  ];
  for (const [name, args, message] of bad)
    it(`bad input: ${name} is exit 2 with one message and no report`, async () => {
      const r = await cli(['capacity', ...args]);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(message);
      expect(r.out).toBe('');
    });

  it('bad input: a model profile file that is not JSON, or a config.json without a needed key, names the file', async () => {
    const dir = tmpDir();
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{"num_hidden_layers": 4,');
    const r = await cli(['capacity', '--model-profile', broken]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('broken.json: cannot read the profile');
    const partial = join(dir, 'partial.json');
    writeFileSync(partial, JSON.stringify({ num_hidden_layers: 4, hidden_size: 64 }));
    const p = await cli(['capacity', '--model-profile', partial]);
    expect(p.code).toBe(2);
    expect(p.err).toMatch(/partial: config.json has no numeric "num_attention_heads"/);
  });
});
