// llama.cpp's native completion API (POST /completion, SSE): `content` per event, the `stop: true` event carries `timings`.
import type { Backend, ChunkInfo } from './backend.js';
import { eosExtensions, errorEvent, kindOf, openEvent, obj, sampling, str } from './native-common.js';
import { serverNumber, compactTimings } from '../metrics/server-timings.js';

/** The stop reason under llama.cpp's names (stop_type eos|limit|word, or the older stopped_* flags) as OpenAI's. */
function finishOf(o: Record<string, unknown>): string | null {
  const t = o.stop_type;
  if (t === 'limit' || o.stopped_limit === true) return 'length';
  if (t === 'eos' || t === 'word' || o.stopped_eos === true || o.stopped_word === true) return 'stop';
  return typeof t === 'string' ? t : null;
}

export function classifyLlamacpp(data: string): ChunkInfo {
  const { info, o } = openEvent(data);
  if (!o) return info;
  info.answer = str(o.content);
  info.reasoning = str(o.reasoning_content);
  if (o.stop === true) {
    info.ended = true;
    info.finishReason = finishOf(o);
    if (o.tokens_evaluated !== undefined || o.tokens_predicted !== undefined)
      info.usage = { prompt_tokens: o.tokens_evaluated, completion_tokens: o.tokens_predicted, reasoning_tokens: undefined, cached_tokens: o.tokens_cached };
    const t = obj(o.timings);
    if (t)
      info.server = compactTimings({
        server_prompt_tokens: serverNumber(t.prompt_n),
        server_prompt_eval_ms: serverNumber(t.prompt_ms),
        server_eval_tokens: serverNumber(t.predicted_n),
        server_eval_ms: serverNumber(t.predicted_ms),
        server_cached_tokens: serverNumber(t.cache_n),
        server_prompt_per_s: serverNumber(t.prompt_per_second),
        server_predicted_per_s: serverNumber(t.predicted_per_second),
      });
  }
  info.kind = kindOf(info, 'r');
  return info;
}

export const llamacpp: Backend = {
  kind: 'llamacpp',
  path: '/completion',
  endpoint: 'completions',
  buildBody(spec, o) {
    const b: Record<string, unknown> = { prompt: spec.prompt, n_predict: spec.maxTokens, stream: o.stream, cache_prompt: true, ...sampling(o) };
    if (eosExtensions(spec, o).ignore_eos) b.ignore_eos = true; // llama.cpp has no min_tokens
    if (o.extraBody) Object.assign(b, o.extraBody);
    return b;
  },
  classifyData: classifyLlamacpp,
  classifyErrorEvent: errorEvent,
  endEvent: '"stop": true',
};
