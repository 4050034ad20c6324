// report.html "Images, video and audio": latency by image count (chart + table) and media rates, in headless Chromium; a real run with media specs.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { writeRunReport } from '../src/report/html/run-report.js';
import { recordLine } from '../src/metrics/jsonl.js';
import { run } from '../src/run.js';
import { startSimServer } from '../src/sim/server.js';
import type { MediaPart, RequestSpec } from '../src/dataset/types.js';
import type { Workload } from '../src/dataset/workload.js';
import { renderSummary } from '../src/report/terminal.js';
import { startHostileServer, sseChunk } from './fixtures/hostile-server.js';
import { checkPage, hasChromium, launch, NO_CHROMIUM } from './fixtures/browser.js';
import { tmpDir } from './helpers.js';
import { mediaRecords, ttftOf } from './fixtures/media-records.js';
import { pngBytes } from './fixtures/media-files.js';

const EVIL_MODEL = '<img src=x onerror="window.__pwned=3">m';

let browser: Browser | undefined;
beforeAll(async () => {
  if (hasChromium) browser = await launch();
  else console.warn(NO_CHROMIUM);
});
afterAll(async () => {
  await browser?.close();
});

describe('report.html: images, video and audio', () => {
  it('media records: the section has the rates, the latency-by-image-count chart draws and the table gives each count', async () => {
    const dir = tmpDir();
    writeFileSync(join(dir, 'requests.jsonl'), mediaRecords().map((r) => recordLine(r)).join(''));
    writeFileSync(join(dir, 'run.json'), JSON.stringify({ model: EVIL_MODEL, target_url: 'http://127.0.0.1:1' }));
    const path = writeRunReport(dir);
    const html = readFileSync(path, 'utf8');
    expect(html).toContain('Images, video and audio');
    expect(html).toContain('id="c-images-latency"');
    expect(html).not.toContain('<img src=x');
    if (!browser) return console.warn(NO_CHROMIUM);
    const page = await checkPage(browser, path);
    expect(page.errors).toEqual([]);
    expect(page.network).toEqual([]);
    expect(page.pwned).toBeUndefined();
    expect(page.text).toContain('Latency by image count');
    expect(page.text).toMatch(/of the measured requests carried media\. Rates divide by the measured window \([\d.]+ s\); MB = 106 bytes/);
    expect(page.text).toMatch(/\nimages\t30\t[\d.]+ \/s\n/);
    expect(page.text).toMatch(/\naudio\t2\.50 s\t[\d.]+ s\/s\n/);
    // A row per image count: requests, ok, TTFT p50 (the fixture's 10 + 20·n ms).
    expect(page.text).toContain(`\n1\t3\t3\t${ttftOf(1).toFixed(2)}\t`);
    expect(page.text).toContain(`\n2\t4\t4\t${ttftOf(2).toFixed(2)}\t`);
    expect(page.text).toMatch(/\n8\+\t2\t2\t/);
    // The 9 charts of every run and the one of this section.
    expect(page.charts).toBe(10);
    expect(page.drawn).toBe(page.canvases);
  }, 30_000);

  it('records without media: no section', () => {
    const dir = tmpDir();
    writeFileSync(join(dir, 'requests.jsonl'), mediaRecords().map((r) => ({ ...r, images: undefined, image_pixels: undefined, media_bytes: undefined, media_encode_ms: undefined, image_tokens: undefined, audio_seconds: undefined, audio_tokens: undefined })).map((r) => recordLine(r)).join(''));
    writeFileSync(join(dir, 'run.json'), JSON.stringify({ model: 'm' }));
    expect(readFileSync(writeRunReport(dir), 'utf8')).not.toContain('Images, video and audio');
  });

  it('a run whose specs carry 0 or 2 images of 1024×1024 against the embedded server: summary, terminal and report break latency down by image count', async () => {
    const server = await startSimServer({ timeScale: 20 });
    try {
      // A real PNG: the backend sends it as an image_url part and the embedded server reads its header.
      const png = pngBytes(1024, 1024);
      const image = (i: number): MediaPart => ({ kind: 'image', mime: 'image/png', width: 1024, height: 1024, data: png, hash: `h${i}`, encodeMs: 2 });
      const withMedia = (base: () => Workload): Workload => {
        const w = base();
        return {
          ...w,
          describe: () => w.describe(),
          next: (i: number) => {
            const s = w.next(i) as RequestSpec | undefined;
            return s && i % 2 === 1 ? { ...s, media: [image(2 * i), image(2 * i + 1)] } : s;
          },
        };
      };
      const out = tmpDir();
      const res = await run({ validate: false, baseUrl: server.baseUrl, requests: 40, concurrency: 4, inputTokens: 32, outputTokens: 16, out, quiet: true }, { workload: withMedia });
      const s = res.summary;
      expect(s.requests.ok).toBe(40);
      expect(Object.keys(s.by_images!)).toEqual(['0', '2']);
      expect([s.by_images!['0'].requests, s.by_images!['2'].requests]).toEqual([20, 20]);
      expect(s.by_images!['2'].ttft_ms.count).toBe(20);
      expect(s.media!.images).toBe(40);
      // Each body as sent carries its two PNGs as base64 (4/3 of their bytes) and the JSON around them.
      for (const r of res.records.filter((x) => x.images === 2)) expect(r.request_bytes!).toBeGreaterThan((2 * png.byteLength * 4) / 3);
      // Every body's size is recorded (request MB/s of the run); the media section sums only the bodies with media.
      const plain = res.records.filter((x) => x.images === undefined);
      expect(plain.every((r) => r.request_bytes! > 0 && r.request_bytes! < png.byteLength)).toBe(true);
      expect(s.media!.request_mb_per_s).toBeCloseTo(res.records.filter((x) => x.images === 2).reduce((a, r) => a + (r.request_bytes ?? 0), 0) / 1e6 / s.media!.duration_s, 6);
      expect(s.media!.image_pixels).toBe(40 * 1024 * 1024);
      expect(s.media!.client.encode_total_ms).toBe(80);
      // The client's media cost also sits with its health.
      expect(s.client!.media).toEqual(s.media!.client);
      expect(renderSummary(s)).toMatch(/\nclient: event-loop delay .*\n(CLIENT-BOUND: .*\n)?client media: encode p50 4\.00 ms, p99 4\.00 ms per request, 80 CPU-ms in all/);
      // The embedded server counts the images by its model's rule (docs/sim.md#multimodal) and reports them in
      // usage.prompt_tokens_details: the same positive count on every request with two images, and that as the mean.
      const tokens = new Set(res.records.filter((r) => r.images === 2).map((r) => r.image_tokens));
      expect(tokens.size).toBe(1);
      const [perRequest] = [...tokens] as number[];
      expect(perRequest).toBeGreaterThan(2 * 1000);
      expect(s.media!.image_tokens_reported).toBe(20);
      expect(s.media!.mean_image_tokens).toBe(perRequest);
      expect(renderSummary(s)).toContain('by image count (images per request):');
      const json = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
      expect(Object.keys(json.by_images)).toEqual(['0', '2']);
      expect(json.media.images).toBe(40);
      const html = readFileSync(join(out, 'report.html'), 'utf8');
      expect(html).toContain('id="c-images-latency"');
    } finally {
      await server.close();
    }
  }, 30_000);

  it('a scripted server: usage.prompt_tokens_details.image_tokens reaches the records and media.mean_image_tokens; a server without them leaves null', async () => {
    let n = 0;
    const server = await startHostileServer((req, res) => {
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify({ data: [{ id: 'vlm' }] }));
      }
      // Every third request's usage has no details (a server that does not break prompt tokens down).
      const k = n++;
      const details = k % 3 === 2 ? {} : { prompt_tokens_details: { cached_tokens: 0, image_tokens: 1296 + k } };
      const usage = { prompt_tokens: 2000, completion_tokens: 2, ...details };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(sseChunk('a') + sseChunk('b') + `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', choices: [], usage })}\n\n` + 'data: [DONE]\n\n');
    });
    try {
      const addImage = (base: () => Workload): Workload => {
        const w = base();
        return { ...w, describe: () => w.describe(), next: (i: number) => {
          const s = w.next(i) as RequestSpec | undefined;
          return s && { ...s, media: [{ kind: 'image', mime: 'image/png', width: 8, height: 8, data: new Uint8Array(10), hash: `x${i}` }] };
        } };
      };
      const res = await run({ validate: false, baseUrl: `${server.origin}/v1`, requests: 6, concurrency: 1, inputTokens: 8, outputTokens: 4, out: tmpDir(), quiet: true }, { workload: addImage });
      const recs = res.records;
      expect(recs.map((r) => r.image_tokens)).toEqual([1296, 1297, null, 1299, 1300, null]);
      expect(recs.every((r) => r.images === 1 && r.audio_tokens === undefined)).toBe(true);
      const m = res.summary.media!;
      expect(m.image_tokens_reported).toBe(4);
      expect(m.mean_image_tokens).toBeCloseTo((1296 + 1297 + 1299 + 1300) / 4, 9);
      expect(renderSummary(res.summary)).toContain('image tokens 1298/request (4 reported)');
    } finally {
      await server.close();
    }
  }, 30_000);
});
