// /v1/audio/transcriptions on the sim server (OpenAI's shape): a multipart form with a WAV/MP3 `file`; the reply is
// {text, usage} or, with stream=true, SSE `transcript.text.delta` events then one `transcript.text.done`.
import type { ServerResponse } from 'node:http';
import type { Rng } from '../../util/rng.js';
import type { Session } from './session.js';
import type { TextSource } from './text.js';
import { audioHeader } from '../media-header.js';
import { multipartBoundary, parseMultipart } from './multipart.js';

/** Decoder prompt of a transcription: <|startoftranscript|><|lang|><|transcribe|><|notimestamps|>. */
export const TRANSCRIBE_PROMPT_TOKENS = 4;
/** Transcript length the sim generates: ~3 tokens a second of speech (~150 words a minute). */
export const TRANSCRIPT_TOKENS_PER_SEC = 3;

export interface TranscriptionRequest {
  audio: Buffer;
  seconds: number;
  model?: string;
  stream: boolean;
  responseFormat: string;
}

export type TranscriptionParse = { ok: true; value: TranscriptionRequest } | { ok: false; message: string };

export function parseTranscription(contentType: string | undefined, body: Buffer): TranscriptionParse {
  const boundary = multipartBoundary(contentType);
  if (!boundary) return { ok: false, message: 'expected a multipart/form-data body with a boundary' };
  let parts;
  try {
    parts = parseMultipart(body, boundary);
  } catch (e) {
    return { ok: false, message: (e as Error).message };
  }
  const field = (n: string): string | undefined => parts.find((p) => p.name === n && p.filename === undefined)?.data.toString('utf8');
  const file = parts.find((p) => p.name === 'file');
  if (!file) return { ok: false, message: 'file: required (the audio to transcribe)' };
  const a = audioHeader(file.data);
  if (!a) return { ok: false, message: `file${file.filename ? ` ${JSON.stringify(file.filename)}` : ''}: not a WAV or MP3 clip` };
  const format = field('response_format') ?? 'json';
  if (!['json', 'text', 'verbose_json'].includes(format)) return { ok: false, message: `response_format: ${JSON.stringify(format)} is not one of json, text, verbose_json` };
  return { ok: true, value: { audio: file.data, seconds: a.seconds, model: field('model'), stream: field('stream') === 'true', responseFormat: format } };
}

export interface TranscriptionUsage {
  type: 'tokens';
  input_tokens: number;
  input_token_details: { text_tokens: number; audio_tokens: number };
  output_tokens: number;
  total_tokens: number;
}

/** A Session (see session.ts) that writes a transcription instead of a chat completion. */
export function createTranscriptionSession(o: {
  res: ServerResponse; stream: boolean; responseFormat: string; seconds: number; text: TextSource; rng: Rng; usage: TranscriptionUsage; onClose?: () => void;
}): Session {
  const { res } = o;
  let text = '';
  let finished = false;
  let closed = false;
  const sse = (x: unknown): void => void res.write(`data: ${JSON.stringify(x)}\n\n`);
  return {
    open() {
      if (!o.stream) return;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      res.flushHeaders();
    },
    setCachedTokens() {},
    done: () => finished || closed,
    close() {
      if (closed) return;
      closed = true;
      if (!res.writableEnded) res.end();
    },
    token(index, last) {
      if (closed || finished) return;
      const piece = o.text.next(o.rng, index - 1);
      // The transcript starts without the word-token's leading space.
      const delta = index === 1 ? piece.trimStart() : piece;
      text += delta;
      if (o.stream) sse({ type: 'transcript.text.delta', delta });
      if (!last) return;
      finished = true;
      if (o.stream) {
        sse({ type: 'transcript.text.done', text, usage: o.usage });
        res.end();
        return;
      }
      const body =
        o.responseFormat === 'text'
          ? text
          : JSON.stringify(o.responseFormat === 'verbose_json' ? { task: 'transcribe', language: 'english', duration: o.seconds, text, usage: o.usage } : { text, usage: o.usage });
      res.writeHead(200, { 'content-type': o.responseFormat === 'text' ? 'text/plain; charset=utf-8' : 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    },
  };
}
