// Speculative decoding: TPOT follows (verify step + K draft steps) / ((1 − a^(K+1)) / (1 − a)), and the acceptance counters.
import { describe, expect, it } from 'vitest';
import { simulateRun } from '../virtual.js';
import { resolveEngine } from './config.js';
import { decodeShape, type StepShape } from './cost.js';
import { engineStepCost } from './pipeline.js';
import { draftAcceptanceRate, expectedTokensPerStep } from './spec-decode.js';

const PROMPT = 512;
const OUT = 601;
const base = { model: 'llama-3.1-8b', gpu: 'h100' } as const;

const tpotsMs = (engine: Parameters<typeof resolveEngine>[0]) => {
  const run = simulateRun({ engine, requests: [{ promptTokens: PROMPT, maxTokens: OUT, ignoreEos: true }], load: { concurrency: 1, requests: 3 } });
  const tpots = run.records.map((r) => (r.endMs - r.firstTokenMs!) / (r.outputTokens - 1));
  return { mean: tpots.reduce((a, b) => a + b, 0) / tpots.length, run };
};

/** One sequence verifying K + 1 tokens on top of `ctx` cached tokens. */
const verifyShape = (k: number, ctx: number): StepShape => ({ requests: 1, newTokens: k + 1, contextTokens: ctx, attentionPairs: (k + 1) * ctx + ((k + 1) * (k + 2)) / 2 });

describe('speculative decoding', () => {
  it('expected tokens per step: a = 0.7, K = 3 gives 2.533; vLLM acceptance rate 0.511', () => {
    expect(expectedTokensPerStep(0.7, 3)).toBeCloseTo((1 - 0.7 ** 4) / 0.3, 12);
    expect(expectedTokensPerStep(0.7, 3)).toBeCloseTo(2.533, 3);
    expect(draftAcceptanceRate(0.7, 3)).toBeCloseTo(1.533 / 3, 3);
    expect(expectedTokensPerStep(0, 5)).toBe(1);
  });

  for (const method of ['draft', 'eagle', 'ngram'] as const) {
    it(`${method}: acceptance 0.7 and 3 draft tokens change simulated TPOT by the documented formula`, () => {
      const spec = resolveEngine({ ...base, specMethod: method, specTokens: 3, specAcceptance: 0.7 });
      const draftCost = spec.features.spec!.draftCost;
      // Step costs are linear in the context, so the mean step over the decode equals the step at the mean context.
      const ctx = PROMPT + OUT / 2;
      const stepMs = engineStepCost(spec, verifyShape(3, ctx)).totalMs + 3 * draftCost * engineStepCost(spec, decodeShape(1, ctx)).totalMs;
      const expected = stepMs / expectedTokensPerStep(0.7, 3);

      const off = tpotsMs(base).mean;
      const { mean: on, run } = tpotsMs({ ...base, specMethod: method, specTokens: 3, specAcceptance: 0.7 });
      expect(Math.abs(on - expected) / expected).toBeLessThan(0.01);
      // The change is large, not rounding: off = plain decode step at the same context.
      const plain = engineStepCost(spec, decodeShape(1, ctx)).totalMs;
      expect(Math.abs(off - plain) / plain).toBeLessThan(0.01);
      expect(on / off).toBeLessThan(0.6);
      // Every request still gets exactly its tokens.
      expect(run.records.every((r) => r.outputTokens === OUT && r.tokenTimesMs.length === OUT)).toBe(true);
      const c = run.counters;
      expect(c.specDraftTokens).toBe(3 * c.specDrafts);
      expect(c.specAcceptedTokens / c.specDraftTokens).toBeCloseTo(draftAcceptanceRate(0.7, 3), 2);
    });
  }

  it('a batch verifies K + 1 tokens per sequence inside the step token budget', () => {
    const run = simulateRun({
      engine: { ...base, specMethod: 'ngram', specTokens: 4, specAcceptance: 0.5, maxNumBatchedTokens: 64 },
      requests: [{ promptTokens: 40, maxTokens: 200, ignoreEos: true }],
      load: { concurrency: 32, requests: 64 },
    });
    expect(run.records.every((r) => r.outputTokens === 200 && !r.error)).toBe(true);
    // 64 tokens of budget / 5 per verify: at most 12 sequences decode per step, so drafts per step stay ≤ 12.
    expect(run.counters.specDrafts / run.steps).toBeLessThanOrEqual(12);
  });
});
