// A pasted `vllm bench serve` command line runs as `tokenflood run <flags>`, with the config vLLM's flags mean.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import { recordsOf } from '../src/report/results-dir.js';
import { startScriptServer, usageChunk, DONE, type ScriptServer } from './fixtures/script-server.js';
import { tmpDir } from './helpers.js';
import { capture } from './io-capture.js';

let server: ScriptServer;
beforeAll(async () => {
  // A completions stream: text chunks, then usage.
  const text = (t: string) => `data: ${JSON.stringify({ object: 'text_completion', choices: [{ index: 0, text: t, finish_reason: null }] })}\n\n`;
  server = await startScriptServer(() => ({ steps: [{ at: 0, write: text('a') + text('b') + usageChunk(8, 2) + DONE }] }));
});
afterAll(() => server.close());

const PASTED =
  '--backend vllm --model llama-3.1-8b --dataset-name random --random-input-len 64 --random-output-len 16 --num-prompts 20 ' +
  '--max-concurrency 4 --request-rate inf --goodput ttft:500 tpot:100 --metric-percentiles 50,99.9 --percentile-metrics ttft,tpot,itl,e2el ' +
  '--seed 3 --ignore-eos';

describe('vLLM bench serve flags on tokenflood run', () => {
  it('runs a pasted command line against the embedded sim with the same meaning', async () => {
    const out = join(tmpDir(), 'run');
    const c = capture();
    expect(await main(['run', '--no-validate', ...PASTED.split(' '), '--json', '--quiet', '--out', out], c.io)).toBe(0);
    const cfg = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')).config;
    expect(cfg).toMatchObject({
      backend: 'openai-completions', endpoint: 'completions', model: 'llama-3.1-8b', requests: 20, concurrency: 4, input_tokens: '64', output_tokens: '16',
      slo: 'ttft_max=500ms,tpot_max=100ms', percentiles: [50, 99.9], dataset_seed: 3, ignore_eos: true,
    });
    expect(cfg.rate).toBeUndefined();
    expect(cfg.seed).toBeUndefined(); // vLLM's --seed draws the prompts; nothing is sent as a sampling seed
    const doc = JSON.parse(c.out);
    expect(doc.requests.total).toBe(20);
    expect(doc.ttft_ms.p99_9).toEqual(expect.any(Number));
    expect(doc.slo.checks.map((x: { name: string }) => x.name)).toEqual(['ttft_max', 'tpot_max']);
    const recs = [...recordsOf(join(out, 'requests.jsonl'))];
    expect(recs.every((r) => r.max_tokens === 16)).toBe(true);
    expect(c.err).toMatch(/vLLM flags: --goodput = --slo ttft_max=500ms,tpot_max=100ms/);

  }, 60_000);

  it("takes --base-url as vLLM's origin and --endpoint as the path, on both transports", async () => {
    for (const transport of ['h1', 'undici']) {
      const origin = new URL(server.baseUrl).origin;
      const before = server.urls.length;
      const c = capture();
      const args = ['run', '--no-validate', '--base-url', origin, '--endpoint', '/v1/completions', '--model', 'scripted-model', '--num-prompts', '3', '--request-rate', '50', '--max-concurrency', '2', '--transport', transport, '--no-server-metrics', '--quiet', '--json', '--out', join(tmpDir(), 'r')];
      expect(await main(args, c.io), c.err).toBe(0);
      expect(server.urls.slice(before)).toEqual(['/v1/completions', '/v1/completions', '/v1/completions']);
      const doc = JSON.parse(c.out);
      expect(doc.requests.ok).toBe(3);
      expect(doc.run.config).toMatchObject({ base_url: `${origin}/v1`, rate: 50, concurrency: 2, requests: 3, ignore_eos: false });
    }
  }, 60_000);

  it('take the vLLM flags that make sense on a sweep: --num-prompts per point, --goodput as the sweep SLO, lengths and percentiles', async () => {
    const out = join(tmpDir(), 'sweep');
    const c = capture();
    const args = '--concurrency 1,2 --backend vllm --model llama-3.1-8b --num-prompts 4 --random-input-len 32 --random-output-len 4 --goodput ttft:5000 --metric-percentiles 50,99.9 --quiet';
    expect(await main(['sweep', '--no-validate', ...args.split(' '), '--out', out], c.io), c.err).toBe(0);
    const doc = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8'));
    expect(doc.points.map((p: { requests: number }) => p.requests)).toEqual([4, 4]);
    expect(doc.points.map((p: { lengths: string }) => p.lengths)).toEqual(['32x4', '32x4']);
    expect(JSON.stringify(doc.slo)).toContain('ttft_max=5000ms');
    const cfg = JSON.parse(readFileSync(join(out, doc.points[1].dir, 'run.json'), 'utf8')).config;
    expect(cfg).toMatchObject({ concurrency: 2, endpoint: 'completions', input_tokens: '32', output_tokens: '4', percentiles: [50, 99.9], ignore_eos: false });
    // --max-concurrency is the sweep's own (--auto's highest level), not vLLM's.
    const bad = capture();
    expect(await main(['sweep', '--no-validate', '--concurrency', '1', '--request-rate', '5', '--quiet'], bad.io)).toBe(2);
    expect(bad.err).toMatch(/unknown option '--request-rate'/);
  }, 90_000);

  const refused: [string, RegExp][] = [
    ['--dataset-name sonnet', /--dataset-name: sonnet is not supported.*--dataset FILE/],
    ['--dataset-name sharegpt', /--dataset-name sharegpt: give the file with --dataset-path, as vLLM/],
    ['--dataset-path data.json', /--dataset-path: vLLM reads a file with --dataset-name sharegpt or custom; give one of them, or --dataset FILE/],
    ['--ramp-up-strategy linear --ramp-up-start-rps 10', /--ramp-up-strategy: give both --ramp-up-start-rps and --ramp-up-end-rps/],
    ['--ramp-up-strategy linear --ramp-up-start-rps 10 --ramp-up-end-rps 20 --request-rate 5', /--ramp-up-strategy: the ramp sets the request rate/],
    ['--ramp-up-strategy exponential --ramp-up-start-rps 0 --ramp-up-end-rps 20', /--ramp-up-start-rps: an exponential ramp-up cannot start at 0/],
    ['--metadata tp', /--metadata: expected KEY=VALUE, as vLLM, got "tp"/],
    ['--random-range-ratio 1.5', /--random-range-ratio: expected a number with 0 <= r < 1/],
    ['--max-concurrency 4 --concurrency 2', /--max-concurrency: means --concurrency, which is given too/],
    ['--goodput itl:5', /--goodput: expected ttft:MS, tpot:MS or e2el:MS/],
    ['--metric-percentiles 50,100', /--metric-percentiles: "100" is not a percentile/],
    ['--endpoint /v1/embeddings', /--endpoint: \/v1\/embeddings: tokenflood loads/],
  ];
  for (const [flags, re] of refused) {
    it(`refuses ${flags} with exit 2 and a message naming the tokenflood flag, nothing sent`, async () => {
      const c = capture();
      const before = server.bodies.length;
      expect(await main(['run', '--no-validate', '--base-url', server.baseUrl, ...flags.split(' '), '--quiet'], c.io)).toBe(2);
      expect(c.err).toMatch(re);
      expect(server.bodies.length).toBe(before);
    });
  }
});
