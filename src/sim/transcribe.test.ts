// Sim /v1/audio/transcriptions over real HTTP (multipart upload of a WAV), whisper-large-v3.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServerHandle } from './server.js';
import { wavBytes } from './media-fixtures.js';
import { parseMultipart } from './http/multipart.js';

function form(wav: Buffer, fields: Record<string, string>): FormData {
  const f = new FormData();
  f.append('file', new Blob([wav], { type: 'audio/wav' }), 'clip.wav');
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  return f;
}

async function metric(base: string, name: string): Promise<number> {
  const text = await (await fetch(base.replace(/\/v1$/, '/metrics'))).text();
  return Number(text.split('\n').find((l) => l.startsWith(`${name}{`))?.split(' ').pop());
}

describe('sim /v1/audio/transcriptions', () => {
  let sim: SimServerHandle;
  beforeAll(async () => {
    sim = await startSimServer({ port: 0, modelProfile: 'whisper-large-v3', gpu: 'h100' });
  });
  afterAll(() => sim.close());

  it('non-streaming: {text, usage} with the clip\'s audio tokens (1,500 per 30 s window)', async () => {
    const r = await fetch(`${sim.baseUrl}/audio/transcriptions`, { method: 'POST', body: form(wavBytes(5), { model: 'whisper-large-v3' }) });
    expect(r.status).toBe(200);
    const body = (await r.json()) as { text: string; usage: { input_token_details: { audio_tokens: number }; output_tokens: number } };
    expect(body.text.length).toBeGreaterThan(0);
    expect(body.usage.input_token_details.audio_tokens).toBe(1500);
    expect(body.usage.output_tokens).toBe(15); // 5 s x 3 tokens/s
  });

  it('stream=true: transcript.text.delta events, then transcript.text.done with the whole text', async () => {
    const r = await fetch(`${sim.baseUrl}/audio/transcriptions`, { method: 'POST', body: form(wavBytes(3, 8000), { stream: 'true' }) });
    expect(r.headers.get('content-type')).toContain('text/event-stream');
    const events = (await r.text()).split('\n\n').filter((e) => e.startsWith('data: ')).map((e) => JSON.parse(e.slice(6)) as { type: string; delta?: string; text?: string });
    const deltas = events.filter((e) => e.type === 'transcript.text.delta');
    expect(deltas.length).toBe(9);
    expect(events.at(-1)!.type).toBe('transcript.text.done');
    expect(events.at(-1)!.text).toBe(deltas.map((d) => d.delta).join(''));
  });

  it('the encoder runs once per distinct clip (cache by content hash)', async () => {
    const wav = wavBytes(2, 16000, 2);
    const q0 = await metric(sim.baseUrl, 'tokenflood_sim_mm_cache_queries_total');
    const h0 = await metric(sim.baseUrl, 'tokenflood_sim_mm_cache_hits_total');
    for (let i = 0; i < 2; i++) await (await fetch(`${sim.baseUrl}/audio/transcriptions`, { method: 'POST', body: form(wav, {}) })).text();
    expect(await metric(sim.baseUrl, 'tokenflood_sim_mm_cache_queries_total')).toBe(q0 + 2);
    expect(await metric(sim.baseUrl, 'tokenflood_sim_mm_cache_hits_total')).toBe(h0 + 1);
  });

  it('bad uploads are 400s naming the problem', async () => {
    const f = new FormData();
    f.append('file', new Blob([Buffer.from('not audio at all, sorry')]), 'x.wav');
    const r = await fetch(`${sim.baseUrl}/audio/transcriptions`, { method: 'POST', body: f });
    expect(r.status).toBe(400);
    expect(await r.text()).toContain('file \\"x.wav\\": not a WAV or MP3 clip');
    const j = await fetch(`${sim.baseUrl}/audio/transcriptions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(j.status).toBe(400);
  });

  it('multipart reader: fields and file bytes', () => {
    const body = Buffer.from('--b\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper\r\n--b\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\n\x00\x01\r\n--b--\r\n', 'latin1');
    const parts = parseMultipart(body, 'b');
    expect(parts.map((p) => [p.name, p.filename, p.data.length])).toEqual([['model', undefined, 7], ['file', 'a.wav', 2]]);
  });
});
