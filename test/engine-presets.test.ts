// --engine vllm|sglang|trtllm end to end: the preset (data/engines/*.yaml) reaches simulate, serve, capacity and
// calibrate; an engine profile wins over it and a flag over both. Each test fails if the preset is ignored.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { readCalibrationPoints } from '../src/calibrate/runs.js';
import { predictPoint } from '../src/calibrate/calibrate.js';
import { resolveEngine } from '../src/sim/engine/config.js';
import { startSimServer } from '../src/sim/server.js';
import { tmpDir } from './helpers.js';
import { capture } from './io-capture.js';

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const cap = capture();
  const code = await main(args, cap.io);
  return { code, out: cap.out, err: cap.err };
}
const readJson = (p: string) => JSON.parse(readFileSync(p, 'utf8'));
const GiB = 1024 ** 3;

/**
 * Poisson arrivals at 10 req/s (about what one H100 sustains here), 2,000-token prompts, 200 output tokens and a
 * 2,048-token step budget given as a flag (it wins over both presets' 8,192): prefills keep arriving while decodes run.
 */
const LOADED = ['--model-profile', 'llama-3.1-8b', '--gpu', 'h100', '--rate', '10', '--arrival', 'poisson', '--requests', '300', '--input-tokens', '2000', '--output-tokens', '200', '--max-num-batched-tokens', '2048'];

async function simulateOn(engine: string, out: string) {
  const r = await cli(['simulate', '--engine', engine, ...LOADED, '--out', out, '--json']);
  expect(r.code, r.err).toBe(0);
  return { summary: readJson(join(out, 'summary.json')), engine: readJson(join(out, 'run.json')).engine };
}

