// Synthetic media: images (noise, gradient, solid) encoded as PNG or JPEG, audio (tone or noise) as WAV or MP3.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { MediaPart } from './types.js';
import { IMAGE_FORMATS, IMAGE_CONTENTS, AUDIO_FORMATS, AUDIO_CONTENTS } from './media-kinds.js';

export { IMAGE_FORMATS, IMAGE_CONTENTS, AUDIO_FORMATS, AUDIO_CONTENTS };

/**
 * The encoders (fast-png, jpeg-js, lamejs: ~19 modules, ~10 MB and ~0.1 CPU-s to load) are loaded only by a run that
 * sends media: loadMediaEncoders() before the run (and in the media thread), or, for a caller that did not, on first
 * use through require (docs/performance.md#issue-30-start-up-and-memory).
 */
interface Encoders {
  encodePng: typeof import('fast-png').encode;
  jpeg: typeof import('jpeg-js');
  Mp3Encoder: typeof import('@breezystack/lamejs').Mp3Encoder;
}
let loaded: Encoders | undefined;

export async function loadMediaEncoders(): Promise<void> {
  if (loaded) return;
  const [png, jpeg, lame] = await Promise.all([import('fast-png'), import('jpeg-js'), import('@breezystack/lamejs')]);
  loaded ??= { encodePng: png.encode, jpeg: jpeg.default, Mp3Encoder: lame.Mp3Encoder };
}

function encoders(): Encoders {
  if (loaded) return loaded;
  const require = createRequire(import.meta.url);
  // fast-png and lamejs's ES build are ES modules: require() loads them on Node >= 20.19 (require of ES modules);
  // runs preload them either way. lamejs's CommonJS build (what require resolves) exports nothing: its ES build sits beside it.
  const lame = require(join(dirname(require.resolve('@breezystack/lamejs')), 'lamejs.js')) as typeof import('@breezystack/lamejs');
  loaded = { encodePng: (require('fast-png') as typeof import('fast-png')).encode, jpeg: require('jpeg-js') as Encoders['jpeg'], Mp3Encoder: lame.Mp3Encoder };
  return loaded;
}

/** One image (or one video frame when `frames` is set) to generate; `seed` decides its pixels (solid ignores it). */
export interface ImageJob {
  kind: 'image' | 'video';
  width: number;
  height: number;
  format: (typeof IMAGE_FORMATS)[number];
  quality: number;
  content: (typeof IMAGE_CONTENTS)[number];
  seed: number;
  /** Video frames: the clip's frame rate (each frame is one part of kind video with frames = 1). */
  fps?: number;
}

export interface AudioJob {
  kind: 'audio';
  seconds: number;
  sampleRate: number;
  channels: number;
  format: (typeof AUDIO_FORMATS)[number];
  content: (typeof AUDIO_CONTENTS)[number];
  seed: number;
}

export type MediaJob = ImageJob | AudioJob;

/** xorshift32: four pseudo-random bytes per step, fast enough for a megapixel of noise. */
function xorshift(seed: number): () => number {
  let s = seed >>> 0 || 0x9e3779b9;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return s >>> 0;
  };
}

/** Raw pixels, `channels` bytes each (3 for PNG, 4 for JPEG, which jpeg-js takes as RGBA). */
export function imagePixels(j: Pick<ImageJob, 'width' | 'height' | 'content' | 'seed'>, channels: 3 | 4): Uint8Array {
  const { width: w, height: h } = j;
  const px = new Uint8Array(w * h * channels);
  if (j.content === 'solid') {
    for (let i = 0; i < px.length; i += channels) {
      px[i] = 96;
      px[i + 1] = 128;
      px[i + 2] = 160;
      if (channels === 4) px[i + 3] = 255;
    }
    return px;
  }
  const rnd = xorshift(j.seed);
  if (j.content === 'noise') {
    for (let i = 0; i < px.length; i += channels) {
      const r = rnd();
      px[i] = r & 255;
      px[i + 1] = (r >>> 8) & 255;
      px[i + 2] = (r >>> 16) & 255;
      if (channels === 4) px[i + 3] = 255;
    }
    return px;
  }
  // gradient: a smooth picture whose colours are shifted by the seed (so images differ, and compress like photos).
  const o = rnd();
  const or = o & 255, og = (o >>> 8) & 255, ob = (o >>> 16) & 255;
  for (let y = 0, i = 0; y < h; y++) {
    const gy = Math.floor((y * 255) / Math.max(1, h - 1));
    for (let x = 0; x < w; x++, i += channels) {
      const gx = Math.floor((x * 255) / Math.max(1, w - 1));
      px[i] = (gx + or) & 255;
      px[i + 1] = (gy + og) & 255;
      px[i + 2] = ((gx + gy) / 2 + ob) & 255;
      if (channels === 4) px[i + 3] = 255;
    }
  }
  return px;
}

