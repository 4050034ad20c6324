// What one image, clip or video in a request costs the sim engine: prompt tokens (by the served model's rule,
// engine/media.ts), encoder FLOPs, and the content hash the encoder cache and prefix cache key on.
import { createHash } from 'node:crypto';
import { audioTokens, imageTokens, videoTokens, type MediaTokens } from './engine/media.js';
import { audioHeader, decodeDataUrl, imageHeader, videoHeader } from './media-header.js';

export interface CountedMedia extends MediaTokens {
  kind: 'image' | 'audio' | 'video';
  hash: string;
  /** Index of its first placeholder token in the prompt (set where the prompt is assembled). */
  offset?: number;
}

/** The engine's view of a counted item (encoder cache key, size, cost, place in the prompt). */
export const engineMedia = (m: CountedMedia): { hash: string; tokens: number; flops: number; offset?: number; span: number } => ({
  hash: m.hash, tokens: m.tokens, flops: m.flops, offset: m.offset, span: m.promptTokens,
});

/** What the sim assumes for media it cannot measure (a remote URL it does not fetch, a clip it cannot read). */
export const ASSUMED = { width: 1024, height: 1024, videoSeconds: 8, videoWidth: 448, videoHeight: 448, audioSeconds: 10 } as const;
/** Frames sampled from a video per second (vLLM's Qwen2.5-VL default fps 2). */
export const VIDEO_SAMPLE_FPS = 2;

export const hashBytes = (b: Uint8Array | string): string => createHash('sha256').update(b).digest('hex').slice(0, 32);

/** Placeholder token ids for a media item (same item, same ids), so the prefix cache tells images apart as vLLM does. */
export function placeholderIds(m: CountedMedia): number[] {
  const seed = parseInt(m.hash.slice(0, 7), 16);
  return Array.from({ length: m.promptTokens }, (_, i) => (seed + i) % 0x7fffffff);
}

export type MediaSource = { kind: 'image' | 'audio' | 'video'; url?: string; bytes?: Uint8Array; format?: string };
export type CountResult = { ok: true; media: CountedMedia } | { ok: false; message: string };

/** Count one media item for `modelId`; bytes come from a data URL or a base64 field; remote URLs are not fetched. */
export function countMedia(modelId: string, src: MediaSource): CountResult {
  let bytes = src.bytes;
  if (!bytes && src.url !== undefined) {
    const d = src.url.startsWith('data:') ? decodeDataUrl(src.url) : undefined;
    if (src.url.startsWith('data:') && !d) return { ok: false, message: 'not a valid data: URL' };
    bytes = d?.bytes;
  }
  const hash = hashBytes(bytes ?? src.url ?? '');
  if (src.kind === 'image') {
    if (!bytes) return { ok: true, media: { kind: 'image', hash, ...imageTokens(modelId, ASSUMED.width, ASSUMED.height) } };
    const h = imageHeader(bytes);
    if (!h) return { ok: false, message: 'not a PNG, JPEG, GIF or WebP image' };
    if (h.width <= 0 || h.height <= 0) return { ok: false, message: `image has no pixels (${h.width}x${h.height})` };
    return { ok: true, media: { kind: 'image', hash, ...imageTokens(modelId, h.width, h.height) } };
  }
  if (src.kind === 'audio') {
    if (!bytes) return { ok: true, media: { kind: 'audio', hash, ...audioTokens(modelId, ASSUMED.audioSeconds) } };
    const a = audioHeader(bytes);
    if (!a) return { ok: false, message: `not a WAV or MP3 clip${src.format ? ` (format ${JSON.stringify(src.format)})` : ''}` };
    return { ok: true, media: { kind: 'audio', hash, ...audioTokens(modelId, a.seconds) } };
  }
  const v = bytes ? videoHeader(bytes) : undefined;
  const seconds = v?.seconds ?? ASSUMED.videoSeconds;
  const frames = Math.max(2, Math.round((seconds * VIDEO_SAMPLE_FPS) / 2) * 2);
  return { ok: true, media: { kind: 'video', hash, ...videoTokens(modelId, v?.width ?? ASSUMED.videoWidth, v?.height ?? ASSUMED.videoHeight, frames) } };
}

/** usage.prompt_tokens_details fields for a request's media (absent when it has none of the kind). */
export function mediaUsage(media: readonly CountedMedia[]): { image_tokens?: number; audio_tokens?: number } {
  let image = 0;
  let audio = 0;
  for (const m of media) {
    if (m.kind === 'audio') audio += m.tokens;
    else image += m.tokens;
  }
  return { ...(media.some((m) => m.kind !== 'audio') ? { image_tokens: image } : {}), ...(media.some((m) => m.kind === 'audio') ? { audio_tokens: audio } : {}) };
}
