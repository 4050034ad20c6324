// Terminal lines for runs with images, video or audio: media totals and rates, the client's encode cost, latency by image count.
import type { Summary } from '../metrics/summary.js';
import { fmt, table } from './format.js';
import { latencyColumns } from './breakdown-columns.js';

const perS = (x: number | null, digits = 2): string => (x === null ? '-' : fmt(x, digits));

/** The client's media cost (encode time, MB/s sent) and the encode-bound warning: printed under the client health line. */
export function clientMediaLines(s: Summary): string[] {
  const m = s.media;
  if (!m) return [];
  const out: string[] = [];
  const c = m.client;
  out.push(
    `client media: encode p50 ${fmt(c.encode_ms.p50)} ms, p99 ${fmt(c.encode_ms.p99)} ms per request, ${Math.round(c.encode_total_ms)} CPU-ms in all` +
      `${c.encode_share === null ? '' : ` (${fmt(c.encode_share * 100, 1)}% of the window)`}, ${perS(c.media_bytes_per_s === null ? null : c.media_bytes_per_s / 1e6)} MB/s sent`,
  );
  for (const w of c.warnings) out.push(`MEDIA-ENCODE-BOUND: ${w}`);
  return out;
}

/** The media line and the by-image-count table; nothing for a run whose records carry no media. */
export function mediaLines(s: Summary): string[] {
  const m = s.media;
  if (!m) return [];
  const out: string[] = [''];
  const parts = [`${m.requests_with_media} requests with media`];
  // Images are named unless the run sent only video or audio.
  if (m.images || !(m.video_frames || m.audio_seconds)) parts.push(`${m.images} images (${perS(m.images_per_s)}/s, ${perS(m.megapixels_per_s)} Mpx/s)`);
  if (m.video_frames) parts.push(`${m.video_frames} video frames (${perS(m.video_frames_per_s)}/s)`);
  if (m.audio_seconds) parts.push(`${fmt(m.audio_seconds, 1)} s audio (${perS(m.audio_seconds_per_s)} s/s)`);
  parts.push(`${perS(m.media_mb_per_s)} MB/s of media (10^6 bytes)`, `${perS(m.request_mb_per_s)} MB/s of request bodies`);
  if (m.mean_image_tokens !== null) parts.push(`image tokens ${fmt(m.mean_image_tokens, 1)}/request (${m.image_tokens_reported} reported)`);
  if (m.mean_audio_tokens !== null) parts.push(`audio tokens ${fmt(m.mean_audio_tokens, 1)}/request (${m.audio_tokens_reported} reported)`);
  out.push(`media: ${parts.join(', ')}`);
  if (s.by_images) {
    const lat = latencyColumns(s.percentiles);
    const rows = Object.entries(s.by_images).map(([k, b]) => [k, String(b.requests), String(b.ok), ...lat.map((col) => fmt(col.value(b))), fmt(b.itl_ms.p99)]);
    out.push('', 'by image count (images per request):');
    out.push(table(['images', 'requests', 'ok', ...lat.map((col) => col.head), 'ITL p99'], rows));
  }
  return out;
}
