// The seed workflow's own combos.yaml (model, base_url, tokenizer, input_output and concurrency_prompts pairs) runs unchanged as `sweep --grid`.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { registerSweep } from '../src/cli/sweep.js';
import { startSimServer } from '../src/sim/server.js';
import { gridPoints, readGridFile } from '../src/sweep/grid-file.js';
import { runCli } from './fixtures/cli-harness.js';
import { tmpDir } from './helpers.js';

let sim: Awaited<ReturnType<typeof startSimServer>>;
let origin: string;
beforeAll(async () => {
  sim = await startSimServer({ timeScale: 100, maxNumSeqs: 4, servedModelName: 'deepseek-ai/DeepSeek-R1-Distill-Qwen-32B' });
  origin = new URL(sim.baseUrl).origin;
});
afterAll(() => sim.close());

/** The seed article's file, comments and all, with small numbers and the embedded server's origin (vLLM's meaning of base_url). */
const seedFile = (baseUrl: string): string => `# 基礎配置
model: "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B"
base_url: "${baseUrl}" # vLLM服務地址
tokenizer: "cl100k_base"
# 測試場景配置
# input_tokens 和 output_tokens 分別是輸入和輸出文本中的令牌數量。
input_output:
- [32, 4] # 短對話場景
- [64, 4] # 長文本處理場景
# max_concurrency 是可以發送到服務器的最大并發請求數。
# num_prompts 是要發送到服務器的提示數量。
concurrency_prompts:
- [1, 3] # 低并發測試
- [2, 4] # 中等并發測試
`;

