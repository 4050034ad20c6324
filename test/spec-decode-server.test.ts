// The sim server with speculative decoding: every requested token still arrives, and /metrics carries vLLM's spec-decode counters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServerHandle } from '../src/sim/server.js';
import { draftAcceptanceRate, expectedTokensPerStep } from '../src/sim/engine/spec-decode.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { registerSimulate } from '../src/cli/simulate.js';
import { runCli } from './fixtures/cli-harness.js';
import { run } from '../src/run.js';
import { tmpDir, within } from './helpers.js';
import { renderSummary } from '../src/report/terminal.js';

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

  it('a run against it has the acceptance in summary.json\'s server section and beside TPOT in the terminal and report.html', async () => {
    const out = tmpDir();
    const res = await run({ baseUrl: sim.baseUrl, model: 'tiny', requests: 12, concurrency: 4, inputTokens: 32, outputTokens: 200, ignoreEos: true, out, quiet: true, scrapeInterval: 0.1 });
    const sd = res.summary.server!.spec_decode!;
    expect(sd.draft_tokens).toBe(3 * sd.drafts!);
    expect(sd.draft_tokens_per_draft).toBe(3);
    expect(Math.abs(sd.acceptance_rate! - draftAcceptanceRate(0.7, 3))).toBeLessThan(0.05);
    expect(sd.mean_acceptance_length).toBeCloseTo(1 + sd.accepted_tokens! / sd.drafts!, 2);
    expect(within(sd.mean_acceptance_length, 1.5, 4)).toBe(true);
    // Each verify step emits mean_acceptance_length tokens: the step a sequence waits for is TPOT × that.
    expect(sd.implied_step_ms).toBeCloseTo(res.summary.tpot_ms.mean! * sd.mean_acceptance_length!, 1);
    const text = renderSummary(res.summary);
    const lines = text.split('\n');
    const tpotRow = lines.findIndex((l) => l.startsWith('TPOT (ms)'));
    const spec = lines.findIndex((l) => l.startsWith('(TPOT with speculative decoding:'));
    expect(tpotRow).toBeGreaterThan(0);
    expect(spec).toBeGreaterThan(tpotRow);
    expect(lines[spec]).toMatch(/\d\.\d+ tokens per verify step, acceptance \d+(\.\d)?%; TPOT mean [\d.]+ ms × [\d.]+ = [\d.]+ ms per step\)/);
    expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain('tokens per verify step');
  });
});

describe('sim server with --spec-method and SGLang metric names', () => {
  it('exports sglang:spec_accept_length and spec_accept_rate, and the run reads them into the server section', async () => {
    const sg = await startSimServer({ modelProfile: 'tiny', gpu: 'tiny-gpu', specMethod: 'ngram', specTokens: 3, specAcceptance: 0.7, timeScale: 20, metricsFlavor: 'sglang' }, { log: () => {} });
    try {
      const res = await run({ baseUrl: sg.baseUrl, model: 'tiny', requests: 12, concurrency: 4, inputTokens: 32, outputTokens: 200, ignoreEos: true, out: tmpDir(), quiet: true, scrapeInterval: 0.1 });
      const srv = res.summary.server!;
      expect(srv.engine).toBe('sglang');
      const sd = srv.spec_decode!;
      // SGLang exports gauges only: no counts, the means of its length and rate gauges.
      expect(sd.drafts).toBeNull();
      expect(Math.abs(sd.acceptance_rate! - draftAcceptanceRate(0.7, 3))).toBeLessThan(0.1);
      expect(Math.abs(sd.mean_acceptance_length! - expectedTokensPerStep(0.7, 3))).toBeLessThan(0.3);
      expect(renderSummary(res.summary)).toMatch(/\(TPOT with speculative decoding: [\d.]+ tokens per verify step/);
    } finally {
      await sg.close();
    }
  });
});

