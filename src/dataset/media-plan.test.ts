// The media plan: counts and sizes parsed with a named reason, jobs drawn per request index (repeatable, bounded).
import { describe, expect, it } from 'vitest';
import { createMediaPlan, parseCount, parseSizes } from './media-plan.js';
import { createMediaPool, defaultMediaThreads, mediaThreadsOf } from './media-pool.js';
import { audioSamples, imagePixels, wavFile } from './synth-media.js';

describe('media plan', () => {
  it('counts: N, 0, fixed:N, uniform with 0, other distributions; bad ones throw a reason', () => {
    expect(parseCount('3')).toMatchObject({ kind: 'fixed', value: 3 });
    expect(parseCount('0')).toMatchObject({ kind: 'fixed', value: 0 });
    expect(parseCount('uniform:0,3')).toMatchObject({ kind: 'uniform', lo: 0, hi: 3 });
    expect(parseCount('normal:2,1,max=4')).toMatchObject({ kind: 'dist' });
    expect(() => parseCount('uniform:3,1')).toThrow(/below the minimum/);
    expect(() => parseCount('lots')).toThrow(/neither a number/);
  });

  it('sizes: WxH lists; bad text and out-of-range sides name the piece', () => {
    expect(parseSizes('1024x768, 8X8')).toEqual([{ width: 1024, height: 768 }, { width: 8, height: 8 }]);
    expect(() => parseSizes('1024')).toThrow(/"1024" is not WIDTHxHEIGHT/);
    expect(() => parseSizes('0x5')).toThrow(/1 to 8192/);
  });

  it('jobs depend on the seed and the index only: asked in any order, the same; another seed, other pixels', () => {
    const p = createMediaPlan({ images: 'uniform:1,3', imageSize: '8x8,16x4', datasetSeed: 7 })!;
    const forward = [0, 1, 2, 3, 4].map((i) => p.jobs(i));
    const backward = [4, 3, 2, 1, 0].map((i) => p.jobs(i)).reverse();
    expect(backward).toEqual(forward);
    const counts = forward.map((j) => j.length);
    expect(counts.every((n) => n >= 1 && n <= 3)).toBe(true);
    const other = createMediaPlan({ images: 'uniform:1,3', imageSize: '8x8,16x4', datasetSeed: 8 })!;
    expect([0, 1, 2, 3, 4].map((i) => other.jobs(i))).not.toEqual(forward);
    expect(createMediaPlan({ images: '0' })).toBeUndefined();
    expect(() => createMediaPlan({ videoFrames: 2, videoFormat: 'mp4' })).toThrow(/--video-format mp4.*H\.264/);
  });

  it('--image-width/--image-height distributions: each image draws its own size within the bounds; one without the other is refused', () => {
    const p = createMediaPlan({ images: '2', imageWidth: 'uniform:10,20', imageHeight: '7' })!;
    const sizes = [0, 1, 2, 3, 4, 5].flatMap((i) => p.jobs(i)).map((j) => j.kind !== 'audio' && [j.width, j.height]);
    expect(sizes.every((s) => s && s[0] >= 10 && s[0] <= 20 && s[1] === 7)).toBe(true);
    expect(new Set(sizes.map((s) => s && s[0])).size).toBeGreaterThan(1);
    expect(() => createMediaPlan({ images: '1', imageWidth: '10' })).toThrow(/--image-width: give --image-width and --image-height together/);
    expect(() => createMediaPlan({ images: '1', imageWidth: '9000', imageHeight: '5' })).toThrow(/--image-width: at least 9000 px/);
  });

  it('media threads the health check adds: none without media, --media-threads or the default with', () => {
    expect(mediaThreadsOf({})).toBe(0);
    expect(mediaThreadsOf({ images: '0' })).toBe(0);
    expect(mediaThreadsOf({ images: '1', mediaThreads: 3 })).toBe(3);
    expect(mediaThreadsOf({ audioSeconds: 1 })).toBe(defaultMediaThreads());
  });

  it('pixels: solid ignores the seed, noise and gradient follow it', () => {
    const px = (content: 'solid' | 'noise' | 'gradient', seed: number) => Buffer.from(imagePixels({ width: 9, height: 7, content, seed }, 3)).toString('hex');
    expect(px('solid', 1)).toBe(px('solid', 2));
    expect(px('noise', 1)).not.toBe(px('noise', 2));
    expect(px('gradient', 1)).not.toBe(px('gradient', 2));
    expect(px('gradient', 1)).toBe(px('gradient', 1));
  });

  it('WAV: header fields and data size from seconds × rate × channels × 2', () => {
    const s = audioSamples({ seconds: 0.1, sampleRate: 8000, channels: 2, content: 'tone', seed: 1 });
    const b = Buffer.from(wavFile(s, 8000, 2));
    expect([b.readUInt16LE(22), b.readUInt32LE(24), b.readUInt32LE(28), b.readUInt32LE(40), b.length]).toEqual([2, 8000, 32000, 3200, 3244]);
  });

  it('the pool renders on a worker thread (the compiled worker) and returns the bytes with their hash', async () => {
    const pool = createMediaPool(1);
    try {
      const [img] = await pool.hold(pool.render([{ kind: 'image', width: 20, height: 10, format: 'png', quality: 80, content: 'noise', seed: 3 }]));
      expect(pool.threaded).toBe(true);
      expect(img).toMatchObject({ kind: 'image', mime: 'image/png', width: 20, height: 10 });
      expect(img.data).toBeInstanceOf(Uint8Array);
      const { createHash } = await import('node:crypto');
      expect(img.hash).toBe(createHash('sha256').update(img.data!).digest('hex'));
    } finally {
      await pool.close();
    }
  });
});
