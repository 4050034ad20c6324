// A pasted `vllm bench serve` line with vLLM's result, naming, ramp-up and dataset flags runs, and writes what vLLM writes.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import { recordsOf } from '../src/report/results-dir.js';
import { startSimServer } from '../src/sim/server.js';
import { vllmRampStages } from '../src/config/vllm-aliases.js';
import { parseStages } from '../src/scheduler/stages.js';
import { writeByteBpeTokenizer } from './workload-fixtures.js';
import { tmpDir } from './helpers.js';
import { capture } from './io-capture.js';

let sim: Awaited<ReturnType<typeof startSimServer>>;
let origin: string;
let hubCache: string;
const savedCache = process.env.HF_HUB_CACHE;
beforeAll(async () => {
  sim = await startSimServer({ timeScale: 50, maxNumSeqs: 8 });
  origin = new URL(sim.baseUrl).origin;
  // A Hugging Face hub cache holding one tokenizer, laid out as huggingface_hub writes it (refs/main → snapshot).
  hubCache = tmpDir();
  const repo = join(hubCache, 'models--acme--tiny-llm');
  writeByteBpeTokenizer(join(repo, 'snapshots', 'abc123'), 'the quick brown fox jumps over the lazy dog '.repeat(50), 50);
  mkdirSync(join(repo, 'refs'), { recursive: true });
  writeFileSync(join(repo, 'refs', 'main'), 'abc123');
  process.env.HF_HUB_CACHE = hubCache;
});
afterAll(async () => {
  if (savedCache === undefined) delete process.env.HF_HUB_CACHE;
  else process.env.HF_HUB_CACHE = savedCache;
  await sim.close();
});

/** A small ShareGPT file, as vLLM's --dataset-name sharegpt reads it. */
function sharegpt(): string {
  const file = join(tmpDir(), 'sharegpt.json');
  const convs = Array.from({ length: 6 }, (_, i) => ({ id: `c${i}`, conversations: [{ from: 'human', value: `question ${i}: say something about foxes` }, { from: 'gpt', value: 'foxes are quick and brown' }] }));
  writeFileSync(file, JSON.stringify(convs));
  return file;
}

