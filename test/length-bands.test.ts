// --length-bands: every metric per input-length band in summary.json, the terminal, stats.csv and report.html (headless Chromium).
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { main } from '../src/cli/main.js';
import { parseLengthBands, bandOf } from '../src/metrics/length-bands.js';
import { checkPage, hasChromium, launch, NO_CHROMIUM } from './fixtures/browser.js';
import { capture } from './io-capture.js';
import { tmpDir } from './helpers.js';

let browser: Browser | undefined;
beforeAll(async () => {
  if (hasChromium) browser = await launch();
  else console.warn(NO_CHROMIUM);
});
afterAll(async () => {
  await browser?.close();
});

describe('input-length bands', () => {
  it('parses LO-HI and LO+ bands (k = 1024) and places a prompt in its band', () => {
    const b = parseLengthBands('0-4k,4k-16k,16k-32k,32k+');
    expect(b.map((x) => [x.lo, x.hi])).toEqual([[0, 4096], [4096, 16384], [16384, 32768], [32768, null]]);
    expect(bandOf(b, 4095)?.label).toBe('0-4k');
    expect(bandOf(b, 4096)?.label).toBe('4k-16k');
    expect(bandOf(b, 100_000)?.label).toBe('32k+');
    expect(bandOf(parseLengthBands('100-200'), 50)).toBeUndefined();
    expect(parseLengthBands('none')).toEqual([]);
    expect(() => parseLengthBands('32k+,0-4k')).toThrow(/open-ended, so it must be the last/);
    expect(() => parseLengthBands('0-4k,2k-8k')).toThrow(/overlap/);
    expect(() => parseLengthBands('4k-1k')).toThrow(/upper bound must be above/);
    expect(() => parseLengthBands('0-4q')).toThrow(/bad bound "4q"/);
  });

  it('a bad --length-bands exits 2 naming the flag, before any request', async () => {
    const c = capture();
    expect(await main(['run', '--length-bands', '0-4k,2k-8k', '--requests', '2', '--out', join(tmpDir(), 'x')], c.io)).toBe(2);
    expect(c.err).toMatch(/--length-bands: bands "0-4k" and "2k-8k" overlap/);
  });

  it('a mixed run: by_length_band per band (counts add up, the long band is slower to first token), terminal, stats.csv and report.html', async () => {
    const dir = join(tmpDir(), 'run');
    const c = capture();
    const args = ['run', '--mix', 'short: 50% in 200 out 16; long: 50% in 3000 out 16', '--length-bands', '0-1k,1k-2k,2k+', '--requests', '24', '--concurrency', '2'];
    expect(await main([...args, '--dataset-seed', '3', '--sim-time-scale', '20', '--no-server-metrics', '--out', dir], c.io), c.err).toBe(0);
    const s = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    const bands = s.by_length_band as Record<string, { requests: { total: number; ok: number }; ttft_ms: { mean: number }; input_tokens: { mean: number } }>;
    // 1k-2k holds no request, so it is left out; the keys keep the bands' order.
    expect(Object.keys(bands)).toEqual(['0-1k', '2k+']);
    expect(bands['0-1k'].requests.total + bands['2k+'].requests.total).toBe(s.requests.total);
    expect(bands['0-1k'].requests.total).toBe(s.by_class.short.requests.total);
    expect(bands['0-1k'].input_tokens.mean).toBeLessThan(1024);
    expect(bands['2k+'].input_tokens.mean).toBeGreaterThan(2048);
    // The embedded sim prefills 15× more tokens for the long band.
    expect(bands['2k+'].ttft_ms.mean).toBeGreaterThan(bands['0-1k'].ttft_ms.mean);
    expect(c.out).toContain('by input length (prompt tokens, k = 1024):');
    expect(c.out).toMatch(/\n\s*2k\+\s+\d+\s+0\.0%/);
    const csv = readFileSync(join(dir, 'stats.csv'), 'utf8').split('\n');
    expect(csv.filter((l) => l.startsWith('input:')).map((l) => l.split(',')[0])).toEqual(['input:0-1k', 'input:2k+']);
    // `report` rebuilds the same breakdown from requests.jsonl and run.json.
    const r = capture();
    expect(await main(['report', dir, '--json'], r.io), r.err).toBe(0);
    expect(Object.keys(JSON.parse(r.out).by_length_band)).toEqual(['0-1k', '2k+']);
    if (!browser) return console.warn(NO_CHROMIUM);
    const page = await checkPage(browser, join(dir, 'report.html'));
    expect(page.errors).toEqual([]);
    expect(page.text).toContain('By input length (prompt tokens, k = 1024)');
    expect(page.text).toMatch(new RegExp(`\\n2k\\+\\t${bands['2k+'].requests.ok}\\t0\\.0%\\t`));
  }, 60_000);

  it('default bands: shown only when the requests fall in two or more of 0-4k, 4k-16k, 16k-32k, 32k+', async () => {
    const one = join(tmpDir(), 'one');
    const c = capture();
    expect(await main(['run', '--input-tokens', '300', '--output-tokens', '8', '--requests', '4', '--sim-time-scale', '50', '--no-server-metrics', '--out', one], c.io), c.err).toBe(0);
    expect(JSON.parse(readFileSync(join(one, 'summary.json'), 'utf8')).by_length_band).toBeUndefined();
    const two = join(tmpDir(), 'two');
    const d = capture();
    expect(await main(['run', '--mix', 'a: 50% in 300 out 8; b: 50% in 5000 out 8', '--requests', '8', '--sim-time-scale', '50', '--no-server-metrics', '--out', two], d.io), d.err).toBe(0);
    expect(Object.keys(JSON.parse(readFileSync(join(two, 'summary.json'), 'utf8')).by_length_band)).toEqual(['0-4k', '4k-16k']);
  }, 60_000);
});
