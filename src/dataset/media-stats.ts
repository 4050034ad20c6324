// Dataset statistics of media: how many images, audio clips and videos per request, their bytes and image dimensions.
import type { DatasetItem } from './items.js';
import type { MediaPart } from './types.js';

export interface Range {
  min: number | null;
  max: number | null;
}

export interface MediaStats {
  /** Requests (turns) that carry at least one media part. */
  requests_with_media: number;
  images: number;
  audio: number;
  video: number;
  /** Media passed through as remote URLs (no bytes read; not in media_bytes). */
  remote_urls: number;
  /** Images per request over every request: mean and max (0 for text-only requests). */
  images_per_request: { mean: number; max: number };
  /** Bytes of the local and data: URL media, counted once per request that sends them (what the run uploads). */
  media_bytes: number;
  /** Distinct media (by sha256 hash) and their bytes held once in memory. */
  distinct: number;
  distinct_bytes: number;
  image_width: Range;
  image_height: Range;
  /** Total seconds of audio (from WAV headers; MP3 estimated at its first frame's bit rate). */
  audio_seconds: number;
}

const widen = (r: Range, v: number | undefined): void => {
  if (v === undefined) return;
  r.min = r.min === null ? v : Math.min(r.min, v);
  r.max = r.max === null ? v : Math.max(r.max, v);
};

/** Media counts and sizes per request; undefined when no item has media (the text-only output stays as it was). */
export function mediaStats(items: readonly DatasetItem[]): MediaStats | undefined {
  const s: MediaStats = {
    requests_with_media: 0, images: 0, audio: 0, video: 0, remote_urls: 0, images_per_request: { mean: 0, max: 0 },
    media_bytes: 0, distinct: 0, distinct_bytes: 0, image_width: { min: null, max: null }, image_height: { min: null, max: null }, audio_seconds: 0,
  };
  const seen = new Set<string>();
  let requests = 0;
  const count = (m: MediaPart) => {
    s[m.kind === 'image' ? 'images' : m.kind]++;
    if (m.url !== undefined) s.remote_urls++;
    const bytes = m.data?.length ?? 0;
    s.media_bytes += bytes;
    if (!seen.has(m.hash)) {
      seen.add(m.hash);
      s.distinct++;
      s.distinct_bytes += bytes;
    }
    if (m.kind === 'image') {
      widen(s.image_width, m.width);
      widen(s.image_height, m.height);
    }
    if (m.seconds !== undefined && m.kind === 'audio') s.audio_seconds += m.seconds;
  };
  for (const item of items)
    for (const t of item.turns) {
      requests++;
      const media = t.media ?? [];
      if (media.length) s.requests_with_media++;
      media.forEach(count);
      s.images_per_request.max = Math.max(s.images_per_request.max, media.filter((m) => m.kind === 'image').length);
    }
  if (s.requests_with_media === 0) return undefined;
  s.images_per_request.mean = requests ? s.images / requests : 0;
  return s;
}
