// Issue 25, item 14: models default to the precision they were released in, in simulate and serve as in capacity.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { registerSimulate } from '../src/cli/simulate.js';
import { startSimServer } from '../src/sim/server.js';
import { run } from '../src/run.js';
import { fromHfConfig } from '../src/sim/engine/profile.js';
import { runCli } from './fixtures/cli-harness.js';
import { tmpDir } from './helpers.js';

describe('released precision by default', () => {
  it('simulate --model-profile deepseek-v3 --gpu h200 --tp 8 runs with no dtype flag, in FP8', async () => {
    const out = join(tmpDir(), 'sim');
    const r = await runCli(registerSimulate, ['simulate', '--model-profile', 'deepseek-v3', '--gpu', 'h200', '--tp', '8', '--requests', '2', '--input-tokens', '64', '--output-tokens', '4', '--out', out, '--quiet']);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')).engine).toMatchObject({ model_profile: 'deepseek-v3', weight_dtype: 'fp8', tp: 8 });
  });

  it.each(['h1', 'undici'] as const)('serve (startSimServer) deepseek-v3 on 8x H200 with no dtype answers a run (transport %s)', async (transport) => {
    const server = await startSimServer({ modelProfile: 'deepseek-v3', gpu: 'h200', tp: 8, timeScale: 50 });
    try {
      const res = await run({ baseUrl: server.baseUrl, requests: 2, concurrency: 1, inputTokens: 32, outputTokens: 4, transport, out: tmpDir(), quiet: true });
      expect(res.summary.requests.ok).toBe(2);
    } finally {
      await server.close();
    }
  });

  it('a Hugging Face config.json gives its checkpoint precision: quant_method fp8 / mxfp4, torch_dtype float16', () => {
    const base = { model_type: 'llama', hidden_size: 512, num_attention_heads: 8, num_hidden_layers: 2, vocab_size: 1000, intermediate_size: 1024 };
    expect(fromHfConfig('a', { ...base, quantization_config: { quant_method: 'fp8' } }).releasedDtype).toBe('fp8');
    expect(fromHfConfig('b', { ...base, quantization_config: { quant_method: 'mxfp4' } }).releasedDtype).toBe('mxfp4');
    expect(fromHfConfig('c', { ...base, torch_dtype: 'float16' }).releasedDtype).toBe('fp16');
    expect(fromHfConfig('d', { ...base, torch_dtype: 'bfloat16' }).releasedDtype).toBeUndefined();
  });
});