export function encodeImage(j: ImageJob): Uint8Array {
  const { encodePng, jpeg } = encoders();
  if (j.format === 'png') return encodePng({ width: j.width, height: j.height, data: imagePixels(j, 3), channels: 3, depth: 8 });
  const out = jpeg.encode({ width: j.width, height: j.height, data: imagePixels(j, 4) }, j.quality);
  return new Uint8Array(out.data);
}

/** The bytes in a buffer of their own (so a worker can transfer it without taking a pooled neighbour's memory). */
const own = (b: Uint8Array): Uint8Array => (b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ? b : b.slice());

/** 16-bit PCM samples, interleaved: a sine tone (pitch from the seed, 220–880 Hz) or white noise, at 30% of full scale. */
export function audioSamples(j: Pick<AudioJob, 'seconds' | 'sampleRate' | 'channels' | 'content' | 'seed'>): Int16Array {
  const n = Math.round(j.seconds * j.sampleRate);
  const out = new Int16Array(n * j.channels);
  const rnd = xorshift(j.seed);
  const amp = 0.3 * 32767;
  const hz = 220 + (rnd() % 661);
  for (let i = 0; i < n; i++) {
    const v = j.content === 'tone' ? amp * Math.sin((2 * Math.PI * hz * i) / j.sampleRate) : amp * ((rnd() / 4294967296) * 2 - 1);
    for (let c = 0; c < j.channels; c++) out[i * j.channels + c] = Math.round(v);
  }
  return out;
}

/** A RIFF/WAVE file of 16-bit PCM: the 44-byte canonical header, then the samples (little-endian). */
export function wavFile(samples: Int16Array, sampleRate: number, channels: number): Uint8Array {
  const dataBytes = samples.length * 2;
  const buf = new Uint8Array(44 + dataBytes);
  const v = new DataView(buf.buffer);
  const str = (at: number, s: string) => {
    for (let i = 0; i < s.length; i++) buf[at + i] = s.charCodeAt(i);
  };
  str(0, 'RIFF');
  v.setUint32(4, 36 + dataBytes, true);
  str(8, 'WAVE');
  str(12, 'fmt ');
  v.setUint32(16, 16, true);
  v.setUint16(20, 1, true); // PCM
  v.setUint16(22, channels, true);
  v.setUint32(24, sampleRate, true);
  v.setUint32(28, sampleRate * channels * 2, true);
  v.setUint16(32, channels * 2, true);
  v.setUint16(34, 16, true);
  str(36, 'data');
  v.setUint32(40, dataBytes, true);
  for (let i = 0; i < samples.length; i++) v.setInt16(44 + i * 2, samples[i], true);
  return buf;
}

/** MP3 at 128 kbit/s (64 per channel for mono) with lamejs, pure JavaScript. */
export function mp3File(samples: Int16Array, sampleRate: number, channels: number): Uint8Array {
  const enc = new (encoders().Mp3Encoder)(channels, sampleRate, channels === 1 ? 64 : 128);
  const frames = samples.length / channels;
  const left = new Int16Array(frames);
  const right = channels === 2 ? new Int16Array(frames) : undefined;
  for (let i = 0; i < frames; i++) {
    left[i] = samples[i * channels];
    if (right) right[i] = samples[i * channels + 1];
  }
  const chunks: Uint8Array[] = [];
  const BLOCK = 1152;
  for (let i = 0; i < frames; i += BLOCK) {
    const b = enc.encodeBuffer(left.subarray(i, i + BLOCK), right?.subarray(i, i + BLOCK));
    if (b.length) chunks.push(new Uint8Array(b));
  }
  const tail = enc.flush();
  if (tail.length) chunks.push(new Uint8Array(tail));
  const out = new Uint8Array(chunks.reduce((s, c) => s + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

/** Generate and encode one medium; encodeMs is the time this took on the calling thread. */
export function renderMedia(j: MediaJob): MediaPart {
  const t0 = performance.now();
  if (j.kind === 'audio') {
    const s = audioSamples(j);
    const data = j.format === 'wav' ? wavFile(s, j.sampleRate, j.channels) : mp3File(s, j.sampleRate, j.channels);
    const mime = j.format === 'wav' ? 'audio/wav' : 'audio/mpeg';
    return { kind: 'audio', mime, data, seconds: j.seconds, sampleRate: j.sampleRate, channels: j.channels, hash: sha256(data), encodeMs: performance.now() - t0 };
  }
  const data = own(encodeImage(j));
  const mime = j.format === 'png' ? 'image/png' : 'image/jpeg';
  const part: MediaPart = { kind: j.kind, mime, data, width: j.width, height: j.height, hash: sha256(data), encodeMs: 0 };
  if (j.kind === 'video') {
    part.frames = 1;
    part.fps = j.fps;
  }
  part.encodeMs = performance.now() - t0;
  return part;
}
