// How a sim session writes one protocol: the events before, between and after its tokens, and a whole response.
import { chatRoleEvent, SSE_DONE, tokenEvent, usageEvent, wholeResponse, type Finish, type ResponseIdentity } from './chunks.js';
import type { EndpointKind } from './parse.js';
import { responsesWire } from './wire-responses.js';
import { messagesWire } from './wire-messages.js';
import type { Field, Wire, WireEnd } from './wire-types.js';

export type { Field, SimTimings, Wire, WireEnd } from './wire-types.js';

/**
 * The protocols the sim speaks, routed by path (server.ts, native.ts): OpenAI chat/completions (vLLM-shaped),
 * OpenAI Responses, Anthropic Messages, and the native engine APIs.
 */
export type Protocol = 'openai' | 'responses' | 'messages' | 'ollama' | 'llamacpp' | 'tgi' | 'triton';
/** The native engine protocols (native.ts). */
export type SimProtocol = Exclude<Protocol, 'responses' | 'messages'>;

function openaiWire(kind: EndpointKind, r: ResponseIdentity): Wire {
  return {
    contentType: 'text/event-stream',
    start: () => (kind === 'chat' ? chatRoleEvent(r) : ''),
    delta: (text: string, field: Field, last: WireEnd | null) => tokenEvent(kind, r, text, field, (last?.finish ?? null) as Finish),
    end: (e, includeUsage) => (includeUsage ? usageEvent(kind, r, e.usage) : '') + SSE_DONE,
    whole: (reasoning, content, e) => wholeResponse(kind, r, reasoning, content, e.finish, e.usage),
    heartbeat: ': ping\n\n',
  };
}

const sse = (o: unknown): string => `data: ${JSON.stringify(o)}\n\n`;
const line = (o: unknown): string => `${JSON.stringify(o)}\n`;
/** sim ms → integer ns, as ollama reports durations. */
const ns = (ms: number): number => Math.round(ms * 1e6);
const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/** Ollama /api/chat and /api/generate: NDJSON, durations in ns on the `done: true` line. */
function ollama(kind: EndpointKind, r: ResponseIdentity): Wire {
  const created_at = new Date(r.created * 1000).toISOString();
  const text = (t: string, field: 'content' | 'reasoning_content'): Record<string, unknown> =>
    kind === 'chat'
      ? { message: { role: 'assistant', content: field === 'content' ? t : '', ...(field === 'reasoning_content' ? { thinking: t } : {}) } }
      : field === 'content'
        ? { response: t }
        : { response: '', thinking: t };
  const stats = (e: WireEnd) => ({
    done_reason: e.finish,
    total_duration: ns(e.timings.totalMs),
    load_duration: 0,
    prompt_eval_count: e.usage.prompt_tokens,
    prompt_eval_duration: ns(e.timings.promptEvalMs),
    eval_count: e.usage.completion_tokens,
    eval_duration: ns(e.timings.evalMs),
  });
  return {
    contentType: 'application/x-ndjson',
    heartbeat: '\n',
    start: () => '',
    delta: (t, field) => line({ model: r.model, created_at, ...text(t, field), done: false }),
    end: (e) => line({ model: r.model, created_at, ...text('', 'content'), done: true, ...stats(e) }),
    whole: (reasoning, content, e) => {
      const m = kind === 'chat' ? { message: { role: 'assistant', content, ...(reasoning ? { thinking: reasoning } : {}) } } : { response: content, ...(reasoning ? { thinking: reasoning } : {}) };
      return { model: r.model, created_at, ...m, done: true, ...stats(e) };
    },
  };
}

/** llama.cpp /completion: SSE of {content, stop}; the stop event carries counts and `timings` (ms). */
function llamacpp(r: ResponseIdentity): Wire {
  const final = (e: WireEnd, content: string) => {
    const u = e.usage;
    const cached = u.prompt_tokens_details.cached_tokens;
    const t = e.timings;
    const per = (n: number, ms: number) => (ms > 0 ? round3((n * 1000) / ms) : 0);
    return {
      content, id_slot: 0, stop: true, model: r.model, tokens_predicted: u.completion_tokens, tokens_evaluated: u.prompt_tokens, tokens_cached: cached,
      stop_type: e.finish === 'length' ? 'limit' : 'eos', stopped_eos: e.finish === 'stop', stopped_limit: e.finish === 'length', stopped_word: false, truncated: false,
      timings: {
        cache_n: cached, prompt_n: u.prompt_tokens - cached, prompt_ms: t.promptEvalMs, prompt_per_second: per(u.prompt_tokens - cached, t.promptEvalMs),
        predicted_n: u.completion_tokens, predicted_ms: t.evalMs, predicted_per_second: per(u.completion_tokens, t.evalMs),
      },
    };
  };
  return {
    contentType: 'text/event-stream',
    heartbeat: ': ping\n\n',
    start: () => '',
    delta: (t) => sse({ content: t, stop: false, id_slot: 0, index: 0 }),
    end: (e) => sse(final(e, '')),
    whole: (_reasoning, content, e) => final(e, content),
  };
}

/** TGI /generate_stream: one SSE event per token event; the last carries generated_text and details. */
function tgi(): Wire {
  let index = 0;
  let all = '';
  return {
    contentType: 'text/event-stream',
    heartbeat: ': ping\n\n',
    start: () => '',
    delta(t, _field, last) {
      index++;
      all += t;
      const details = last ? { finish_reason: last.finish === 'length' ? 'length' : 'eos_token', generated_tokens: last.usage.completion_tokens, seed: null, input_length: last.usage.prompt_tokens } : null;
      return `data:${JSON.stringify({ index, token: { id: index, text: t, logprob: -0.5, special: false }, generated_text: last ? all : null, details, top_tokens: null })}\n\n`;
    },
    end: () => '',
    whole: (_r, content, e) => ({ generated_text: content, details: { finish_reason: e.finish === 'length' ? 'length' : 'eos_token', generated_tokens: e.usage.completion_tokens } }),
  };
}

/** Triton generate_stream (TensorRT-LLM ensemble): SSE of {model_name, model_version, text_output}, nothing else. */
function triton(r: ResponseIdentity): Wire {
  const ev = (t: string) => ({ model_name: r.model, model_version: '1', sequence_end: false, sequence_id: 0, sequence_start: false, text_output: t });
  return {
    contentType: 'text/event-stream',
    heartbeat: ': ping\n\n',
    start: () => '',
    delta: (t) => sse(ev(t)),
    end: () => '',
    whole: (_r, content) => ev(content),
  };
}

export function createWire(protocol: Protocol, kind: EndpointKind, r: ResponseIdentity, promptTokens: number, includeUsage: boolean): Wire {
  switch (protocol) {
    case 'responses':
      return responsesWire(r);
    case 'messages':
      return messagesWire(r, promptTokens, includeUsage);
    case 'ollama':
      return ollama(kind, r);
    case 'llamacpp':
      return llamacpp(r);
    case 'tgi':
      return tgi();
    case 'triton':
      return triton(r);
    default:
      return openaiWire(kind, r);
  }
}
