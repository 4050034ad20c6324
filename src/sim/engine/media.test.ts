import { describe, expect, it } from 'vitest';
import { audioTokens, imageTokens, internvlGrid, qwenResize, videoTokens } from './media.js';
import { createEncoderCache } from './encoder-cache.js';
import { resolveEngine } from './config.js';
import { createEngine } from './engine.js';
import { MODELS } from './catalog.js';

describe('image token rules', () => {
  it('Qwen2.5-VL: 1008x1008 is 36x36 = 1,296 tokens plus 2 markers', () => {
    for (const m of ['qwen2.5-vl-7b', 'qwen2.5-vl-72b']) {
      const t = imageTokens(m, 1008, 1008);
      expect(t.tokens).toBe(1296);
      expect(t.markers).toBe(2);
      expect(t.promptTokens).toBe(1298);
      expect(t.patches).toBe(72 * 72);
    }
  });
  it('Qwen2.5-VL resizes to multiples of 28 within min/max pixels', () => {
    expect(qwenResize(1000, 1000, 28, 3136, 12845056)).toEqual([1008, 1008]);
    expect(imageTokens('qwen2.5-vl-7b', 1024, 1024).tokens).toBe(37 * 37);
    // Tiny images grow to min_pixels (56x56 = 4 tokens); huge ones shrink under max_pixels (16,384 tokens).
    expect(imageTokens('qwen2.5-vl-7b', 10, 10).tokens).toBe(4);
    const big = imageTokens('qwen2.5-vl-7b', 8000, 8000).tokens;
    expect(big).toBeLessThanOrEqual(16384);
    expect(big).toBeGreaterThan(16000);
    expect(imageTokens('qwen2.5-vl-7b', 640, 480).tokens).toBe(23 * 17);
  });
  it('LLaVA-1.5 576 and Gemma 3 256 whatever the size', () => {
    for (const [w, h] of [[1008, 1008], [64, 2000], [336, 336]]) {
      expect(imageTokens('llava-1.5-7b', w, h).tokens).toBe(576);
      expect(imageTokens('llava-1.5-7b', w, h).promptTokens).toBe(576);
      expect(imageTokens('gemma-3-27b', w, h).tokens).toBe(256);
      expect(imageTokens('gemma-3-27b', w, h).promptTokens).toBe(258);
    }
  });
  it('InternVL3 tiles 448 px, 256 tokens a tile, thumbnail when tiled', () => {
    expect(imageTokens('internvl3-8b', 448, 448).tokens).toBe(256);
    expect(internvlGrid(896, 448, 448, 12)).toEqual([2, 1]);
    expect(imageTokens('internvl3-8b', 896, 448).tokens).toBe(3 * 256);
    expect(imageTokens('internvl3-8b', 1344, 1344).tokens).toBe(10 * 256);
  });
  it('Llama 3.2 Vision: one <|image|> prompt token, encoder over up to 4 tiles of 1,601 patches', () => {
    const t = imageTokens('llama-3.2-11b-vision', 1120, 1120);
    expect(t.promptTokens).toBe(1);
    expect(t.patches).toBe(4 * 1601);
    expect(imageTokens('llama-3.2-11b-vision', 560, 560).patches).toBe(1601);
  });
  it('text-only profiles fall back to the Qwen2.5-VL rule', () => {
    expect(imageTokens('llama-3.1-8b', 1008, 1008).tokens).toBe(1296);
  });
  it('encoder FLOPs = 2 x tower params x patches', () => {
    const t = imageTokens('llava-1.5-7b', 336, 336);
    expect(t.flops).toBeCloseTo(2 * 304e6 * 577, -3);
  });
  it('video: Qwen groups 2 frames per temporal patch', () => {
    expect(videoTokens('qwen2.5-vl-7b', 448, 448, 8).tokens).toBe(4 * 256);
  });
});

