// What media each synthetic request carries (--images, --video-frames, --audio-seconds …): parsed once, drawn per request index.
import { createRng } from '../util/rng.js';
import { distLowest, parseLengthDist, sampleLength, type LengthDist } from './distribution.js';
import type { AudioJob, ImageJob, MediaJob } from './synth-media.js';
import { AUDIO_CONTENTS, AUDIO_FORMATS, IMAGE_CONTENTS, IMAGE_FORMATS } from './media-kinds.js';

/** Largest side of a synthetic image or frame, px (a 16k×16k RGB buffer is already 768 MB). */
export const MAX_SIDE = 8192;

/** The synthetic-media fields of the workload params (flags in config/workload.ts). */
export interface MediaParams {
  images?: string;
  imageSize: string;
  /** Width and height distributions (px, length-distribution syntax); given, they replace --image-size. */
  imageWidth?: string;
  imageHeight?: string;
  imageFormat: (typeof IMAGE_FORMATS)[number];
  imageQuality: number;
  imageContent: (typeof IMAGE_CONTENTS)[number];
  videoFrames?: number;
  videoSize: string;
  videoFps: number;
  videoFormat: 'frames' | 'mp4';
  audioSeconds?: number;
  audioFormat: (typeof AUDIO_FORMATS)[number];
  audioSampleRate: number;
  audioChannels: number;
  audioContent: (typeof AUDIO_CONTENTS)[number];
  mediaThreads?: number;
  datasetSeed?: number;
  promptSalt?: string;
}

/** A count of media per request: N (0 allowed), fixed:N, uniform:A,B (A may be 0), or any --input-tokens distribution (≥ 1). */
export type CountDist = { kind: 'fixed'; value: number; spec: string } | { kind: 'uniform'; lo: number; hi: number; spec: string } | { kind: 'dist'; dist: LengthDist; spec: string };

export function parseCount(spec: string): CountDist {
  const s = String(spec).trim();
  let m = /^(?:fixed:)?(\d+)$/.exec(s);
  if (m) return { kind: 'fixed', value: Number(m[1]), spec: s };
  m = /^uniform:\s*(\d+)\s*,\s*(\d+)$/.exec(s);
  if (m) {
    const lo = Number(m[1]), hi = Number(m[2]);
    if (hi < lo) throw new Error(`uniform:${lo},${hi}: the maximum is below the minimum`);
    return { kind: 'uniform', lo, hi, spec: s };
  }
  return { kind: 'dist', dist: parseLengthDist(s), spec: s };
}

/** `WxH`, or several `WxH,WxH,…` picked uniformly per image. */
export function parseSizes(spec: string): Array<{ width: number; height: number }> {
  const out = spec.split(',').map((p) => p.trim()).filter(Boolean).map((p) => {
    const m = /^(\d+)\s*[x×]\s*(\d+)$/i.exec(p);
    if (!m) throw new Error(`"${p}" is not WIDTHxHEIGHT, e.g. 1024x768`);
    const width = Number(m[1]), height = Number(m[2]);
    if (width < 1 || height < 1 || width > MAX_SIDE || height > MAX_SIDE) throw new Error(`"${p}": each side must be 1 to ${MAX_SIDE} px`);
    return { width, height };
  });
  if (!out.length) throw new Error('expected WIDTHxHEIGHT, e.g. 1024x768');
  return out;
}

const drawCount = (d: CountDist, r: ReturnType<typeof createRng>): number =>
  d.kind === 'fixed' ? d.value : d.kind === 'uniform' ? r.int(d.lo, d.hi) : sampleLength(d.dist, r);

