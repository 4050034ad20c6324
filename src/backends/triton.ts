// Triton's generate extension (POST /v2/models/{model}/generate_stream, SSE), as TensorRT-LLM's ensemble names its fields.
import type { Backend, ChunkInfo } from './backend.js';
import { errorEvent, kindOf, openEvent, str } from './native-common.js';

/**
 * One event: `text_output` is the new text (TensorRT-LLM streams deltas). Triton reports no usage or timings in the
 * stream, so token counts come from the run's tokenizer.
 */
export function classifyTriton(data: string): ChunkInfo {
  const { info, o } = openEvent(data);
  if (!o) return info;
  info.answer = str(o.text_output);
  info.kind = kindOf(info, 'r');
  return info;
}

export const triton: Backend = {
  kind: 'triton',
  path: '/v2/models/ensemble/generate_stream',
  pathFor: (model) => `/v2/models/${encodeURIComponent(model)}/generate_stream`,
  endpoint: 'completions',
  streamOnly: true,
  buildBody(spec, o) {
    // TensorRT-LLM ensemble inputs: text_input, max_tokens, stream; sampling as temperature, top_p, top_k, random_seed.
    const b: Record<string, unknown> = { text_input: spec.prompt, max_tokens: spec.maxTokens, stream: o.stream, bad_words: '', stop_words: '' };
    if (o.temperature !== undefined) b.temperature = o.temperature;
    if (o.topP !== undefined) b.top_p = o.topP;
    if (o.topK !== undefined) b.top_k = o.topK;
    if (o.seed !== undefined) b.random_seed = o.seed;
    if (o.extraBody) Object.assign(b, o.extraBody);
    return b;
  },
  classifyData: classifyTriton,
  classifyErrorEvent: errorEvent,
};
