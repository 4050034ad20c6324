// `simulate` counts a request's media as `serve` does: the virtual driver's plan against the sim server's usage.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunConfigSchema } from '../config/schema.js';
import { loadTokenizer } from '../dataset/tokenizer.js';
import type { MediaPart, RequestSpec } from '../dataset/types.js';
import { resolveEngine } from '../sim/engine/config.js';
import { hashBytes } from '../sim/media-count.js';
import { pngBytes, wavBytes } from '../sim/media-fixtures.js';
import { startSimServer, type SimServerHandle } from '../sim/server.js';
import { plan, toRawRequest } from './virtual-records.js';

const tok = loadTokenizer('cl100k_base');
const TEXT = 'What is in these pictures?';
const c = RunConfigSchema.parse({ model: 'qwen2.5-vl-7b', cacheBust: false });
const engine = resolveEngine({ model: 'qwen2.5-vl-7b', gpu: 'h100' });

const png = pngBytes(640, 480, 5);
const wav = wavBytes(3);
const media: MediaPart[] = [
  { kind: 'image', mime: 'image/png', data: png, width: 640, height: 480, hash: hashBytes(png) },
  { kind: 'image', mime: 'image/png', data: png, hash: hashBytes(png) },
  { kind: 'audio', mime: 'audio/wav', data: wav, seconds: 3, hash: hashBytes(wav) },
];
const spec: RequestSpec = { messages: [{ role: 'user', content: TEXT }], prompt: TEXT, inputTokens: tok.encode(TEXT).length, maxTokens: 2, media } as RequestSpec;

describe('virtual driver media', () => {
  let sim: SimServerHandle;
  beforeAll(async () => {
    sim = await startSimServer({ port: 0, modelProfile: 'qwen2.5-vl-7b', gpu: 'h100' });
  });
  afterAll(() => sim.close());

  it('plan() gives the prompt tokens and usage details the server reports for the same parts', async () => {
    const p = plan(spec, 0, c, engine, tok, new Map());
    const r = await fetch(`${sim.baseUrl}/chat/completions`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        max_tokens: 2, ignore_eos: true,
        messages: [{ role: 'user', content: [
          { type: 'text', text: TEXT },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } },
          { type: 'input_audio', input_audio: { data: wav.toString('base64'), format: 'wav' } },
        ] }],
      }),
    });
    const u = ((await r.json()) as { usage: { prompt_tokens: number; prompt_tokens_details: Record<string, number> } }).usage;
    // 640x480 → 644x476 → 23x17 = 391 tokens + 2 markers, twice; 3 s of audio → 75 + 2.
    expect(u.prompt_tokens_details.image_tokens).toBe(2 * 391);
    expect(u.prompt_tokens_details.audio_tokens).toBe(75);
    expect(p.virtual.promptTokenIds!.length).toBe(u.prompt_tokens);
    expect(p.media.map((m) => m.tokens)).toEqual([391, 391, 75]);
    const raw = toRawRequest(
      { index: 0, scheduledMs: 0, sentMs: 0, tokenTimesMs: [1, 2], endMs: 2, promptTokens: u.prompt_tokens, cachedTokens: 0, outputTokens: 2, finishReason: 'length' },
      p,
      { c, shape: { chat: true, tokensPerChunk: 1 }, reasoningShare: 0, reasoning: false, text: { next: () => 'x' } as never, keepText: false },
      { attempt: 0, warmup: false },
    ).raw;
    expect(raw.image_tokens).toBe(u.prompt_tokens_details.image_tokens);
    expect(raw.audio_tokens).toBe(u.prompt_tokens_details.audio_tokens);
  });
});
