// Hugging Face TGI's native API (POST /generate_stream, SSE): one token per event, `details` on the last one.
import type { Backend, ChunkInfo } from './backend.js';
import { errorEvent, kindOf, openEvent, obj, sampling, str } from './native-common.js';
import { serverNumber, compactTimings } from '../metrics/server-timings.js';

/** TGI's finish reasons (length, eos_token, stop_sequence) under OpenAI's names. */
const FINISH: Record<string, string> = { length: 'length', eos_token: 'stop', stop_sequence: 'stop' };

/** A token event: token.text is answer text unless token.special (an EOS or control token carries no text). */
export function classifyTgi(data: string): ChunkInfo {
  const { info, o } = openEvent(data);
  if (!o) return info;
  const tok = obj(o.token);
  if (tok && tok.special !== true) info.answer = str(tok.text);
  const d = obj(o.details);
  if (d) {
    const fr = str(d.finish_reason);
    info.finishReason = FINISH[fr] ?? (fr || null);
    // input_length is only sent by TGI ≥ 2.1; without it the input count is the client's own.
    info.usage = { prompt_tokens: d.input_length, completion_tokens: d.generated_tokens, reasoning_tokens: undefined, cached_tokens: undefined };
    info.server = compactTimings({ server_prompt_tokens: serverNumber(d.input_length), server_eval_tokens: serverNumber(d.generated_tokens) });
  }
  info.kind = kindOf(info, 'r');
  return info;
}

export const tgi: Backend = {
  kind: 'tgi',
  path: '/generate_stream',
  endpoint: 'completions',
  streamOnly: true,
  buildBody(spec, o) {
    const parameters: Record<string, unknown> = { max_new_tokens: spec.maxTokens, details: true, ...sampling(o) };
    if (o.temperature !== undefined && o.temperature > 0) parameters.do_sample = true;
    if (o.extraBody) Object.assign(parameters, o.extraBody);
    return { inputs: spec.prompt, parameters, stream: o.stream };
  },
  classifyData: classifyTgi,
  classifyErrorEvent: errorEvent,
};
