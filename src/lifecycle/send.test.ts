// The first wave is built before the clock: specs and bodies identical to those built on demand, only for workloads that need no answers.
import { describe, it, expect } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { resolveRunConfig } from '../config/load.js';
import { sendConfig } from '../config/schema.js';
import { createWorkload } from '../dataset/workload.js';
import { loadTokenizer } from '../dataset/tokenizer.js';
import { createRng } from '../util/rng.js';
import type { Driver } from '../drivers/driver.js';
import { FIRST_WAVE_MAX, copyMediaFields, prepareFirstWave } from './send.js';

const tok = loadTokenizer('cl100k_base');
const httpDriver = { needsBody: true } as Driver;
const wave = (flags: Record<string, unknown>) => {
  const c = sendConfig(resolveRunConfig({ flags }).config);
  const make = () => createWorkload(c, tok, createRng(c.datasetSeed ?? 42).fork(), (c.requests ?? 100) + c.warmup);
  const early = prepareFirstWave({ c, driver: httpDriver, model: 'm', workload: make() }, c.requests);
  return { c, early, later: make() };
};

describe('prepareFirstWave', () => {
  it('closed loop: one request per stream, each the spec and body the workload would give on demand', () => {
    const { early, later } = wave({ concurrency: 6, requests: 20, inputTokens: 32, outputTokens: 4 });
    expect([...early.keys()]).toEqual([0, 1, 2, 3, 4, 5]);
    for (const [i, e] of early) {
      const spec = later.next(i);
      expect(e.spec).toEqual(spec);
      const body = JSON.parse(e.body as string) as { model: string; messages: unknown[]; max_tokens: number; stream: boolean };
      expect(body).toMatchObject({ model: 'm', stream: true, max_tokens: 4 });
      expect(body.messages).toEqual((spec as { messages: unknown[] }).messages);
    }
  });

  it('open loop: two seconds of arrivals, capped by --requests and by the first-wave limit', () => {
    expect(wave({ rate: 5, requests: 50, inputTokens: 16, outputTokens: 2 }).early.size).toBe(10);
    expect(wave({ rate: 5, requests: 3, warmup: 1, inputTokens: 16, outputTokens: 2 }).early.size).toBe(4);
    expect(wave({ rate: 5000, requests: 5000, inputTokens: 16, outputTokens: 2 }).early.size).toBe(FIRST_WAVE_MAX);
  });

  it('nothing for a workload that feeds answers back (multi-turn data), and no bodies for a driver that reads none', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tf-wave-'));
    const f = join(dir, 'multi.json');
    writeFileSync(f, JSON.stringify([{ conversations: [{ from: 'human', value: 'a' }, { from: 'gpt', value: 'b' }, { from: 'human', value: 'c' }] }]));
    expect(wave({ dataset: f, concurrency: 4 }).early.size).toBe(0);
    const c = sendConfig(resolveRunConfig({ flags: { concurrency: 3, requests: 9 } }).config);
    const virtual = prepareFirstWave({ c, driver: { needsBody: false } as Driver, model: 'm', workload: createWorkload(c, tok, createRng(1), 9) }, 9);
    expect([...virtual.values()].map((e) => e.body)).toEqual(['', '', '']);
  });
});

describe('copyMediaFields (issue 28)', () => {
  it('counts images, video frames and audio seconds, sums pixels, bytes and encode time onto the record', () => {
    const raw = {} as Parameters<typeof copyMediaFields>[1];
    copyMediaFields(
      [
        { kind: 'image', mime: 'image/png', data: new Uint8Array(1000), width: 1024, height: 512, hash: 'a', encodeMs: 2.5 },
        { kind: 'image', mime: 'image/jpeg', url: 'https://img.example/x.jpg', width: 10, height: 10, hash: 'b' },
        { kind: 'video', mime: 'video/mp4', data: new Uint8Array(5000), width: 64, height: 32, frames: 8, fps: 4, hash: 'c', encodeMs: 1 },
        { kind: 'audio', mime: 'audio/wav', data: new Uint8Array(300), seconds: 1.25, sampleRate: 16000, channels: 1, hash: 'd' },
      ],
      raw,
    );
    expect(raw).toEqual({ images: 2, video_frames: 8, audio_seconds: 1.25, image_pixels: 1024 * 512 + 100 + 8 * 64 * 32, media_bytes: 6300, media_encode_ms: 3.5, image_tokens: null, audio_tokens: null });
  });
});
