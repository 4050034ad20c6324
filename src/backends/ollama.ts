// Ollama's native API: /api/chat (chat) and /api/generate (completions), NDJSON, with its server-side timings in ns.
import type { Backend, BodyOptions, ChunkInfo } from './backend.js';
import type { RequestSpec } from '../dataset/types.js';
import { errorEvent, kindOf, openEvent, obj, str, type Json } from './native-common.js';
import { ollamaImages } from './media-content.js';
import { nsToMs, serverNumber, compactTimings } from '../metrics/server-timings.js';

function body(spec: RequestSpec, o: BodyOptions, prompt: Json): Json {
  // Ollama takes sampling under `options`, max tokens as num_predict; it has no ignore_eos.
  const options: Json = { num_predict: spec.maxTokens };
  if (o.temperature !== undefined) options.temperature = o.temperature;
  if (o.topP !== undefined) options.top_p = o.topP;
  if (o.topK !== undefined) options.top_k = o.topK;
  if (o.seed !== undefined) options.seed = o.seed;
  const b: Json = { model: o.model, stream: o.stream, ...prompt, options };
  if (o.extraBody) Object.assign(b, o.extraBody);
  return b;
}

/** The last user message carries the images (Ollama's `images`: base64 strings beside the text). */
function withImages(messages: RequestSpec['messages'], images: string[]): Json[] {
  let last = -1;
  messages.forEach((m, i) => m.role === 'user' && (last = i));
  return messages.map((m, i) => (i === last ? { ...m, images } : { ...m }));
}

/**
 * One NDJSON line (or a whole non-streamed body): text in message.content (/api/chat) or response (/api/generate),
 * reasoning in message.thinking or thinking; the `done: true` line carries the counts and durations.
 */
export function classifyOllama(data: string): ChunkInfo {
  const { info, o } = openEvent(data);
  if (!o) return info;
  const m = obj(o.message);
  info.answer = str(m?.content) || str(o.response);
  info.reasoning = str(m?.thinking) || str(o.thinking);
  if (o.done === true) {
    if (typeof o.done_reason === 'string') info.finishReason = o.done_reason;
    if (o.prompt_eval_count !== undefined || o.eval_count !== undefined)
      info.usage = { prompt_tokens: o.prompt_eval_count, completion_tokens: o.eval_count, reasoning_tokens: undefined, cached_tokens: undefined };
    info.server = compactTimings({
      server_prompt_tokens: serverNumber(o.prompt_eval_count),
      server_prompt_eval_ms: nsToMs(o.prompt_eval_duration),
      server_eval_tokens: serverNumber(o.eval_count),
      server_eval_ms: nsToMs(o.eval_duration),
      server_load_ms: nsToMs(o.load_duration),
      server_total_ms: nsToMs(o.total_duration),
    });
  }
  // The done line may carry the last text too; otherwise it is the end of the stream.
  info.kind = kindOf(info, o.done === true ? 'd' : 'r');
  if (o.done === true && info.kind !== 'a' && info.kind !== 'R') info.kind = 'd';
  if (o.done === true) info.ended = true;
  return info;
}

export const ollama: Backend = {
  kind: 'ollama',
  path: '/api/chat',
  endpoint: 'chat',
  framing: 'ndjson',
  media: ['image'],
  buildBody: (spec, o) => body(spec, o, { messages: spec.media?.length ? withImages(spec.messages, ollamaImages(spec.media)) : spec.messages }),
  classifyData: classifyOllama,
  classifyErrorEvent: errorEvent,
  endEvent: '"done": true',
};

export const ollamaGenerate: Backend = {
  kind: 'ollama-generate',
  path: '/api/generate',
  endpoint: 'completions',
  framing: 'ndjson',
  media: ['image'],
  buildBody: (spec, o) => body(spec, o, spec.media?.length ? { prompt: spec.prompt, images: ollamaImages(spec.media) } : { prompt: spec.prompt }),
  classifyData: classifyOllama,
  classifyErrorEvent: errorEvent,
  endEvent: '"done": true',
};
