// Media metrics: totals and rates over the measured window, the client's encode cost, latency by image count, server media tokens.
import { describe, it, expect } from 'vitest';
import { buildSummary } from '../src/metrics/summary.js';
import { imagesKey, ENCODE_SHARE_WARN } from '../src/metrics/media.js';
import { SummaryAggregator } from '../src/metrics/aggregator.js';
import { mediaRecords, MEDIA_IMAGE_COUNTS, ttftOf } from './fixtures/media-records.js';
import { sessionRecords, rec } from './fixtures/session-records.js';
import { parseUsage } from '../src/backends/openai-common.js';
import { responsesUsage } from '../src/backends/openai-responses.js';
import { applyUsage, mergeUsage, type UsageFields } from '../src/backends/usage.js';
import { copyMediaFields } from '../src/lifecycle/send.js';
import { renderSummary } from '../src/report/terminal.js';

const fields = (): UsageFields => ({ usage_rejected: null, input_tokens: null, output_tokens: null, reasoning_tokens: null, cached_tokens: null, token_source: null });

describe('media summary', () => {
  it('by_images: requests and TTFT/TPOT/ITL/E2E per image count, 8 and more pooled; warmup left out', () => {
    const s = buildSummary(mediaRecords(), {});
    const b = s.by_images!;
    expect(Object.keys(b)).toEqual(['0', '1', '2', '8+']);
    // "0" holds the two text-only requests and the audio one.
    expect([b['0'].requests, b['1'].requests, b['2'].requests, b['8+'].requests]).toEqual([3, 3, 4, 2]);
    expect(b['1'].ttft_ms.p50).toBeCloseTo(ttftOf(1), 6);
    expect(b['2'].ttft_ms.mean).toBeCloseTo(ttftOf(2), 6);
    expect(b['8+'].ttft_ms.min).toBeCloseTo(ttftOf(9), 6);
    expect(b['8+'].ttft_ms.max).toBeCloseTo(ttftOf(10), 6);
    // rec(): 4 token events 2 ms apart → 3 ITL gaps of 2 ms per request.
    expect(b['2'].itl_ms.count).toBe(12);
    expect(b['2'].itl_ms.p50).toBeCloseTo(2, 6);
    expect(b['1'].tpot_ms.count).toBe(3);
    expect(b['1'].e2e_ms.p50).toBeCloseTo(ttftOf(1) + 7, 6);
    expect(imagesKey(7)).toBe('7');
    expect(imagesKey(8)).toBe('8+');
  });

  it('by_images ITL past the exact limit moves to the histogram, as the run\'s does: same count, min, max, mean', () => {
    const agg = new SummaryAggregator(4);
    for (const r of mediaRecords()) agg.add(r);
    const itl = agg.summary({}).by_images!['2'].itl_ms;
    expect([itl.count, itl.min, itl.max]).toEqual([12, 2, 2]);
    expect(itl.mean).toBeCloseTo(2, 6);
    expect(itl.p99).toBeCloseTo(2, 2);
  });

  it('media totals and rates divide by the measured window; image tokens average over the requests that reported them', () => {
    const s = buildSummary(mediaRecords(), {});
    const m = s.media!;
    const imgs = MEDIA_IMAGE_COUNTS.reduce((a, n) => a + n, 0);
    expect(m.requests_with_media).toBe(MEDIA_IMAGE_COUNTS.filter((n) => n > 0).length + 1);
    expect(m.images).toBe(imgs);
    expect(m.image_pixels).toBe(imgs * 500_000);
    expect(m.media_bytes).toBe(imgs * 50_000 + 80_000);
    expect(m.audio_seconds).toBe(2.5);
    expect(m.duration_s).toBe(s.duration_s);
    expect(m.images_per_s).toBeCloseTo(imgs / s.duration_s, 9);
    expect(m.megapixels_per_s).toBeCloseTo((imgs * 0.5) / s.duration_s, 9);
    expect(m.media_mb_per_s).toBeCloseTo((imgs * 50_000 + 80_000) / 1e6 / s.duration_s, 9);
    expect(m.audio_seconds_per_s).toBeCloseTo(2.5 / s.duration_s, 9);
    // 2-image requests reported none (null): left out of the mean, not counted as 0.
    const reported = MEDIA_IMAGE_COUNTS.filter((n) => n > 0 && n !== 2);
    expect(m.image_tokens_reported).toBe(reported.length);
    expect(m.mean_image_tokens).toBeCloseTo(reported.reduce((a, n) => a + 300 * n, 0) / reported.length, 9);
    expect([m.mean_audio_tokens, m.audio_tokens_reported]).toEqual([63, 1]);
  });

  it('with a ramp the media window is every phase\'s (as its totals are), longer than the steady duration_s', () => {
    const recs = mediaRecords().map((r, i) => (i < 3 ? { ...r, phase: 'ramp-up' as const } : r));
    const s = buildSummary(recs, {});
    expect(s.phases?.summarized).toBe('steady');
    const all = buildSummary(mediaRecords(), {});
    expect(s.media!.duration_s).toBeCloseTo(all.duration_s, 9);
    expect(s.media!.duration_s).toBeGreaterThan(s.duration_s + 0.25);
    expect(s.media!.images).toBe(all.media!.images);
  });

  it('client: encode time per request, CPU-ms in all, bytes/s; a warning only when encoding fills more than half the window', () => {
    const s = buildSummary(mediaRecords(), {});
    const c = s.media!.client;
    const enc = MEDIA_IMAGE_COUNTS.filter((n) => n > 0).map((n) => 4 * n);
    expect(c.encode_ms.count).toBe(enc.length + 1);
    expect(c.encode_total_ms).toBe(enc.reduce((a, x) => a + x, 0) + 1);
    expect(c.encode_share).toBeCloseTo(c.encode_total_ms / (s.duration_s * 1000), 9);
    expect(c.media_bytes_per_s).toBeCloseTo(s.media!.media_bytes / s.duration_s, 6);
    expect(c.encode_share!).toBeLessThan(ENCODE_SHARE_WARN);
    expect([c.encode_bound, c.warnings]).toEqual([false, []]);
    // The same requests with 20x the encode time: encoding now takes more than half the window.
    const slow = buildSummary(mediaRecords().map((r) => (r.media_encode_ms !== undefined ? { ...r, media_encode_ms: r.media_encode_ms * 20 } : r)), {});
    expect(slow.media!.client.encode_bound).toBe(true);
    expect(slow.media!.client.warnings[0]).toMatch(/^media encoding took \d+% of the measured window/);
    expect(renderSummary({ ...slow, run: { model: 'm' } })).toContain('MEDIA-ENCODE-BOUND: media encoding took');
  });

  it('threaded synthetic media: encode-bound only when requests waited for their media, whatever the encode share', () => {
    const slow = mediaRecords().map((r) => (r.media_encode_ms !== undefined ? { ...r, media_encode_ms: r.media_encode_ms * 20 } : r));
    const withMedia = slow.filter((r) => !r.warmup && r.media_bytes !== undefined).length;
    // Encoded ahead on a thread and nobody waited: not bound, though encoding took more than half the window.
    const ahead = buildSummary(slow, { workload: { media: { threaded: true, threads: 1, media_waited: 0 } } });
    expect(ahead.media!.client.encode_share!).toBeGreaterThan(ENCODE_SHARE_WARN);
    expect([ahead.media!.client.encode_bound, ahead.media!.client.media_waited, ahead.media!.client.warnings]).toEqual([false, 0, []]);
    // Most requests waited for their media: bound, and the sentence names the threads.
    const waited = buildSummary(mediaRecords(), { workload: { media: { threaded: true, threads: 2, media_waited: withMedia - 1 } } });
    expect(waited.media!.client.encode_bound).toBe(true);
    expect(waited.media!.client.warnings[0]).toMatch(new RegExp(`^${withMedia - 1} of ${withMedia} requests waited for their media \\(2 encoding threads`));
  });

  it('no media block and no by_images for records without media', () => {
    const s = buildSummary(sessionRecords(), {});
    expect(s.media).toBeUndefined();
    expect(s.by_images).toBeUndefined();
    expect(renderSummary({ ...s, run: { model: 'm' } })).not.toContain('by image count');
  });

  it('terminal: the media line, the client media line and the by-image-count table', () => {
    const s = buildSummary(mediaRecords(), { model: 'm' });
    const text = renderSummary(s);
    const withImages = MEDIA_IMAGE_COUNTS.filter((n) => n > 0);
    const imgs = withImages.reduce((a, n) => a + n, 0);
    expect(text).toMatch(new RegExp(`media: ${withImages.length + 1} requests with media, ${imgs} images \\([\\d.]+/s, [\\d.]+ Mpx/s\\), 2\\.5 s audio`));
    expect(text).toContain(`${4 * imgs + 1} CPU-ms in all`);
    expect(text).toMatch(/client media: encode p50 [\d.]+ ms, p99 [\d.]+ ms per request/);
    expect(text).toContain('by image count (images per request):');
    expect(text).toMatch(/^\s*8\+\s+2\s+2\s+/m);
  });
});

