// The sim server with speculative decoding: every requested token still arrives, and /metrics carries vLLM's spec-decode counters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServerHandle } from '../src/sim/server.js';
import { draftAcceptanceRate, expectedTokensPerStep } from '../src/sim/engine/spec-decode.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { registerSimulate } from '../src/cli/simulate.js';
import { runCli } from './fixtures/cli-harness.js';
import { run } from '../src/run.js';
import { tmpDir } from './helpers.js';

let sim: SimServerHandle;
beforeAll(async () => {
  sim = await startSimServer({ modelProfile: 'tiny', gpu: 'tiny-gpu', specMethod: 'ngram', specTokens: 3, specAcceptance: 0.7, timeScale: 20 });
});
afterAll(async () => {
  await sim.close();
});

const counter = (text: string, name: string): number => {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`));
  if (!line) throw new Error(`${name} not exported`);
  return Number(line.split(' ').at(-1));
};

describe('sim server with --spec-method', () => {
  it('streams exactly max_tokens tokens and exports drafts, draft tokens and accepted tokens', async () => {
    const bodies = Array.from({ length: 4 }, () =>
      fetch(`${sim.baseUrl}/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'tiny', prompt: 'hello world', max_tokens: 120, ignore_eos: true, stream: true, stream_options: { include_usage: true } }),
      }).then((r) => r.text()),
    );
    for (const text of await Promise.all(bodies)) {
      const usage = text.split('\n').filter((l) => l.startsWith('data: {')).map((l) => JSON.parse(l.slice(6))).find((e) => e.usage)?.usage;
      expect(usage.completion_tokens).toBe(120);
    }
    const metrics = await (await fetch(`${sim.baseUrl.replace(/\/v1$/, '')}/metrics`)).text();
    const drafts = counter(metrics, 'vllm:spec_decode_num_drafts_total');
    const draftTokens = counter(metrics, 'vllm:spec_decode_num_draft_tokens_total');
    const accepted = counter(metrics, 'vllm:spec_decode_num_accepted_tokens_total');
    expect(drafts).toBeGreaterThan(0);
    expect(draftTokens).toBe(3 * drafts);
    // 4 requests × 119 decode tokens = drafts + accepted (each step emits one token plus its accepted drafts).
    expect(drafts + accepted).toBe(4 * 119);
    expect(Math.abs(accepted / draftTokens - draftAcceptanceRate(0.7, 3))).toBeLessThan(0.03);
  });

  it('simulate prints the acceptance rate and tokens per step, and run.json carries them with the engine settings', async () => {
    const out = join(tmpDir(), 'run');
    const r = await runCli(registerSimulate, ['simulate', '--spec-method', 'draft', '--spec-tokens', '3', '--spec-acceptance', '0.7', '--requests', '8', '--concurrency', '2', '--output-tokens', '300', '--out', out]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/speculative decoding: acceptance rate 5[01]\.\d%, 2\.5\d tokens per step/);
    const run = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8'));
    expect(run.engine).toMatchObject({ spec_method: 'draft', spec_tokens: 3, spec_acceptance: 0.7, spec_draft_cost: 0.1 });
    expect(run.simulation.spec_decode.mean_accepted_tokens_per_step).toBeCloseTo(expectedTokensPerStep(0.7, 3), 1);
    const bad = await runCli(registerSimulate, ['simulate', '--spec-acceptance', '1.5', '--requests', '1', '--out', join(tmpDir(), 'bad')]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--spec-acceptance');
  });

  for (const transport of ['h1', 'undici'] as const) {
    it(`${transport}: tokens that arrive together from one speculative step are each counted, every request ok`, async () => {
      const res = await run({ baseUrl: sim.baseUrl, model: 'tiny', requests: 6, concurrency: 3, inputTokens: 32, outputTokens: 90, out: tmpDir(), quiet: true, transport });
      expect(res.records.map((r) => [r.status, r.output_tokens])).toEqual(Array.from({ length: 6 }, () => ['ok', 90]));
      expect(res.summary.requests.failed).toBe(0);
    });
  }
});
