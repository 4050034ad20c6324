// Synthetic images, video frames and audio (issue 28): generated off the measuring thread, rendered as each protocol's
// content parts, and decoded at a scripted server with the asked dimensions and lengths, on both transports.
import { afterEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { decode as decodePng } from 'fast-png';
import jpeg from 'jpeg-js';
import { run } from '../src/run.js';
import { main } from '../src/cli/main.js';
import { startScriptServer, type Script, type ScriptServer } from './fixtures/script-server.js';
import { tmpDir } from './helpers.js';
import { capture } from './io-capture.js';

let server: ScriptServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const sse = (o: unknown, event?: string) => `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(o)}\n\n`;
const nd = (o: unknown) => `${JSON.stringify(o)}\n`;
const CHAT: Script = { steps: [{ at: 1, write: sse({ choices: [{ delta: { content: 'ok' } }] }) + sse({ choices: [{ delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 8, completion_tokens: 1 } }) + 'data: [DONE]\n\n' }] };
const SCRIPTS: Record<string, Script> = {
  'openai-chat': CHAT,
  'openai-responses': { steps: [{ at: 1, write: sse({ type: 'response.output_text.delta', delta: 'ok' }) + sse({ type: 'response.completed', response: { status: 'completed', usage: { input_tokens: 8, output_tokens: 1 } } }) }] },
  'anthropic-messages': { steps: [{ at: 1, write: sse({ type: 'message_start', message: { usage: { input_tokens: 8 } } }, 'message_start') + sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'ok' } }, 'content_block_delta') + sse({ type: 'message_stop' }, 'message_stop') }] },
  ollama: { headers: { 'content-type': 'application/x-ndjson' }, steps: [{ at: 1, write: nd({ message: { role: 'assistant', content: 'ok' }, done: false }) + nd({ message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', prompt_eval_count: 8, eval_count: 1 }) }] },
};

type Body = Record<string, unknown>;
type Msg = { role: string; content: unknown; images?: string[] };

async function send(backend: string, flags: Record<string, unknown>, transport: 'h1' | 'undici' = 'h1', requests = 2) {
  server = await startScriptServer(() => SCRIPTS[backend]);
  const res = await run({ validate: false, baseUrl: server.baseUrl, backend, model: 'm', requests, concurrency: 1, inputTokens: 8, outputTokens: 4, out: tmpDir(), quiet: true, transport, serverMetrics: false, ...flags });
  return { res, bodies: server.bodies as Body[] };
}

const lastUser = (msgs: unknown): Msg => (msgs as Msg[]).filter((m) => m.role === 'user').at(-1) as Msg;
const fromDataUrl = (url: string): { mime: string; bytes: Buffer } => {
  const m = /^data:([^;]+);base64,(.*)$/s.exec(url);
  expect(m, url.slice(0, 40)).not.toBeNull();
  return { mime: m![1], bytes: Buffer.from(m![2], 'base64') };
};
const dims = (mime: string, bytes: Buffer): { width: number; height: number } => {
  if (mime === 'image/png') {
    const p = decodePng(bytes);
    return { width: p.width, height: p.height };
  }
  expect(mime).toBe('image/jpeg');
  const j = jpeg.decode(bytes);
  return { width: j.width, height: j.height };
};
/** The RIFF/WAVE fmt and data chunks of a 16-bit PCM file. */
function parseWav(b: Buffer) {
  expect(b.toString('latin1', 0, 4)).toBe('RIFF');
  expect(b.toString('latin1', 8, 12)).toBe('WAVE');
  expect(b.readUInt32LE(4)).toBe(b.length - 8);
  expect(b.toString('latin1', 12, 16)).toBe('fmt ');
  expect(b.readUInt16LE(20)).toBe(1);
  expect(b.toString('latin1', 36, 40)).toBe('data');
  return { channels: b.readUInt16LE(22), sampleRate: b.readUInt32LE(24), bits: b.readUInt16LE(34), dataBytes: b.readUInt32LE(40), actual: b.length - 44 };
}

describe.each(['h1', 'undici'] as const)('synthetic images at an OpenAI chat server (transport %s)', (transport) => {
  it.each([
    ['png', '64x48'],
    ['jpeg', '40x72'],
  ] as const)('%s %s: each request carries its images as data URLs that decode to the asked size', async (format, size) => {
    const { res, bodies } = await send('openai-chat', { images: 2, imageSize: size, imageFormat: format, imageContent: 'noise' }, transport);
    expect(res.records.map((r) => r.status)).toEqual(['ok', 'ok']);
    const [w, h] = size.split('x').map(Number);
    const hashes: string[] = [];
    for (const b of bodies) {
      const parts = lastUser(b.messages).content as Array<{ type: string; text?: string; image_url?: { url: string } }>;
      expect(parts.map((p) => p.type)).toEqual(['text', 'image_url', 'image_url']);
      expect(parts[0].text!.length).toBeGreaterThan(0);
      for (const p of parts.slice(1)) {
        const { mime, bytes } = fromDataUrl(p.image_url!.url);
        expect(mime).toBe(`image/${format}`);
        expect(dims(mime, bytes)).toEqual({ width: w, height: h });
        hashes.push(createHash('sha256').update(bytes).digest('hex'));
      }
    }
    // Noise differs per image and per request (no accidental cache hits).
    expect(new Set(hashes).size).toBe(4);
    // Encoded on the media thread, not the measuring one.
    // …a bounded read-ahead: both requests' media were ready before their sends (none waited).
    expect(res.summary.run.workload).toMatchObject({ media: { threaded: true, images: '2', image_format: format, media_waited: 0 } });
    for (const r of res.records) {
      expect(r.images).toBe(2);
      expect(r.image_pixels).toBe(2 * w * h);
      expect(r.media_bytes).toBeGreaterThan(0);
      expect(r.media_encode_ms).toBeGreaterThanOrEqual(0);
    }
  });
});

describe('image content, counts and repeatability', () => {
  it('solid images are byte-identical across requests; gradient ones differ; the same seed gives the same images', async () => {
    const imgs = async (content: string, seed: number) => {
      const { bodies } = await send('openai-chat', { images: 1, imageSize: '32x32', imageContent: content, datasetSeed: seed }, 'h1', 3);
      await server!.close();
      server = undefined;
      return bodies.map((b) => ((lastUser(b.messages).content as Array<{ image_url?: { url: string } }>)[1].image_url!.url));
    };
    const solid = await imgs('solid', 1);
    expect(new Set(solid).size).toBe(1);
    const grad = await imgs('gradient', 1);
    expect(new Set(grad).size).toBe(3);
    expect(await imgs('gradient', 1)).toEqual(grad);
    expect(await imgs('gradient', 2)).not.toEqual(grad);
  });

  it('--images uniform:0,2 and several sizes: counts within bounds, each image one of the asked sizes', async () => {
    const { res, bodies } = await send('openai-chat', { images: 'uniform:0,2', imageSize: '16x16,24x8', imageFormat: 'png' }, 'h1', 12);
    const counts = new Set<number>();
    for (const b of bodies) {
      const u = lastUser(b.messages);
      const parts = typeof u.content === 'string' ? [] : (u.content as Array<{ type: string; image_url?: { url: string } }>).filter((p) => p.type === 'image_url');
      counts.add(parts.length);
      for (const p of parts) {
        const { mime, bytes } = fromDataUrl(p.image_url!.url);
        expect([JSON.stringify({ width: 16, height: 16 }), JSON.stringify({ width: 24, height: 8 })]).toContain(JSON.stringify(dims(mime, bytes)));
      }
    }
    expect([...counts].every((n) => n >= 0 && n <= 2)).toBe(true);
    expect(counts.size).toBeGreaterThan(1);
    expect(res.records.every((r) => r.status === 'ok')).toBe(true);
  });
});

describe.each(['h1', 'undici'] as const)('synthetic audio (transport %s)', (transport) => {
  it.each([
    [1.5, 16000, 1],
    [0.25, 22050, 2],
  ] as const)('%ss at %i Hz, %i channel(s): an input_audio part holding a valid WAV of the asked length', async (seconds, rate, channels) => {
    const { res, bodies } = await send('openai-chat', { audioSeconds: seconds, audioSampleRate: rate, audioChannels: channels, audioContent: 'noise' }, transport, 1);
    const parts = lastUser(bodies[0].messages).content as Array<{ type: string; input_audio?: { data: string; format: string } }>;
    expect(parts.map((p) => p.type)).toEqual(['text', 'input_audio']);
    expect(parts[1].input_audio!.format).toBe('wav');
    const wav = parseWav(Buffer.from(parts[1].input_audio!.data, 'base64'));
    expect(wav).toEqual({ channels, sampleRate: rate, bits: 16, dataBytes: Math.round(seconds * rate) * channels * 2, actual: Math.round(seconds * rate) * channels * 2 });
    expect(res.records[0].audio_seconds).toBe(seconds);
  });
});

describe('mp3 audio and video frames', () => {
  it('--audio-format mp3: an input_audio part of format mp3 whose bytes start with MPEG frame sync', async () => {
    const { bodies } = await send('openai-chat', { audioSeconds: 0.5, audioFormat: 'mp3' }, 'h1', 1);
    const part = (lastUser(bodies[0].messages).content as Array<{ input_audio?: { data: string; format: string } }>)[1].input_audio!;
    expect(part.format).toBe('mp3');
    const b = Buffer.from(part.data, 'base64');
    expect(b[0]).toBe(0xff);
    expect(b[1] & 0xe0).toBe(0xe0);
  });

  it('--video-frames 3: three image parts of the frame size; the record counts the frames', async () => {
    const { res, bodies } = await send('openai-chat', { videoFrames: 3, videoSize: '20x10', imageFormat: 'png' }, 'h1', 1);
    const parts = (lastUser(bodies[0].messages).content as Array<{ type: string; image_url?: { url: string } }>).slice(1);
    expect(parts.map((p) => p.type)).toEqual(['image_url', 'image_url', 'image_url']);
    for (const p of parts) {
      const { mime, bytes } = fromDataUrl(p.image_url!.url);
      expect(dims(mime, bytes)).toEqual({ width: 20, height: 10 });
    }
    expect(res.records[0]).toMatchObject({ video_frames: 3, image_pixels: 3 * 200 });
  });
});

describe.each(['h1', 'undici'] as const)('every backend shape carries images (transport %s)', (transport) => {
  it('openai-responses: input_text then input_image data URLs', async () => {
    const { res, bodies } = await send('openai-responses', { images: 1, imageSize: '12x34', imageFormat: 'png' }, transport, 1);
    expect(res.records[0].status).toBe('ok');
    const parts = lastUser(bodies[0].input).content as Array<{ type: string; image_url?: string }>;
    expect(parts.map((p) => p.type)).toEqual(['input_text', 'input_image']);
    const { mime, bytes } = fromDataUrl(parts[1].image_url!);
    expect(dims(mime, bytes)).toEqual({ width: 12, height: 34 });
  });

  it('anthropic-messages: base64 image blocks with their media type, then the text', async () => {
    const { res, bodies } = await send('anthropic-messages', { images: 2, imageSize: '30x20', imageFormat: 'jpeg' }, transport, 1);
    expect(res.records[0].status).toBe('ok');
    const parts = lastUser(bodies[0].messages).content as Array<{ type: string; source?: { type: string; media_type: string; data: string } }>;
    expect(parts.map((p) => p.type)).toEqual(['image', 'image', 'text']);
    for (const p of parts.slice(0, 2)) {
      expect(p.source!.type).toBe('base64');
      expect(dims(p.source!.media_type, Buffer.from(p.source!.data, 'base64'))).toEqual({ width: 30, height: 20 });
    }
  });

  it('ollama: the last user message keeps its text and carries `images` as base64 strings', async () => {
    const { res, bodies } = await send('ollama', { images: 1, imageSize: '17x9', imageFormat: 'png' }, transport, 1);
    expect(res.records[0].status).toBe('ok');
    const u = lastUser(bodies[0].messages);
    expect(typeof u.content).toBe('string');
    expect(u.images).toHaveLength(1);
    expect(dims('image/png', Buffer.from(u.images![0], 'base64'))).toEqual({ width: 17, height: 9 });
  });

  it('ollama-generate: `images` beside the prompt of /api/generate', async () => {
    server = await startScriptServer(() => ({ headers: { 'content-type': 'application/x-ndjson' }, steps: [{ at: 1, write: nd({ response: 'ok', done: false }) + nd({ response: '', done: true, done_reason: 'stop', prompt_eval_count: 8, eval_count: 1 }) }] }));
    const res = await run({ validate: false, baseUrl: server.baseUrl, backend: 'ollama-generate', model: 'm', requests: 1, concurrency: 1, inputTokens: 8, outputTokens: 4, out: tmpDir(), quiet: true, transport, serverMetrics: false, images: 2, imageSize: '5x6', imageFormat: 'jpeg' });
    expect(res.records[0].status).toBe('ok');
    const b = server.bodies[0] as { prompt: string; images: string[] };
    expect(typeof b.prompt).toBe('string');
    expect(b.images.map((x) => dims('image/jpeg', Buffer.from(x, 'base64')))).toEqual([{ width: 5, height: 6 }, { width: 5, height: 6 }]);
  });
});

describe('bad media flags: exit 2, nothing sent', () => {
  it.each([
    [['--images', 'two'], '--images'],
    [['--images', '1', '--image-size', '10by10'], '--image-size'],
    [['--images', '1', '--image-size', '9000x10'], '--image-size'],
    [['--images', '1', '--image-format', 'gif'], '--image-format'],
    [['--images', '1', '--image-quality', '0'], '--image-quality'],
    [['--audio-seconds', '1', '--audio-channels', '3'], '--audio-channels'],
    [['--images', '1', '--backend', 'openai-completions'], 'openai-completions cannot carry images'],
    [['--audio-seconds', '1', '--backend', 'anthropic-messages'], 'anthropic-messages cannot carry audio'],
    [['--video-frames', '2', '--video-format', 'mp4'], 'H.264'],
  ])('%j → names %s', async (args, named) => {
    server = await startScriptServer(() => CHAT);
    const io = capture();
    const code = await main(['run', '--no-validate', '--base-url', server.baseUrl, '--model', 'm', '--requests', '1', '--out', tmpDir(), '--quiet', '--no-server-metrics', ...args], io.io);
    expect(code, io.err).toBe(2);
    expect(io.err).toContain(named);
    expect(server.bodies).toHaveLength(0);
  });
});
