// --length-bands: every metric per input-length band in summary.json, the terminal, stats.csv and report.html (headless Chromium).
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
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

describe('input-length bands on file workloads (issue 32 item 1)', () => {
  type Bands = Record<string, { requests: { total: number; ok: number }; input_tokens: { mean: number; max: number } }>;

  it('--dataset: a JSONL of mixed prompt lengths, each record in the band of its counted prompt', async () => {
    const f = join(tmpDir(), 'mixed.jsonl');
    // 3 short (~100 tokens), 2 middle (~2,000), 1 long (~5,000): "word " is one cl100k token.
    const lens = [100, 2000, 100, 5000, 2000, 100];
    writeFileSync(f, lens.map((n, i) => JSON.stringify({ prompt: `${i} ` + 'word '.repeat(n), max_tokens: 4 })).join('\n') + '\n');
    const dir = join(tmpDir(), 'ds');
    const c = capture();
    expect(await main(['run', '--dataset', f, '--dataset-mode', 'once', '--length-bands', '0-1k,1k-4k,4k+', '--concurrency', '2', '--sim-time-scale', '50', '--no-server-metrics', '--quiet', '--out', dir], c.io), c.err).toBe(0);
    const s = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    const bands = s.by_length_band as Bands;
    expect(Object.keys(bands)).toEqual(['0-1k', '1k-4k', '4k+']);
    expect([bands['0-1k'].requests.ok, bands['1k-4k'].requests.ok, bands['4k+'].requests.ok]).toEqual([3, 2, 1]);
    expect(bands['0-1k'].input_tokens.max).toBeLessThan(1024);
    expect(bands['4k+'].input_tokens.mean).toBeGreaterThan(4096);
  }, 60_000);

  it('--replay: a slice of the shipped Mooncake trace, each request in the band of its recorded input_length', async () => {
    const lines = readFileSync(join(__dirname, '..', 'data', 'traces', 'mooncake-conversation-200.jsonl'), 'utf8').trim().split('\n').slice(0, 11);
    const lengths = lines.map((l) => (JSON.parse(l) as { input_length: number }).input_length);
    const f = join(tmpDir(), 'slice.jsonl');
    writeFileSync(f, lines.join('\n') + '\n');
    const dir = join(tmpDir(), 'replay');
    const c = capture();
    expect(await main(['run', '--replay', f, '--replay-speed', '100', '--sim-time-scale', '200', '--no-server-metrics', '--quiet', '--out', dir], c.io), c.err).toBe(0);
    const bands = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')).by_length_band as Bands;
    // The default bands, counted from the trace itself (0-4k, 4k-16k, 16k-32k; the slice has nothing over 32k).
    const expected: Record<string, number> = {};
    for (const n of lengths) {
      const label = n < 4096 ? '0-4k' : n < 16384 ? '4k-16k' : n < 32768 ? '16k-32k' : '32k+';
      expected[label] = (expected[label] ?? 0) + 1;
    }
    expect(Object.keys(expected).length).toBeGreaterThanOrEqual(3);
    expect(Object.fromEntries(Object.entries(bands).map(([k, v]) => [k, v.requests.total]))).toEqual(expected);
    expect(Object.values(bands).reduce((a, b) => a + b.requests.ok, 0)).toBe(lines.length);
  }, 120_000);
});