describe('audio token rules', () => {
  it('Whisper-large-v3: 1,500 encoder frames per 30 s window, into cross-attention', () => {
    expect(audioTokens('whisper-large-v3', 30).tokens).toBe(1500);
    expect(audioTokens('whisper-large-v3', 10).tokens).toBe(1500);
    expect(audioTokens('whisper-large-v3', 45).tokens).toBe(3000);
    expect(audioTokens('whisper-large-v3', 30).promptTokens).toBe(0);
  });
  it('Qwen2-Audio: 25 tokens per second after pooling, 30 s kept, 2 markers', () => {
    expect(audioTokens('qwen2-audio-7b', 30).tokens).toBe(750);
    expect(audioTokens('qwen2-audio-7b', 4).tokens).toBe(100);
    expect(audioTokens('qwen2-audio-7b', 60).tokens).toBe(750);
    expect(audioTokens('qwen2-audio-7b', 4).promptTokens).toBe(102);
  });
});

describe('encoder cache', () => {
  it('a repeated hash is a hit and costs nothing; LRU bounded by tokens', () => {
    const c = createEncoderCache(1000);
    expect(c.charge([{ hash: 'a', tokens: 600, flops: 5 }])).toEqual({ flops: 5, hits: 0, misses: 1 });
    expect(c.charge([{ hash: 'a', tokens: 600, flops: 5 }])).toEqual({ flops: 0, hits: 1, misses: 0 });
    c.charge([{ hash: 'b', tokens: 600, flops: 7 }]);
    expect(c.usedTokens()).toBe(600);
    expect(c.charge([{ hash: 'a', tokens: 600, flops: 5 }]).misses).toBe(1);
  });
  it('an item inside the prefix-cache hit is not encoded even when evicted from the encoder cache', () => {
    const c = createEncoderCache(100);
    const item = { hash: 'p', tokens: 600, flops: 9, offset: 10, span: 602 };
    // Larger than the cache: never stored, so only the prefix cache can spare it.
    expect(c.charge([item], 0)).toEqual({ flops: 9, hits: 0, misses: 1 });
    expect(c.charge([item], 611)).toEqual({ flops: 9, hits: 0, misses: 1 });
    expect(c.charge([item], 612)).toEqual({ flops: 0, hits: 1, misses: 0 });
  });
  it('the engine charges encoder time before prefill and skips it on a cache hit', () => {
    expect(MODELS['qwen2.5-vl-7b']).toBeDefined();
    const spec = resolveEngine({ model: 'qwen2.5-vl-7b', gpu: 'h100' });
    const e = createEngine(spec);
    const img = imageTokens('qwen2.5-vl-7b', 1008, 1008);
    const media = [{ hash: 'x', tokens: img.tokens, flops: img.flops }];
    const first = (id: string, m?: typeof media): number => {
      e.add({ id, promptTokens: 1400, outputTokens: 1, media: m });
      let ms = 0;
      while (e.hasWork()) ms += e.step()!.durationMs;
      return ms;
    };
    const text = first('t');
    const cold = first('a', media);
    const warm = first('b', media);
    const expected = (img.flops / spec.flopsPerSec) * 1000;
    expect(cold - text).toBeCloseTo(expected, 3);
    expect(warm).toBeCloseTo(text, 6);
    const k = e.counters();
    expect(k.mmCacheQueries).toBe(2);
    expect(k.mmCacheHits).toBe(1);
    expect(k.encoderMs).toBeCloseTo(expected, 6);
  });
  it('disaggregated prefill runs the encoder before the prefill', () => {
    const spec = resolveEngine({ model: 'qwen2.5-vl-7b', gpu: 'h100', disagg: '1:1' });
    const img = imageTokens('qwen2.5-vl-7b', 1008, 1008);
    const ttft = (media?: { hash: string; tokens: number; flops: number }[]): number => {
      const e = createEngine(spec);
      e.add({ id: 'a', promptTokens: 1400, outputTokens: 2, media });
      let ms = 0;
      for (;;) {
        const s = e.step()!;
        ms += s.durationMs;
        if (s.outputs.some((o) => o.tokenIndex === 1)) return ms;
      }
    };
    const expected = (img.flops / spec.flopsPerSec) * 1000;
    expect(ttft([{ hash: 'x', tokens: img.tokens, flops: img.flops }]) - ttft()).toBeGreaterThan(expected * 0.8);
  });
});
