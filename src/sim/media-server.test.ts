// Sim server over real HTTP with images and audio: usage details, encoder cache counters, TTFT with an image.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTokenizer } from '../dataset/tokenizer.js';
import { startSimServer, type SimServerHandle } from './server.js';
import { pngBytes, wavBytes } from './media-fixtures.js';

const tok = loadTokenizer('cl100k_base');
const TEXT = 'Describe this picture in one sentence.';
const dataUrl = (mime: string, b: Buffer): string => `data:${mime};base64,${b.toString('base64')}`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function chat(base: string, content: unknown, extra: Record<string, unknown> = {}): Promise<{ status: number; body: any; ttftMs: number }> {
  const t0 = performance.now();
  const r = await fetch(`${base}/chat/completions`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'user', content }], max_tokens: 2, ignore_eos: true, ...extra }),
  });
  const body = await r.json();
  return { status: r.status, body, ttftMs: performance.now() - t0 };
}

async function metric(base: string, name: string): Promise<number> {
  const text = await (await fetch(base.replace(/\/v1$/, '/metrics'))).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`));
  return line ? Number(line.split(' ').pop()) : NaN;
}

describe('sim server with media (qwen2.5-vl-7b)', () => {
  let sim: SimServerHandle;
  beforeAll(async () => {
    sim = await startSimServer({ port: 0, modelProfile: 'qwen2.5-vl-7b', gpu: 'h100', prefixCaching: false });
  });
  afterAll(() => sim.close());

  it('a 1008x1008 PNG is 1,296 image tokens + 2 markers on top of the text', async () => {
    const png = pngBytes(1008, 1008, 1);
    const r = await chat(sim.baseUrl, [{ type: 'text', text: TEXT }, { type: 'image_url', image_url: { url: dataUrl('image/png', png) } }]);
    expect(r.status).toBe(200);
    expect(r.body.usage.prompt_tokens_details.image_tokens).toBe(1296);
    expect(r.body.usage.prompt_tokens).toBe(tok.encode(TEXT).length + 1298);
    expect(r.body.usage.prompt_tokens_details.audio_tokens).toBeUndefined();
  });

  it('text only: no image_tokens field', async () => {
    const r = await chat(sim.baseUrl, TEXT);
    expect(r.body.usage.prompt_tokens).toBe(tok.encode(TEXT).length);
    expect(r.body.usage.prompt_tokens_details).toEqual({ cached_tokens: 0 });
  });

  it('a repeated image hits the encoder cache (counters) and is not re-encoded', async () => {
    const url = dataUrl('image/png', pngBytes(448, 448, 7));
    const q0 = await metric(sim.baseUrl, 'tokenflood_sim_mm_cache_queries_total');
    const h0 = await metric(sim.baseUrl, 'tokenflood_sim_mm_cache_hits_total');
    const f0 = await metric(sim.baseUrl, 'tokenflood_sim_encoder_flops_total');
    await chat(sim.baseUrl, [{ type: 'image_url', image_url: { url } }]);
    const f1 = await metric(sim.baseUrl, 'tokenflood_sim_encoder_flops_total');
    await chat(sim.baseUrl, [{ type: 'image_url', image_url: { url } }]);
    expect(await metric(sim.baseUrl, 'tokenflood_sim_mm_cache_queries_total')).toBe(q0 + 2);
    expect(await metric(sim.baseUrl, 'tokenflood_sim_mm_cache_hits_total')).toBe(h0 + 1);
    // vLLM's names (in items) follow the same counters.
    expect(await metric(sim.baseUrl, 'vllm:mm_cache_hits_total')).toBe(await metric(sim.baseUrl, 'tokenflood_sim_mm_cache_hits_total'));
    expect(await metric(sim.baseUrl, 'vllm:mm_cache_queries_total')).toBe(await metric(sim.baseUrl, 'tokenflood_sim_mm_cache_queries_total'));
    // 448x448 = 32x32 patches of 14 px; 2 x 670M params x 1,024 patches.
    expect(f1 - f0).toBeCloseTo(2 * 670e6 * 1024, -6);
    expect(await metric(sim.baseUrl, 'tokenflood_sim_encoder_flops_total')).toBe(f1);
  });

  it('audio: a WAV input_audio part counts audio tokens by the served rule', async () => {
    const r = await chat(sim.baseUrl, [{ type: 'input_audio', input_audio: { data: wavBytes(4).toString('base64'), format: 'wav' } }]);
    expect(r.status).toBe(200);
    // qwen2.5-vl has no audio tower: the fallback (Qwen2-Audio) rule, 25 tokens a second.
    expect(r.body.usage.prompt_tokens_details.audio_tokens).toBe(100);
  });

  it('a part that is not the image it claims is a 400 naming where', async () => {
    const r = await chat(sim.baseUrl, [{ type: 'text', text: 'x' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,aGVsbG8gd29ybGQ=' } }]);
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body)).toContain('messages.0.content.1.image_url: not a PNG, JPEG, GIF or WebP image');
  });

  it('video_url: an MP4 sampled at 2 frames/s, one Qwen grid per 2 frames', async () => {
    const box = (type: string, body: Buffer): Buffer => {
      const h = Buffer.alloc(8);
      h.writeUInt32BE(8 + body.length, 0);
      h.write(type, 4, 'ascii');
      return Buffer.concat([h, body]);
    };
    const mvhd = Buffer.alloc(100);
    mvhd.writeUInt32BE(1000, 12);
    mvhd.writeUInt32BE(4500, 16);
    const tkhd = Buffer.alloc(84);
    tkhd.writeUInt32BE(640 * 65536, 76);
    tkhd.writeUInt32BE(360 * 65536, 80);
    const mp4 = Buffer.concat([box('ftyp', Buffer.from('isom0000')), box('moov', Buffer.concat([box('mvhd', mvhd), box('trak', box('tkhd', tkhd))]))]);
    const r = await chat(sim.baseUrl, [{ type: 'video_url', video_url: { url: dataUrl('video/mp4', mp4) } }]);
    // 4.5 s → 10 frames → 5 grids of 644x364 px (23x13 = 299 tokens).
    expect(r.body.usage.prompt_tokens_details.image_tokens).toBe(5 * 299);
    expect(r.body.usage.prompt_tokens).toBe(5 * 299 + 2);
  });

  it('Ollama /api/chat images count as images', async () => {
    const r = await fetch(sim.baseUrl.replace(/\/v1$/, '/api/chat'), {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'qwen2.5-vl-7b', stream: false, options: { num_predict: 2 }, messages: [{ role: 'user', content: 'hi', images: [pngBytes(1008, 1008, 9).toString('base64')] }] }),
    });
    const body = (await r.json()) as { prompt_eval_count: number };
    expect(body.prompt_eval_count).toBe(tok.encode('hi').length + 1298);
  });

  it('Anthropic image blocks and Responses input_image count the same', async () => {
    const png = pngBytes(1008, 1008, 3);
    const m = await fetch(`${sim.baseUrl}/messages`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ max_tokens: 2, ignore_eos: true, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: png.toString('base64') } }] }] }),
    });
    expect(((await m.json()) as { usage: { input_tokens: number } }).usage.input_tokens).toBe(1298);
    const rr = await fetch(`${sim.baseUrl}/responses`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ max_output_tokens: 2, ignore_eos: true, input: [{ role: 'user', content: [{ type: 'input_image', image_url: dataUrl('image/png', png) }] }] }),
    });
    expect(((await rr.json()) as { usage: { input_tokens: number } }).usage.input_tokens).toBe(1298);
  });
});

describe('TTFT with and without an image', () => {
  it('an image (encoder + its prompt tokens) makes the first token later', async () => {
    // llava-1.5-7b on a slow device: the vision tower and 576 extra prompt tokens show clearly in wall-clock time.
    const sim = await startSimServer({ port: 0, modelProfile: 'llava-1.5-7b', gpu: 'l4', prefixCaching: false });
    try {
      const text: number[] = [];
      const image: number[] = [];
      for (let i = 0; i < 3; i++) {
        text.push((await chat(sim.baseUrl, TEXT)).ttftMs);
        const r = await chat(sim.baseUrl, [{ type: 'text', text: TEXT }, { type: 'image_url', image_url: { url: dataUrl('image/png', pngBytes(336, 336, 100 + i)) } }]);
        expect(r.body.usage.prompt_tokens_details.image_tokens).toBe(576);
        image.push(r.ttftMs);
      }
      const med = (a: number[]) => [...a].sort((x, y) => x - y)[1];
      // Modelled: 576 tokens of prefill on an L4 (~7 B params: ~70 ms) + encoder (2 x 304M x 577 / (121 TFLOPS x 0.65): ~4.5 ms).
      expect(med(image) - med(text)).toBeGreaterThan(25);
    } finally {
      await sim.close();
    }
  });
});