/** FNV-1a of a string: the plan's base seed from --dataset-seed and the run's prompt salt. */
function fnv(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export interface MediaPlan {
  /** The media jobs of request `index`: the same for the same seed and index, however far ahead they are asked for. */
  jobs(index: number): MediaJob[];
  /** Upper bound of the raw pixel/sample bytes of one request (sizes the read-ahead). */
  rawBytesPerRequest: number;
  /** --media-threads (undefined: the pool's default). */
  threads?: number;
  describe(): Record<string, unknown>;
}

/** The defaults of the media flags (the schema in config/workload.ts uses these). */
export const MEDIA_DEFAULTS = {
  imageSize: '512x512',
  imageFormat: 'jpeg',
  imageQuality: 85,
  imageContent: 'gradient',
  videoSize: '256x256',
  videoFps: 2,
  videoFormat: 'frames',
  audioFormat: 'wav',
  audioSampleRate: 16000,
  audioChannels: 1,
  audioContent: 'tone',
} as const satisfies Partial<MediaParams>;

/** undefined when no synthetic media was asked for. Throws Error naming the flag on a bad value. */
export function createMediaPlan(given: Partial<MediaParams>): MediaPlan | undefined {
  const p: MediaParams = { ...MEDIA_DEFAULTS, ...Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)) };
  if (p.videoFormat === 'mp4' && p.videoFrames)
    throw new Error('--video-format mp4: encoding an MP4 clip needs an H.264 encoder, and none that is pure JavaScript/WebAssembly ships with tokenflood; use --video-format frames (each frame sent as an image part)');
  const count = p.images !== undefined ? wrap('--images', () => parseCount(p.images as string)) : undefined;
  const imageSizes = wrap('--image-size', () => parseSizes(p.imageSize));
  const side = (flag: string, spec: string | undefined) => {
    if (spec === undefined) return undefined;
    const d = wrap(flag, () => parseLengthDist(spec));
    if (distLowest(d) > MAX_SIDE) throw new Error(`${flag}: at least ${distLowest(d)} px, above the ${MAX_SIDE} px limit`);
    return { ...d, max: Math.min(d.max, MAX_SIDE) };
  };
  const widthDist = side('--image-width', p.imageWidth);
  const heightDist = side('--image-height', p.imageHeight);
  if ((widthDist === undefined) !== (heightDist === undefined)) throw new Error(`${widthDist ? '--image-width' : '--image-height'}: give --image-width and --image-height together`);
  const videoSize = wrap('--video-size', () => parseSizes(p.videoSize))[0];
  const hasImages = count !== undefined && !(count.kind === 'fixed' && count.value === 0);
  if (!hasImages && !p.videoFrames && !p.audioSeconds) return undefined;
  const base = fnv(`${p.datasetSeed ?? 42}|${p.promptSalt ?? ''}`);
  const maxImages = !count ? 0 : count.kind === 'fixed' ? count.value : count.kind === 'uniform' ? count.hi : Math.min(count.dist.max, 64);
  const top = (d: LengthDist) => Math.min(d.max, MAX_SIDE, d.kind === 'fixed' ? d.value : d.kind === 'uniform' ? d.hi : MAX_SIDE);
  const maxPx = widthDist && heightDist ? top(widthDist) * top(heightDist) : Math.max(...imageSizes.map((s) => s.width * s.height));
  const raw = maxImages * maxPx * 4 + (p.videoFrames ?? 0) * videoSize.width * videoSize.height * 4 + (p.audioSeconds ?? 0) * p.audioSampleRate * p.audioChannels * 2;
  return {
    rawBytesPerRequest: raw,
    threads: p.mediaThreads,
    jobs(index) {
      const r = createRng((base ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0);
      const seed = () => Math.floor(r.next() * 4294967296);
      const out: MediaJob[] = [];
      const n = count ? drawCount(count, r) : 0;
      for (let k = 0; k < n; k++) {
        const size =
          widthDist && heightDist
            ? { width: sampleLength(widthDist, r), height: sampleLength(heightDist, r) }
            : imageSizes.length > 1
              ? imageSizes[r.int(0, imageSizes.length - 1)]
              : imageSizes[0];
        out.push({ kind: 'image', ...size, format: p.imageFormat, quality: p.imageQuality, content: p.imageContent, seed: seed() } satisfies ImageJob);
      }
      for (let k = 0; k < (p.videoFrames ?? 0); k++)
        out.push({ kind: 'video', ...videoSize, format: p.imageFormat, quality: p.imageQuality, content: p.imageContent, seed: seed(), fps: p.videoFps } satisfies ImageJob);
      if (p.audioSeconds)
        out.push({ kind: 'audio', seconds: p.audioSeconds, sampleRate: p.audioSampleRate, channels: p.audioChannels, format: p.audioFormat, content: p.audioContent, seed: seed() } satisfies AudioJob);
      return out;
    },
    describe: () => ({
      ...(hasImages ? { images: count?.spec, image_size: widthDist ? undefined : p.imageSize, image_width: p.imageWidth, image_height: p.imageHeight, image_format: p.imageFormat, image_quality: p.imageFormat === 'jpeg' ? p.imageQuality : undefined, image_content: p.imageContent } : {}),
      ...(p.videoFrames ? { video_frames: p.videoFrames, video_size: p.videoSize, video_fps: p.videoFps, video_format: 'frames' } : {}),
      ...(p.audioSeconds ? { audio_seconds: p.audioSeconds, audio_format: p.audioFormat, audio_sample_rate: p.audioSampleRate, audio_channels: p.audioChannels, audio_content: p.audioContent } : {}),
    }),
  };
}

function wrap<T>(flag: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw new Error(`${flag}: ${(e as Error).message}`);
  }
}

/** Whether these settings send synthetic media (false when they are invalid too: building the workload then says why). */
export function sendsMedia(p: Partial<MediaParams>): boolean {
  try {
    return createMediaPlan(p) !== undefined;
  } catch {
    return false;
  }
}