describe('--engine presets end to end', () => {
  it('simulate --engine sglang (prefill-first) gives lower mean TTFT and higher mean TPOT under load than --engine vllm on the same arrivals', async () => {
    const root = tmpDir();
    const vllm = await simulateOn('vllm', join(root, 'vllm'));
    const sglang = await simulateOn('sglang', join(root, 'sglang'));
    expect(vllm.engine).toMatchObject({ engine: 'vllm', schedule_policy: 'decode-first', block_size: 16, max_num_batched_tokens: 2048 });
    expect(sglang.engine).toMatchObject({ engine: 'sglang', schedule_policy: 'prefill-first', block_size: 1, new_token_ratio: 0.7, max_num_batched_tokens: 2048, gpu_memory_utilization: 0.88 });
    expect(sglang.summary.ttft_ms.mean).toBeLessThan(vllm.summary.ttft_ms.mean * 0.9);
    expect(sglang.summary.tpot_ms.mean).toBeGreaterThan(vllm.summary.tpot_ms.mean * 1.1);
    expect([vllm.summary.requests.ok, sglang.summary.requests.ok]).toEqual([300, 300]);
  }, 120_000);

  it('simulate --engine trtllm: num_gpu_blocks = floor((memory − weights − reserve) · 0.9 / (32 · KV bytes per token)), not vLLM\'s 0.9 of all memory', async () => {
    const out = tmpDir();
    const r = await cli(['simulate', '--engine', 'trtllm', '--model-profile', 'llama-3.1-8b', '--gpu', 'h100', '--requests', '4', '--out', out]);
    expect(r.code, r.err).toBe(0);
    const e = readJson(join(out, 'run.json')).engine;
    const ref = resolveEngine({ model: 'llama-3.1-8b', gpu: 'h100' });
    const used = ref.weightBytesPerGpu + 1.5 * GiB;
    expect(e).toMatchObject({ engine: 'trtllm', block_size: 32, max_num_seqs: 2048, cuda_graph_max_batch: 128, kv_free_memory_fraction: 0.9, new_token_ratio: 1 });
    expect(e.num_gpu_blocks).toBe(Math.floor(((ref.gpu.memBytes - used) * 0.9) / (ref.kvBytesPerTokenPerGpu * 32)));
    expect(e.num_gpu_blocks * 32).toBeGreaterThan(ref.numBlocks * ref.blockSize);

    // capacity: the same budget and the preset named in the table and --json.
    const j = JSON.parse((await cli(['capacity', '--engine', 'trtllm', '--model-profile', 'llama-3.1-8b', '--gpu', 'h100', '--json'])).out);
    expect(j).toMatchObject({ engine: 'trtllm', kv_capacity_tokens: e.num_gpu_blocks * 32 });
    const t = await cli(['capacity', '--engine', 'trtllm', '--model-profile', 'llama-3.1-8b', '--gpu', 'h100']);
    expect(t.out).toMatch(/^engine\s+trtllm defaults \(data\/engines\/trtllm\.yaml\): KV = 0\.9 of the memory free after weights, KV blocks of 32 tokens, up to 2048 sequences, CUDA graphs up to batch 128$/m);
    const plain = JSON.parse((await cli(['capacity', '--model-profile', 'llama-3.1-8b', '--gpu', 'h100', '--json'])).out);
    expect(plain.engine).toBeNull();
    expect(plain.kv_capacity_tokens).toBe(ref.kvCapacityTokens);
  }, 60_000);

  it('an --engine-profile naming an engine wins over its preset, a flag wins over both, and its stream interval reaches the client', async () => {
    const root = tmpDir();
    const profile = join(root, 'sglang-si4.yaml');
    writeFileSync(profile, 'engine: sglang\ntokens-per-chunk: 4\nmax-num-batched-tokens: 4096\nblock-size: 16\n');
    const out = join(root, 'run');
    const r = await cli(['simulate', '--engine-profile', profile, '--max-num-batched-tokens', '1024', '--requests', '6', '--concurrency', '2', '--input-tokens', '300', '--output-tokens', '41', '--out', out]);
    expect(r.code, r.err).toBe(0);
    const e = readJson(join(out, 'run.json')).engine;
    // preset (policy, ratio), profile (chunk, block size) under the flag (budget).
    expect(e).toMatchObject({ engine: 'sglang', schedule_policy: 'prefill-first', new_token_ratio: 0.7, tokens_per_chunk: 4, block_size: 16, max_num_batched_tokens: 1024 });
    const records = readFileSync(join(out, 'requests.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    // 41 tokens in chunks of 4: 11 content chunks (10 of 4, the last of 1).
    for (const rec of records) expect((rec.event_kinds as string).replace(/[^a]/g, '')).toHaveLength(11);

    // serve: the same profile, real HTTP over loopback; each SSE content chunk carries 4 tokens (the last one 2).
    const sim = await startSimServer({ engineProfile: profile, timeScale: 50 }, { log: () => {} });
    try {
      const res = await fetch(`${sim.baseUrl}/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'llama-3.1-8b', prompt: 'hello', max_tokens: 10, stream: true, ignore_eos: true, stream_options: { include_usage: true } }),
      });
      const events = (await res.text()).split('\n\n').filter((l) => l.startsWith('data: {')).map((l) => JSON.parse(l.slice(6)));
      const content = events.filter((ev) => ev.choices?.[0]?.text);
      expect(content).toHaveLength(3);
      expect(events.at(-1).usage.completion_tokens).toBe(10);
    } finally {
      await sim.close();
    }
  }, 60_000);

  it('calibrate: a run of a server that records no scheduler is re-simulated on the --engine preset it names', async () => {
    const root = tmpDir();
    const out = join(root, 'run');
    await simulateOn('sglang', out);
    const [p] = readCalibrationPoints([out]);
    expect(p.engine).toMatchObject({ engine: 'sglang', schedulePolicy: 'prefill-first' });
    // What a real SGLang server's run.json holds: the deployment, none of the scheduler's settings.
    const real = { ...p, engine: { gpu: 'h100', modelProfile: 'llama-3.1-8b', maxNumBatchedTokens: 2048 } };
    const rel = (a: number, b: number) => Math.abs(a - b) / b;
    const withPreset = await predictPoint(real, {}, { engine: { engine: 'sglang' }, maxRequests: 300 });
    const without = await predictPoint(real, {}, { maxRequests: 300 });
    expect(rel(withPreset.ttftMs, p.ttftMs)).toBeLessThan(0.05);
    expect(rel(withPreset.tpotMs, p.tpotMs)).toBeLessThan(0.05);
    expect(rel(without.ttftMs, p.ttftMs)).toBeGreaterThan(0.1);
  }, 120_000);

  it('a bad --engine is one clear message, exit 2', async () => {
    const r = await cli(['simulate', '--engine', 'tgi', '--requests', '2', '--out', tmpDir()]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/engine.*(vllm|sglang|trtllm)/i);
  });
});
