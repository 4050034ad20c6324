// The OpenAI Responses protocol (POST /responses): typed SSE events; text and reasoning deltas, usage on response.completed.
import type { Backend, BodyOptions, ChunkInfo } from './backend.js';
import type { RequestSpec } from '../dataset/types.js';
import type { UsageReport } from './usage.js';
import { classifyErrorEvent, errorText, sseEventObject } from './openai-common.js';
import { onLastUser, responsesParts } from './media-content.js';
import { blankInfo, eosExtensions, obj, sampling, str, type Json } from './native-common.js';


/** The body: the chat messages as `input`, max_output_tokens; the vLLM/SGLang extensions as for chat (--no-ignore-eos for hosted APIs). */
export function responsesBody(spec: RequestSpec, o: BodyOptions): Record<string, unknown> {
  const body: Record<string, unknown> = { model: o.model, input: spec.media?.length ? onLastUser(spec.messages, (t) => responsesParts(t, spec.media ?? [])) : spec.messages, max_output_tokens: spec.maxTokens, stream: o.stream };
  Object.assign(body, eosExtensions(spec, o), sampling(o));
  if (o.extraBody) Object.assign(body, o.extraBody);
  return body;
}

/** A Responses `usage` (input_tokens, output_tokens, their details) as the common usage report. */
export function responsesUsage(u: unknown): UsageReport | null {
  const o = obj(u);
  if (!o) return null;
  return {
    prompt_tokens: o.input_tokens,
    completion_tokens: o.output_tokens,
    reasoning_tokens: obj(o.output_tokens_details)?.reasoning_tokens,
    cached_tokens: obj(o.input_tokens_details)?.cached_tokens,
    image_tokens: obj(o.input_tokens_details)?.image_tokens,
    audio_tokens: obj(o.input_tokens_details)?.audio_tokens,
  };
}

/** finish_reason of a finished response: completed → stop, incomplete for max_output_tokens → length, else the reason given. */
function finishOf(r: Json): string | null {
  if (r.status === 'completed') return 'stop';
  const why = str(obj(r.incomplete_details)?.reason);
  return why === 'max_output_tokens' ? 'length' : why || (typeof r.status === 'string' ? r.status : null);
}

/** Text of a whole (non-streamed) response's output items: message output_text → answer, reasoning text and summaries → reasoning. */
function outputText(info: ChunkInfo, output: unknown): void {
  if (!Array.isArray(output)) return;
  for (const item of output) {
    const it = obj(item);
    if (!it) continue;
    for (const key of ['summary', 'content']) {
      const parts = it[key];
      if (!Array.isArray(parts)) continue;
      for (const p of parts) {
        const part = obj(p);
        if (!part) continue;
        if (it.type === 'reasoning') info.reasoning += str(part.text);
        else if (part.type === 'output_text') info.answer += str(part.text);
      }
    }
  }
}

/**
 * Classify one event: `response.output_text.delta` → answer, `response.reasoning_text.delta` and
 * `response.reasoning_summary_text.delta` → reasoning, `response.completed`/`response.incomplete` → end of stream with
 * usage, `response.failed`/`error` → error, `keepalive` or an empty event → heartbeat, every other typed event → r.
 * A body with `object: "response"` is a whole non-streamed response.
 */
export function classifyResponsesData(data: string, event?: string): ChunkInfo {
  const info = blankInfo();
  const o = sseEventObject(data, info);
  if (!o) return info;
  const type = str(o.type) || (event ?? '');
  switch (type) {
    case 'response.output_text.delta':
      info.answer = str(o.delta);
      info.kind = info.answer ? 'a' : 'r';
      return info;
    case 'response.reasoning_text.delta':
    case 'response.reasoning_summary_text.delta':
      info.reasoning = str(o.delta);
      info.kind = info.reasoning ? 'R' : 'r';
      return info;
    case 'response.completed':
    case 'response.incomplete': {
      const r = obj(o.response) ?? {};
      info.kind = 'd';
      info.ended = true;
      info.usage = responsesUsage(r.usage);
      info.finishReason = finishOf(r);
      return info;
    }
    case 'response.failed':
      info.kind = 'e';
      info.error = errorText(obj(o.response)?.error ?? o);
      return info;
    case 'error':
      info.kind = 'e';
      info.error = errorText(o.error ?? o);
      return info;
    case 'keepalive':
    case 'ping':
      info.kind = 'h';
      return info;
  }
  if (o.object === 'response') {
    // Non-streamed: the whole response at once.
    if (o.error !== undefined && o.error !== null) {
      info.kind = 'e';
      info.error = errorText(o.error);
      return info;
    }
    outputText(info, o.output);
    info.usage = responsesUsage(o.usage);
    info.finishReason = finishOf(o);
    info.kind = info.answer ? 'a' : info.reasoning ? 'R' : info.usage ? 'u' : 'x';
    return info;
  }
  if (o.error !== undefined && o.error !== null) {
    info.kind = 'e';
    info.error = errorText(o.error);
    return info;
  }
  if (type.startsWith('response.')) info.kind = 'r';
  return info;
}

export const openaiResponses: Backend = {
  kind: 'openai-responses',
  media: ['image'],
  path: '/responses',
  endpoint: 'chat',
  buildBody: responsesBody,
  classifyData: classifyResponsesData,
  classifyErrorEvent,
  endEvent: 'response.completed',
};