describe('media tokens from usage', () => {
  it('prompt_tokens_details image_tokens/audio_tokens (chat) and input_tokens_details (Responses) reach the record', () => {
    const raw = fields();
    applyUsage(raw, parseUsage({ prompt_tokens: 1400, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 0, image_tokens: 1296, audio_tokens: 50 } })!, 16);
    expect([raw.image_tokens, raw.audio_tokens, raw.input_tokens]).toEqual([1296, 50, 1400]);
    const r2 = fields();
    applyUsage(r2, responsesUsage({ input_tokens: 700, output_tokens: 3, input_tokens_details: { image_tokens: 576 } })!, 16);
    expect([r2.image_tokens, r2.audio_tokens]).toEqual([576, undefined]);
  });

  it('not sane (negative, not an integer, more than prompt_tokens): not kept; a later usage chunk wins when it has them', () => {
    for (const bad of [-1, 1.5, '9', 5000]) {
      const raw = fields();
      applyUsage(raw, parseUsage({ prompt_tokens: 1000, completion_tokens: 1, prompt_tokens_details: { image_tokens: bad } })!, 16);
      expect(raw.image_tokens, String(bad)).toBeUndefined();
      expect(raw.usage_rejected, String(bad)).toMatch(/^image_tokens=.* is (not a non-negative integer|more than prompt_tokens \(1000\))$/);
    }
    const merged = mergeUsage(parseUsage({ prompt_tokens: 10, prompt_tokens_details: { image_tokens: 4 } })!, parseUsage({ completion_tokens: 2 })!);
    expect(merged.image_tokens).toBe(4);
  });

  it('a media request whose server gave no media tokens records null (not reported), a text one nothing', () => {
    const raw = {} as Parameters<typeof copyMediaFields>[1];
    copyMediaFields([{ kind: 'image', mime: 'image/png', width: 10, height: 10, hash: 'h', data: new Uint8Array(7) }], raw);
    expect([raw.images, raw.image_tokens, raw.audio_tokens]).toEqual([1, null, undefined]);
    const given = { image_tokens: 9 } as Parameters<typeof copyMediaFields>[1];
    copyMediaFields([{ kind: 'image', mime: 'image/png', hash: 'h' }, { kind: 'audio', mime: 'audio/wav', seconds: 1, hash: 'a' }], given);
    expect([given.image_tokens, given.audio_tokens]).toEqual([9, null]);
    expect(rec({}).image_tokens).toBeUndefined();
  });
});

