// The media encoders load only for runs that send media: not on import, by loadMediaEncoders(), or on first use without it.
import { describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import { sep } from 'node:path';
import { audioSamples, encodeImage, loadMediaEncoders, mp3File } from './synth-media.js';

// jpeg-js is CommonJS: whether it was loaded shows in the CommonJS module cache.
const jpegLoaded = (): boolean => Object.keys(createRequire(import.meta.url).cache).some((f) => f.includes(`${sep}node_modules${sep}jpeg-js${sep}`));
const job = { kind: 'image', width: 8, height: 6, quality: 80, content: 'noise', seed: 7 } as const;

describe('media encoders on demand', () => {
  it('importing synth-media loads no encoder; the first image encodes through the on-demand load, the same bytes as after loadMediaEncoders()', async () => {
    expect(jpegLoaded()).toBe(false);
    const jpegBefore = encodeImage({ ...job, format: 'jpeg' });
    const pngBefore = encodeImage({ ...job, format: 'png' });
    const mp3Before = mp3File(audioSamples({ seconds: 0.2, sampleRate: 16000, channels: 1, content: 'tone', seed: 1 }), 16000, 1);
    expect(jpegLoaded()).toBe(true);
    expect([...jpegBefore.subarray(0, 2)]).toEqual([0xff, 0xd8]); // JPEG SOI
    expect([...pngBefore.subarray(1, 4)]).toEqual([0x50, 0x4e, 0x47]); // "PNG"
    expect(mp3Before.length).toBeGreaterThan(100);
    expect(mp3Before[0]).toBe(0xff); // an MPEG frame sync
    await loadMediaEncoders();
    expect(encodeImage({ ...job, format: 'jpeg' })).toEqual(jpegBefore);
    expect(encodeImage({ ...job, format: 'png' })).toEqual(pngBefore);
  });
});
