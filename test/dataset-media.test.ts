// Datasets with media: local images/audio read, checked and hashed; remote URLs only for --media-hosts; bad media exit 2.
import { describe, it, expect, beforeAll } from 'vitest';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadDataset } from '../src/dataset/load.js';
import { sniffMedia } from '../src/dataset/media-sniff.js';
import { createDatasetWorkload } from '../src/dataset/dataset-workload.js';
import { RunConfigSchema } from '../src/config/schema.js';
import { loadTokenizer } from '../src/dataset/tokenizer.js';
import { createRng } from '../src/util/rng.js';
import { UsageError } from '../src/errors.js';
import { tmpDir } from './helpers.js';
import { pngBytes, wavBytes } from './fixtures/media-files.js';

const CLI = join(__dirname, '..', 'dist', 'bin', 'tokenflood.js');
let dir: string;
const png = pngBytes(64, 48);
const wav = wavBytes(0.5);

function write(name: string, lines: unknown[]): string {
  const f = join(dir, name);
  writeFileSync(f, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return f;
}
function problems(f: () => unknown): string[] {
  try {
    f();
  } catch (e) {
    if (e instanceof UsageError) return e.problems;
    throw e;
  }
  return [];
}

beforeAll(() => {
  dir = tmpDir('tf-media-');
  mkdirSync(join(dir, 'img'));
  writeFileSync(join(dir, 'img', 'a.png'), png);
  writeFileSync(join(dir, 'clip.wav'), wav);
  writeFileSync(join(dir, 'fake.png'), 'this is text, not a picture\n');
});

describe('media sniffing', () => {
  it('reads PNG dimensions and WAV length from their headers; text is refused', () => {
    expect(sniffMedia(png)).toMatchObject({ kind: 'image', mime: 'image/png', width: 64, height: 48 });
    expect(sniffMedia(wav)).toMatchObject({ kind: 'audio', mime: 'audio/wav', sampleRate: 16000, channels: 1 });
    expect((sniffMedia(wav) as { seconds: number }).seconds).toBeCloseTo(0.5, 6);
    expect(sniffMedia(Buffer.from('hello'))).toMatch(/not a PNG, JPEG/);
  });
});

describe('datasets with media', () => {
  it('JSONL images (local and an allowed URL) and audio become RequestSpec.media, hashed, one buffer per file', () => {
    const f = write('mm.jsonl', [
      { prompt: 'describe', images: ['img/a.png', 'https://cdn.example.com/x.jpg'], audio: 'clip.wav' },
      { prompt: 'again', image: 'img/a.png' },
    ]);
    const d = loadDataset(f, { media: { hosts: ['cdn.example.com'] } });
    const m = d.items[0].turns[0].media!;
    expect(m.map((p) => p.kind)).toEqual(['image', 'image', 'audio']);
    expect(m[0]).toMatchObject({ mime: 'image/png', width: 64, height: 48, hash: createHash('sha256').update(png).digest('hex') });
    expect(Buffer.from(m[0].data!).equals(png)).toBe(true);
    expect(m[1]).toMatchObject({ url: 'https://cdn.example.com/x.jpg', mime: 'image/jpeg', hash: createHash('sha256').update('https://cdn.example.com/x.jpg').digest('hex') });
    expect(m[1].data).toBeUndefined();
    expect(m[2]).toMatchObject({ kind: 'audio', mime: 'audio/wav', sampleRate: 16000 });
    expect(d.items[1].turns[0].media![0]).toBe(m[0]);
  });

  it('LLaVA conversations: <image> is stripped and the image joins its turn; OpenAI image_url parts are read too', () => {
    const f = write('llava.jsonl', [
      { id: '1', image: 'img/a.png', conversations: [{ from: 'human', value: '<image>\nWhat is this?' }, { from: 'gpt', value: 'A red square.' }] },
      { messages: [{ role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } }] }] },
      { conversation: [[{ role: 'user', content: 'arena question' }, { role: 'assistant', content: 'answer' }]], images: ['img/a.png'] },
    ]);
    const d = loadDataset(f);
    expect(d.problems).toEqual([]);
    expect(d.items[0].turns[0].messages).toEqual([{ role: 'user', content: 'What is this?' }]);
    expect(d.items[0].turns[0].media![0]).toMatchObject({ width: 64, height: 48 });
    expect(d.items[1].turns[0].messages[0].content).toBe('look');
    expect(d.items[1].turns[0].media![0]).toMatchObject({ mime: 'image/png', width: 64 });
    expect(d.items[2].turns[0].messages[0].content).toBe('arena question');
    expect(d.items[2].turns[0].media).toHaveLength(1);
  });

  it('the dataset workload hands the media to the request', async () => {
    const f = write('wl.jsonl', [{ prompt: 'describe', images: ['img/a.png'] }]);
    const c = RunConfigSchema.parse({ dataset: f });
    const w = createDatasetWorkload(c, loadTokenizer('cl100k_base'), createRng(1));
    const spec = await w.next(0);
    expect(spec?.media?.[0]).toMatchObject({ kind: 'image', width: 64, height: 48 });
  });

  it('a conversation sends each turn with its own media (<image> in the second human turn)', async () => {
    const f = write('conv.jsonl', [
      { image: 'img/a.png', conversations: [{ from: 'human', value: 'hello' }, { from: 'gpt', value: 'hi' }, { from: 'human', value: '<image>\nand this?' }, { from: 'gpt', value: 'a square' }] },
    ]);
    const c = RunConfigSchema.parse({ dataset: f, concurrency: 1 });
    const w = createDatasetWorkload(c, loadTokenizer('cl100k_base'), createRng(1));
    const first = (await w.next(0))!;
    expect(first.media).toBeUndefined();
    w.complete?.({ spec: first, ok: true, answerText: 'hi', reasoningText: '', record: { output_tokens: null, reasoning_tokens: null, token_source: 'none' } as never });
    const second = (await w.next(1))!;
    expect(second.turn).toBe(1);
    expect(second.messages[second.messages.length - 1]).toEqual({ role: 'user', content: 'and this?' });
    expect(second.media?.map((m) => [m.kind, m.width, m.height])).toEqual([['image', 64, 48]]);
  });

  it('bad media: text named .png, a URL to an unlisted host, a file over the limit, wrong kind — each names file:line', () => {
    const f = write('bad.jsonl', [
      { prompt: 'ok', images: ['img/a.png'] },
      { prompt: 'fake', images: ['fake.png'] },
      { prompt: 'remote', image: 'https://evil.example.org/p.png' },
      { prompt: 'kind', audio: 'img/a.png' },
      { prompt: 'missing', image: 'nope.png' },
    ]);
    const p = problems(() => loadDataset(f, { media: { hosts: ['cdn.example.com'] } }));
    expect(p).toHaveLength(4);
    expect(p[0]).toMatch(/bad\.jsonl:2: images\[0\] "fake\.png": not a PNG, JPEG/);
    expect(p[1]).toMatch(/bad\.jsonl:3: image "https:\/\/evil\.example\.org\/p\.png": host evil\.example\.org is not in --media-hosts/);
    expect(p[2]).toMatch(/bad\.jsonl:4: audio "img\/a\.png": is image\/png, not audio/);
    expect(p[3]).toMatch(/bad\.jsonl:5: image "nope\.png": cannot read/);
    const big = problems(() => loadDataset(write('big.jsonl', [{ prompt: 'x', image: 'img/a.png' }]), { media: { maxBytes: 100 } }));
    expect(big[0]).toMatch(/big\.jsonl:1: image "img\/a\.png": \d+ bytes is over --max-media-bytes 100/);
  });

  it('CLI: a run with bad media exits 2 naming file:line before anything is sent; --media-hosts lets a URL through', () => {
    const f = write('cli-bad.jsonl', [{ prompt: 'fake', images: ['fake.png'] }]);
    const r = spawnSync(process.execPath, [CLI, 'run', '--base-url', 'http://127.0.0.1:9', '--dataset', f, '--requests', '1'], { encoding: 'utf8', timeout: 20_000 });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/cli-bad\.jsonl:1: images\[0\] "fake\.png": not a PNG/);
    const u = write('cli-url.jsonl', [{ prompt: 'remote', image: 'https://img.example.net/a.png' }]);
    const bad = spawnSync(process.execPath, [CLI, 'dataset', 'stats', u], { encoding: 'utf8', timeout: 20_000 });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/cli-url\.jsonl:1: image .*host img\.example\.net is not in --media-hosts/);
    const ok = spawnSync(process.execPath, [CLI, 'dataset', 'stats', u, '--media-hosts', 'img.example.net', '--json'], { encoding: 'utf8', timeout: 20_000 });
    expect(ok.status).toBe(0);
    expect(JSON.parse(ok.stdout).media).toMatchObject({ images: 1, remote_urls: 1, media_bytes: 0 });
  }, 40_000);

  it('dataset stats counts images per request, bytes and dimensions', () => {
    writeFileSync(join(dir, 'img', 'b.png'), pngBytes(10, 200));
    const f = write('stats.jsonl', [
      { prompt: 'two', images: ['img/a.png', 'img/b.png'] },
      { prompt: 'one', images: ['img/a.png'], audio: 'clip.wav' },
      { prompt: 'none' },
    ]);
    const r = spawnSync(process.execPath, [CLI, 'dataset', 'stats', f, '--json'], { encoding: 'utf8', timeout: 20_000 });
    expect(r.status).toBe(0);
    const m = JSON.parse(r.stdout).media;
    const b = pngBytes(10, 200).length;
    expect(m).toMatchObject({ requests_with_media: 2, images: 3, audio: 1, images_per_request: { max: 2 }, distinct: 3, image_width: { min: 10, max: 64 }, image_height: { min: 48, max: 200 } });
    expect(m.images_per_request.mean).toBeCloseTo(1, 9);
    expect(m.media_bytes).toBe(2 * png.length + b + wav.length);
    expect(m.audio_seconds).toBeCloseTo(0.5, 6);
    const text = spawnSync(process.execPath, [CLI, 'dataset', 'stats', f], { encoding: 'utf8', timeout: 20_000 });
    expect(text.stdout).toMatch(/media: 2 requests carry media: 3 images \(1\.00 per request, max 2\)/);
  }, 40_000);
});