describe('compare: TTFT by image count', () => {
  it('both runs\' image counts side by side with the delta, informational (no regression from it)', async () => {
    const { writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpDir } = await import('./helpers.js');
    const { capture } = await import('./io-capture.js');
    const { main } = await import('../src/cli/main.js');
    const dir = (slower: number, drop?: string) => {
      const d = tmpDir();
      const recs = mediaRecords()
        .filter((r) => drop === undefined || String(r.images ?? 0) !== drop)
        .map((r) => ({ ...r, ttft_ms: r.ttft_ms === null ? null : r.ttft_ms * slower }));
      writeFileSync(join(d, 'summary.json'), JSON.stringify(buildSummary(recs, { model: 'm' })));
      writeFileSync(join(d, 'run.json'), JSON.stringify({ model: 'm' }));
      return d;
    };
    const a = dir(1);
    const b = dir(2, '1');
    const cap = capture();
    await main(['compare', a, b, '--json', '--no-html'], cap.io);
    const doc = JSON.parse(cap.out);
    const rows = doc.comparisons[0].by_images as { images: string; baseline_requests: number; candidate_requests: number; ttft_p50: { baseline: number; candidate: number | null; delta: number | null } }[];
    expect(rows.map((r) => r.images)).toEqual(['0', '1', '2', '8+']);
    const two = rows.find((r) => r.images === '2')!;
    expect(two.ttft_p50.baseline).toBeCloseTo(ttftOf(2), 6);
    expect(two.ttft_p50.delta).toBeCloseTo(ttftOf(2), 6);
    const one = rows.find((r) => r.images === '1')!;
    expect([one.candidate_requests, one.ttft_p50.candidate]).toEqual([0, null]);
    expect(doc.comparisons[0].regressions.some((x: { metric: string }) => /image/.test(x.metric))).toBe(false);
    const text = capture();
    await main(['compare', a, b, '--no-html'], text.io);
    expect(text.out).toContain('TTFT by image count (informational: not a regression check):');
    expect(text.out).toMatch(/^images\s+requests\s+TTFT p50 base/m);
  });
});
