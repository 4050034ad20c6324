// Attention FLOPs of a step: sliding layers capped at the window, MLA decode in the absorbed form.
import { describe, expect, it } from 'vitest';
import { resolveEngine } from './config.js';
import { attentionFlops, decodeShape, prefillShape } from './cost.js';
import { attentionFlopsPerPair } from './profile.js';

describe('attention FLOPs', () => {
  it('gpt-oss: the 18 sliding layers attend at most 128 keys per new token; the 18 full layers all of them', () => {
    const spec = resolveEngine({ model: 'gpt-oss-120b', gpu: 'h100' });
    const m = spec.model;
    const s = prefillShape(8192);
    const perLayer = attentionFlopsPerPair(m) / m.layers;
    const want = perLayer * (18 * s.attentionPairs + 18 * 8192 * 128);
    expect(attentionFlops(spec, s)).toBeCloseTo(want, -3);
    // A dense model without a window: every pair on every layer.
    const llama = resolveEngine({});
    expect(attentionFlops(llama, s)).toBeCloseTo(attentionFlopsPerPair(llama.model) * s.attentionPairs, -3);
  });

  it('DeepSeek-R1 decode runs absorbed MLA: 2·heads·(2·512 + 64) per pair per layer, 3.4x the decompressed form', () => {
    const spec = resolveEngine({ model: 'deepseek-r1', gpu: 'h200', tp: 8 });
    const d = decodeShape(32, 4000);
    const absorbed = (2 * 61 * 128 * (2 * 512 + 64) * d.attentionPairs) / 8;
    expect(attentionFlops(spec, d)).toBeCloseTo(absorbed, -3);
    expect(attentionFlops(spec, d) / attentionFlops(spec, { ...d, decodePairs: 0 })).toBeCloseTo((2 * 512 + 64) / (128 + 64 + 128), 3);
  });
});
