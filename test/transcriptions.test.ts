// --backend openai-transcriptions: the dataset's WAV uploaded as multipart/form-data on both transports, decoded by a
// scripted server; streamed transcript.text.delta events give TTFT at the first delta, transcript.text.done ends it.
import { describe, it, expect, afterEach, beforeAll } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../src/run.js';
import { startScriptServer, type ScriptServer } from './fixtures/script-server.js';
import { wavBytes } from './fixtures/media-files.js';
import { sniffMedia } from '../src/dataset/media-sniff.js';
import { tmpDir } from './helpers.js';

let server: ScriptServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

let dataset: string;
let textOnly: string;
const wav = wavBytes(0.25);
beforeAll(() => {
  const dir = tmpDir('tf-asr-');
  writeFileSync(join(dir, 'clip.wav'), wav);
  dataset = join(dir, 'asr.jsonl');
  writeFileSync(dataset, JSON.stringify({ prompt: 'transcribe', audio: 'clip.wav' }) + '\n');
  textOnly = join(dir, 'text.jsonl');
  writeFileSync(textOnly, JSON.stringify({ prompt: 'no audio here' }) + '\n');
});

/** Parse a multipart/form-data body with the boundary from its content-type: name → {filename, type, bytes}. */
function parseMultipart(body: Buffer, contentType: string): Map<string, { filename?: string; type?: string; bytes: Buffer }> {
  const boundary = /boundary=([^;]+)/.exec(contentType)?.[1];
  if (!boundary) throw new Error(`no boundary in ${contentType}`);
  const out = new Map<string, { filename?: string; type?: string; bytes: Buffer }>();
  const sep = Buffer.from(`--${boundary}`);
  let at = body.indexOf(sep);
  while (at >= 0) {
    const start = at + sep.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const next = body.indexOf(sep, start);
    const part = body.subarray(start + 2, next - 2); // skip CRLF after the boundary, drop CRLF before the next
    const headEnd = part.indexOf('\r\n\r\n');
    const head = part.subarray(0, headEnd).toString('utf8');
    const name = /name="([^"]+)"/.exec(head)?.[1] ?? '';
    out.set(name, { filename: /filename="([^"]+)"/.exec(head)?.[1], type: /content-type: (\S+)/i.exec(head)?.[1], bytes: part.subarray(headEnd + 4) });
    at = next;
  }
  return out;
}

const header = (raw: string[], name: string): string => {
  for (let i = 0; i < raw.length; i += 2) if (raw[i].toLowerCase() === name) return raw[i + 1];
  return '';
};
const sse = (o: unknown): string => `data: ${JSON.stringify(o)}\n\n`;

describe.each(['h1', 'undici'] as const)('openai-transcriptions (%s)', (transport) => {
  it('streams: uploads a valid WAV with model and stream=true; TTFT at the first text delta; usage from text.done', async () => {
    server = await startScriptServer(() => ({
      steps: [
        { at: 0, write: sse({ type: 'other.event' }) },
        { at: 120, write: sse({ type: 'transcript.text.delta', delta: 'hello' }) },
        { at: 180, write: sse({ type: 'transcript.text.delta', delta: ' world' }) },
        { at: 200, write: sse({ type: 'transcript.text.done', text: 'hello world', usage: { type: 'tokens', input_tokens: 14, output_tokens: 3, total_tokens: 17 } }) },
      ],
    }));
    const res = await run({ baseUrl: server.baseUrl, backend: 'openai-transcriptions', dataset, requests: 1, concurrency: 1, out: tmpDir(), quiet: true, transport, serverMetrics: false, model: 'whisper-large-v3' });
    expect(server.urls[0]).toBe('/v1/audio/transcriptions');
    const form = parseMultipart(server.rawBodies[0], header(server.rawHeaders[0], 'content-type'));
    expect(form.get('model')?.bytes.toString()).toBe('whisper-large-v3');
    expect(form.get('stream')?.bytes.toString()).toBe('true');
    const file = form.get('file')!;
    expect(file).toMatchObject({ filename: 'audio.wav', type: 'audio/wav' });
    expect(file.bytes.equals(wav)).toBe(true);
    const s = sniffMedia(file.bytes) as { seconds: number; sampleRate: number };
    expect(s.seconds).toBeCloseTo(0.25, 6);
    const r = res.records[0];
    expect(r.status).toBe('ok');
    expect(r.ttft_ms!).toBeGreaterThanOrEqual(110); // the server writes its first delta at 120 ms; timers may fire a little early
    expect(r.ttft_ms!).toBeLessThan(120 + 250);
    expect(r.output_tokens).toBe(3);
    expect(r.input_tokens).toBe(14);
    expect(r.answer_chars).toBe('hello world'.length);
  }, 30_000);

  it('not streamed: a JSON {text} answer; no stream field sent', async () => {
    server = await startScriptServer(() => ({ headers: { 'content-type': 'application/json' }, steps: [{ at: 30, write: JSON.stringify({ text: 'a short transcript' }) }] }));
    const res = await run({ baseUrl: server.baseUrl, backend: 'openai-transcriptions', dataset, requests: 1, concurrency: 1, stream: false, out: tmpDir(), quiet: true, transport, serverMetrics: false });
    const form = parseMultipart(server.rawBodies[0], header(server.rawHeaders[0], 'content-type'));
    expect(form.has('stream')).toBe(false);
    expect(form.get('file')!.bytes.equals(wav)).toBe(true);
    expect(res.records[0]).toMatchObject({ status: 'ok', answer_chars: 'a short transcript'.length });
  }, 30_000);
});

describe('openai-transcriptions through worker threads', () => {
  it('the multipart bytes cross to the worker intact (--workers 2)', async () => {
    server = await startScriptServer(() => ({ steps: [{ at: 5, write: sse({ type: 'transcript.text.delta', delta: 'hi' }) }, { at: 10, write: sse({ type: 'transcript.text.done', text: 'hi' }) }] }));
    const res = await run({ baseUrl: server.baseUrl, backend: 'openai-transcriptions', dataset, requests: 4, concurrency: 2, workers: 2, out: tmpDir(), quiet: true, serverMetrics: false });
    expect(res.records.map((r) => r.status)).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(server.rawBodies).toHaveLength(4);
    for (let i = 0; i < 4; i++) expect(parseMultipart(server.rawBodies[i], header(server.rawHeaders[i], 'content-type')).get('file')!.bytes.equals(wav)).toBe(true);
  }, 30_000);
});

describe('openai-transcriptions without audio', () => {
  it('refuses a request with no audio before anything is sent', async () => {
    server = await startScriptServer(() => ({ steps: [] }));
    await expect(run({ baseUrl: server.baseUrl, backend: 'openai-transcriptions', dataset: textOnly, requests: 1, concurrency: 1, out: tmpDir(), quiet: true, serverMetrics: false })).rejects.toThrow(/has no audio to upload/);
    expect(server.rawBodies).toHaveLength(0);
  }, 30_000);
});
