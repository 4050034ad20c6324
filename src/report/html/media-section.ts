// report.html "Images, video and audio": latency by image count (chart + table), media rates and the client's encode cost.
import type { Summary } from '../../metrics/summary.js';
import type { ImagesBlock } from '../../metrics/media.js';
import { chartBase as base, GRID_TOP_WITH_LEGEND, LEGEND_ROW, valueAxis } from './chart-kit.js';
import { htmlTable, num, pctText, statementsList } from './sections.js';
import { escapeHtml as esc } from './escape.js';

/** TTFT p50/p99 and E2E p50 per image count (ms, left axis), TPOT and ITL p50 (ms, right axis). */
export function imagesLatencyChart(byImages: Record<string, ImagesBlock>): Record<string, unknown> {
  const keys = Object.keys(byImages);
  const line = (name: string, f: (b: ImagesBlock) => number | null, axis = 0) => ({ type: 'line', name, yAxisIndex: axis, symbolSize: 6, connectNulls: false, data: keys.map((k) => f(byImages[k])) });
  return {
    ...base('Latency by image count'),
    legend: LEGEND_ROW,
    grid: { left: 64, right: 64, top: GRID_TOP_WITH_LEGEND, bottom: 48 },
    xAxis: { type: 'category', name: 'images per request', nameLocation: 'middle', nameGap: 30, data: keys },
    yAxis: [valueAxis('ms', { nameGap: 44 }), valueAxis('TPOT / ITL ms', { position: 'right', nameGap: 40, splitLine: { show: false } })],
    series: [
      line('TTFT p50', (b) => b.ttft_ms.p50),
      line('TTFT p99', (b) => b.ttft_ms.p99),
      line('E2E p50', (b) => b.e2e_ms.p50),
      line('TPOT p50', (b) => b.tpot_ms.p50, 1),
      line('ITL p50', (b) => b.itl_ms.p50, 1),
    ],
  };
}

/** The "Images, video and audio" section, or undefined when the records carry no media. */
export function mediaSection(s: Summary, charts: Record<string, unknown>): { id: string; title: string; html: string } | undefined {
  const m = s.media;
  if (!m) return undefined;
  const parts: string[] = [];
  const rate = (x: number | null, unit: string) => `${num(x)} ${unit}`;
  const rows: string[][] = [
    ['images', num(m.images, 0), rate(m.images_per_s, '/s')],
    ['image pixels', `${num(m.image_pixels / 1e6)} Mpx`, rate(m.megapixels_per_s, 'Mpx/s')],
    ['media bytes (encoded, before base64)', `${num(m.media_bytes / 1e6)} MB`, rate(m.media_mb_per_s, 'MB/s')],
    ['request bodies (as sent, requests with media)', `${num(m.request_bytes / 1e6)} MB`, rate(m.request_mb_per_s, 'MB/s')],
  ];
  if (m.video_frames) rows.splice(1, 0, ['video frames', num(m.video_frames, 0), rate(m.video_frames_per_s, '/s')]);
  if (m.audio_seconds) rows.push(['audio', `${num(m.audio_seconds)} s`, rate(m.audio_seconds_per_s, 's/s')]);
  if (m.mean_image_tokens !== null) rows.push(['image tokens (server usage)', `${num(m.mean_image_tokens, 1)} per request`, `${m.image_tokens_reported} reported`]);
  if (m.mean_audio_tokens !== null) rows.push(['audio tokens (server usage)', `${num(m.mean_audio_tokens, 1)} per request`, `${m.audio_tokens_reported} reported`]);
  parts.push(
    `<p class="muted">${esc(m.requests_with_media)} of the measured requests carried media. Rates divide by the measured window (${esc(num(m.duration_s))} s); MB = 10<sup>6</sup> bytes (docs/metrics.md#images-video-and-audio).</p>`,
    htmlTable(['what', 'total', 'rate'], rows),
  );
  const c = m.client;
  parts.push(
    `<h3>Client media cost</h3><p class="muted">Encoding: p50 ${esc(num(c.encode_ms.p50))} ms, p99 ${esc(num(c.encode_ms.p99))} ms per request, ${esc(num(c.encode_total_ms, 0))} CPU-ms in all ` +
      `(${esc(pctText(c.encode_share))} of the window); ${esc(num(c.media_bytes_per_s === null ? null : c.media_bytes_per_s / 1e6))} MB/s of media sent.</p>` +
      (c.warnings.length ? statementsList(c.warnings) : ''),
  );
  if (s.by_images) {
    charts['c-images-latency'] = imagesLatencyChart(s.by_images);
    parts.push('<h3>Latency by image count</h3><div class="chart" id="c-images-latency"></div>');
    const head = ['images', 'requests', 'ok', 'TTFT p50', 'TTFT p99', 'TPOT p50', 'ITL p50', 'ITL p99', 'E2E p50', 'E2E p99'];
    const trs = Object.entries(s.by_images).map(([k, b]) => [k, String(b.requests), String(b.ok), num(b.ttft_ms.p50), num(b.ttft_ms.p99), num(b.tpot_ms.p50), num(b.itl_ms.p50), num(b.itl_ms.p99), num(b.e2e_ms.p50), num(b.e2e_ms.p99)]);
    parts.push(htmlTable(head, trs));
  }
  return { id: 'media', title: 'Images, video and audio', html: parts.join('') };
}
