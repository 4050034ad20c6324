// The sim server with speculative decoding: every requested token still arrives, and /metrics carries vLLM's spec-decode counters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServerHandle } from '../src/sim/server.js';
import { draftAcceptanceRate } from '../src/sim/engine/spec-decode.js';

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
});
