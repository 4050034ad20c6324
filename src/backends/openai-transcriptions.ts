// OpenAI speech-to-text (POST /audio/transcriptions): the request's first audio part uploaded as multipart/form-data;
// streamed `transcript.text.delta` events are the answer (TTFT at the first one), `transcript.text.done` ends it.
import type { Backend, BodyOptions, ChunkInfo } from './backend.js';
import type { MediaPart, RequestSpec } from '../dataset/types.js';
import type { UsageReport } from './usage.js';
import { UsageError } from '../errors.js';
import { classifyErrorEvent, sseEventObject } from './openai-common.js';
import { blankInfo, obj, str } from './native-common.js';

/** Fixed multipart boundary (the header is set once per endpoint); 38 random-looking bytes never met in practice. */
export const BOUNDARY = 'tokenflood-7f3a9c21e5b84d06a1c9e2f47b';

const EXT: Record<string, string> = { 'audio/wav': 'wav', 'audio/x-wav': 'wav', 'audio/mpeg': 'mp3', 'audio/mp3': 'mp3', 'audio/flac': 'flac', 'audio/ogg': 'ogg', 'audio/webm': 'webm', 'audio/mp4': 'm4a' };

/** The audio a request uploads: its first audio part with bytes; a request without one cannot be sent (exit 2). */
export function audioOf(spec: RequestSpec): MediaPart & { data: Uint8Array } {
  const a = spec.media?.find((m) => m.kind === 'audio' && m.data !== undefined);
  if (!a)
    throw new UsageError([
      `--backend openai-transcriptions: the request${spec.source ? ` from ${spec.source}` : ''} has no audio to upload (give a dataset with "audio" files, or synthetic audio with --audio-seconds)`,
    ]);
  return a as MediaPart & { data: Uint8Array };
}

const field = (name: string, value: string): string => `--${BOUNDARY}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;

/**
 * The multipart body: `file` (the audio, named audio.<ext>), `model`, `stream` (true when streaming), `response_format`
 * json, the sampling fields the API takes (temperature), and --extra-body keys as further text fields (objects as JSON).
 */
export function transcriptionBody(spec: RequestSpec, o: BodyOptions): Uint8Array {
  const a = audioOf(spec);
  let head = field('model', o.model) + field('response_format', 'json');
  if (o.stream) head += field('stream', 'true');
  if (o.temperature !== undefined) head += field('temperature', String(o.temperature));
  for (const [k, v] of Object.entries(o.extraBody ?? {})) head += field(k, typeof v === 'string' ? v : JSON.stringify(v));
  const ext = EXT[a.mime] ?? 'wav';
  head += `--${BOUNDARY}\r\ncontent-disposition: form-data; name="file"; filename="audio.${ext}"\r\ncontent-type: ${a.mime}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'utf8'), a.data, Buffer.from(`\r\n--${BOUNDARY}--\r\n`, 'latin1')]);
}

/** Transcription usage: `{type: "tokens", input_tokens, output_tokens}` (gpt-4o-transcribe); `{type: "duration"}` has no tokens. */
function transcriptionUsage(u: unknown): UsageReport | null {
  const o = obj(u);
  if (!o || o.input_tokens === undefined) return null;
  return { prompt_tokens: o.input_tokens, completion_tokens: o.output_tokens, reasoning_tokens: undefined, cached_tokens: undefined };
}

/** One event: text delta → answer; text done → end of stream with usage; error → error; a whole JSON body `{text}` → answer. */
export function classifyTranscription(data: string, event?: string): ChunkInfo {
  const info = blankInfo();
  const o = sseEventObject(data, info);
  if (!o) return info;
  const type = str(o.type) || (event ?? '');
  if (type === 'transcript.text.delta') {
    info.answer = str(o.delta);
    info.kind = info.answer ? 'a' : 'r';
  } else if (type === 'transcript.text.done') {
    info.kind = 'd';
    info.ended = true;
    info.usage = transcriptionUsage(o.usage);
    info.finishReason = 'stop';
  } else if (o.error !== undefined && o.error !== null) {
    info.kind = 'e';
    const e = obj(o.error);
    info.error = e && typeof e.message === 'string' ? e.message : JSON.stringify(o.error).slice(0, 200);
  } else if (typeof o.text === 'string') {
    // Not streamed: the whole transcription.
    info.answer = o.text;
    info.usage = transcriptionUsage(o.usage);
    info.finishReason = 'stop';
    info.kind = info.answer ? 'a' : info.usage ? 'u' : 'x';
  } else info.kind = 'r';
  return info;
}

export const openaiTranscriptions: Backend = {
  kind: 'openai-transcriptions',
  path: '/audio/transcriptions',
  endpoint: 'chat',
  contentType: `multipart/form-data; boundary=${BOUNDARY}`,
  // The form's text fields, for anything that shows a body; what is sent is encodeBody's multipart bytes.
  buildBody: (_spec, o) => ({ model: o.model, response_format: 'json', ...(o.stream ? { stream: true } : {}) }),
  encodeBody: transcriptionBody,
  classifyData: classifyTranscription,
  classifyErrorEvent,
  endEvent: 'transcript.text.done',
};