describe('sweep --grid with the seed workflow combos.yaml', () => {
  it('is the cross product of input_output and concurrency_prompts; model, base_url and tokenizer come from the file', () => {
    const g = gridPoints({ model: 'm', base_url: 'http://x:8001', tokenizer: 't', input_output: [[256, 256], [2048, 2048]], concurrency_prompts: [[1, 10], [4, 20], [32, 20]] }, 'combos.yaml');
    expect(g.problems).toEqual([]);
    expect(g.run).toEqual({ model: 'm', baseUrl: 'http://x:8001', tokenizer: 't' });
    expect(g.points.map((p) => `${p.io.input}x${p.io.output}:c${p.load}:n${p.requests}`)).toEqual([
      '256x256:c1:n10', '256x256:c4:n20', '256x256:c32:n20', '2048x2048:c1:n10', '2048x2048:c4:n20', '2048x2048:c32:n20',
    ]);
    const bad = gridPoints({ input_output: [[256]], concurrency_prompts: [[1, 10]] }, 'combos.yaml');
    expect(bad.problems).toEqual(['combos.yaml: input_output[0]: expected a pair [input, output], got [256]']);
  });

  it('reads the upstream repository\'s own file as written (indented lists, trailing comments, a tokenizer path)', () => {
    const dir = tmpDir();
    const grid = join(dir, 'combos.yaml');
    writeFileSync(grid, `# Set the model name and server base URL here
model: "EXAONE-3.5-32B-Instruct-32k"        # served model name that you set in vllm server
base_url: "http://localhost:8000"  # or http://{ip_address}:{port}
tokenizer: "path_tokenizer"  # path that includes tokenizer file in which you set in vllm server

# for example, input_tokens: 256, output_tokens: 256 --> [256, 256]
input_output:
  - [256, 256]
  - [2048, 2048]
# for example, max_concurrency: 1, num_prompts: 10 --> [1, 10]
concurrency_prompts:
  - [1, 10]
  - [4, 40]
  - [8, 80]
  - [16, 160]
  - [32, 320]
`);
    const g = readGridFile(grid);
    expect(g.problems).toEqual([]);
    expect(g.run).toEqual({ model: 'EXAONE-3.5-32B-Instruct-32k', baseUrl: 'http://localhost:8000', tokenizer: 'path_tokenizer' });
    expect(g.points).toHaveLength(10);
    expect(g.points.slice(0, 5).map((p) => `${p.io.input}x${p.io.output}:c${p.load}:n${p.requests}`)).toEqual(['256x256:c1:n10', '256x256:c4:n40', '256x256:c8:n80', '256x256:c16:n160', '256x256:c32:n320']);
  });

  for (const transport of ['h1', 'undici'])
    it(`runs unchanged against a server (${transport}): 4 points, their prompt counts, the file's model and server`, async () => {
      const dir = tmpDir();
      const grid = join(dir, 'combos.yaml');
      writeFileSync(grid, seedFile(origin));
      const out = join(dir, 'sweep');
      const r = await runCli(registerSweep, ['sweep', '--grid', grid, '--transport', transport, '--no-server-metrics', '--quiet', '--out', out]);
      expect(r.code, r.err).toBe(0);
      const doc = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8'));
      expect(doc.target_url).toBe(`${origin}/v1`);
      expect(doc.model).toBe('deepseek-ai/DeepSeek-R1-Distill-Qwen-32B');
      expect(doc.points.map((p: { input_tokens: number; output_tokens: number; load: number; requests: number; ok: number }) => `${p.input_tokens}x${p.output_tokens}:c${p.load}:${p.ok}/${p.requests}`)).toEqual([
        '32x4:c1:3/3', '32x4:c2:4/4', '64x4:c1:3/3', '64x4:c2:4/4',
      ]);
      // Which value applies is said on stderr.
      expect(r.err).toContain(`--grid ${grid}: model deepseek-ai/DeepSeek-R1-Distill-Qwen-32B = --model deepseek-ai/DeepSeek-R1-Distill-Qwen-32B`);
      expect(r.err).toContain(`--grid ${grid}: base_url ${origin} = --base-url ${origin}/v1`);
      expect(r.err).toContain(`--grid ${grid}: tokenizer cl100k_base = --tokenizer cl100k_base`);
    }, 60_000);

  it('a hub tokenizer with no local copy (the seed names the model\'s) is not fatal: the default counts, and stderr says so', async () => {
    const dir = tmpDir();
    const grid = join(dir, 'combos.yaml');
    writeFileSync(grid, seedFile(origin).replace('tokenizer: "cl100k_base"', 'tokenizer: "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B"'));
    const saved = process.env.HF_HUB_CACHE;
    process.env.HF_HUB_CACHE = join(dir, 'empty-cache');
    try {
      const r = await runCli(registerSweep, ['sweep', '--grid', grid, '--no-server-metrics', '--quiet', '--out', join(dir, 'sweep')]);
      expect(r.code, r.err).toBe(0);
      expect(r.err).toContain(`--grid ${grid}: tokenizer deepseek-ai/DeepSeek-R1-Distill-Qwen-32B not used: no local copy`);
      expect(JSON.parse(readFileSync(join(dir, 'sweep', 'sweep.json'), 'utf8')).points).toHaveLength(4);
    } finally {
      if (saved === undefined) delete process.env.HF_HUB_CACHE;
      else process.env.HF_HUB_CACHE = saved;
    }
  }, 60_000);

  it('flags override the file\'s model, base_url and tokenizer, and say so', async () => {
    const dir = tmpDir();
    const grid = join(dir, 'combos.yaml');
    // The file points at a port nothing listens on: --base-url must win.
    writeFileSync(grid, seedFile('http://127.0.0.1:9'));
    const out = join(dir, 'sweep');
    const r = await runCli(registerSweep, ['sweep', '--grid', grid, '--base-url', sim.baseUrl, '--tokenizer', 'o200k_base', '--no-server-metrics', '--quiet', '--out', out]);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain(`--grid ${grid}: base_url http://127.0.0.1:9 not used: --base-url ${sim.baseUrl} is given`);
    expect(r.err).toContain(`--grid ${grid}: tokenizer cl100k_base not used: --tokenizer o200k_base is given`);
    const doc = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8'));
    expect(doc.target_url).toBe(sim.baseUrl);
    expect(doc.config.tokenizer).toBe('o200k_base');
  }, 60_000);
});