describe('pasting a vllm bench serve command line', () => {
  for (const transport of ['h1', 'undici'])
    it(`runs with --save-result --save-detailed --result-filename --label --metadata --served-model-name --ramp-up-* and sharegpt (${transport})`, async () => {
      const dir = tmpDir();
      const resultDir = join(dir, 'vllm-results');
      const out = join(dir, 'run');
      const pasted =
        `--backend vllm --base-url ${origin} --model acme/tiny-llm --served-model-name llama-3.1-8b --tokenizer acme/tiny-llm ` +
        `--dataset-name sharegpt --dataset-path ${sharegpt()} --num-prompts 12 ` +
        '--ramp-up-strategy linear --ramp-up-start-rps 20 --ramp-up-end-rps 60 --max-concurrency 4 ' +
        `--save-result --save-detailed --result-dir ${resultDir} --result-filename nightly.json --label nightly --metadata tp=1 gpu=h100 ` +
        '--trust-remote-code --disable-tqdm --request-id-prefix bench-1234abcd- --ready-check-timeout-sec 30';
      const c = capture();
      const code = await main(['run', ...pasted.split(' '), '--transport', transport, '--no-server-metrics', '--out', out], c.io);
      expect(code, c.err).toBe(0);
      // Every flag is taken: no "unknown option"; what tokenflood does instead is said on stderr.
      expect(c.err).not.toMatch(/unknown option/);
      expect(c.err).toMatch(/--trust-remote-code ignored/);
      expect(c.err).toMatch(/--ready-check-timeout-sec 30: tokenflood does not wait/);
      expect(c.err).toMatch(/--ramp-up-strategy linear 20 → 60 req\/s over 12 requests = --stages /);
      const cfg = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')).config;
      expect(cfg).toMatchObject({ model: 'llama-3.1-8b', tokenizer: 'acme/tiny-llm', dataset_format: 'sharegpt', requests: 12, concurrency: 4, result_format: 'vllm', quiet: true });
      expect(cfg.stages).toMatch(/^0\.001s:20\/s,.*:60\/s$/);
      // vLLM's request ids: the prefix, then the request number.
      const recs = [...recordsOf(join(out, 'requests.jsonl'))];
      expect(recs).toHaveLength(12);
      expect(recs.every((r) => r.status === 'ok' && /^bench-1234abcd-\d+$/.test(r.request_id ?? ''))).toBe(true);
      // The result JSON where vLLM writes it (--result-dir/--result-filename), and the copy in the results directory.
      const file = join(resultDir, 'nightly.json');
      expect(existsSync(file)).toBe(true);
      const doc = JSON.parse(readFileSync(file, 'utf8'));
      expect(readFileSync(join(out, 'vllm-result.json'), 'utf8')).toBe(readFileSync(file, 'utf8'));
      expect(doc).toMatchObject({ label: 'nightly', tp: '1', gpu: 'h100', backend: 'openai', request_rate: 'inf', max_concurrency: 4, ramp_up_strategy: 'linear', ramp_up_start_rps: 20, ramp_up_end_rps: 60, completed: 12, num_prompts: 12 });
      expect(doc.tokenizer_id).toContain('acme/tiny-llm');
      expect(doc.generated_texts).toHaveLength(12);
      expect(doc.generated_texts.every((t: string) => typeof t === 'string' && t.length > 0)).toBe(true);
      for (const k of ['input_lens', 'output_lens', 'ttfts', 'itls', 'start_times', 'errors']) expect(doc[k], k).toHaveLength(12);
    }, 60_000);

  it("--save-result without --result-filename uses vLLM's file name: {label}-ramp-up-{strategy}-{start}qps-{end}qps-concurrency{n}-{model}-{date}.json", async () => {
    const dir = tmpDir();
    const c = capture();
    const args = ['run', '--backend', 'vllm', '--base-url', origin, '--model', 'llama-3.1-8b', '--random-input-len', '16', '--random-output-len', '4', '--num-prompts', '4', '--request-rate', '50', '--max-concurrency', '2', '--save-result', '--result-dir', dir, '--no-server-metrics', '--quiet', '--out', join(dir, 'run')];
    expect(await main(args, c.io), c.err).toBe(0);
    const names = (await import('node:fs')).readdirSync(dir).filter((f) => f.endsWith('.json'));
    expect(names).toEqual([expect.stringMatching(/^vllm-50\.0qps-concurrency2-llama-3\.1-8b-\d{8}-\d{6}\.json$/)]);
    const doc = JSON.parse(readFileSync(join(dir, names[0]), 'utf8'));
    expect(doc).toMatchObject({ label: null, request_rate: 50, completed: 4 });
  }, 60_000);

  it('--tokenizer with a Hugging Face id: a shipped encoding, the local hub cache, else a message saying where it looked', async () => {
    const { loadTokenizer } = await import('../src/dataset/tokenizer.js');
    expect(loadTokenizer('Xenova/gpt-4').count('hello world')).toBe(loadTokenizer('cl100k_base').count('hello world'));
    expect(loadTokenizer('acme/tiny-llm').name).toBe('hf:acme/tiny-llm');
    const c = capture();
    expect(await main(['run', '--tokenizer', 'acme/not-downloaded', '--requests', '1', '--quiet'], c.io)).toBe(2);
    expect(c.err).toContain(`--tokenizer: unknown tokenizer "acme/not-downloaded": a Hugging Face id with no local copy in ${hubCache}`);
  });

  it("a ramp's stages send N/10 requests per segment along vLLM's curve, from the start rate to the end rate", () => {
    const plan = parseStages(vllmRampStages('exponential', 2, 32, 100), { vus: 1e5, ratePerS: 1e6 });
    expect(plan.stages[0]).toEqual({ durationMs: 1, target: 2 });
    expect(plan.stages.at(-2)!.target).toBe(32);
    // Requests sent in segment k = its duration × the mean of its two rates = 100/10.
    for (let k = 1; k <= 10; k++) {
      const sent = (plan.stages[k].durationMs / 1000) * ((plan.stages[k - 1].target + plan.stages[k].target) / 2);
      expect(sent).toBeCloseTo(10, 0);
    }
  });
});
