// The sim server's native engine routes: which protocol a path speaks, and its request body in OpenAI's shape.
import type { EndpointKind } from './parse.js';
import type { SimProtocol } from './wire.js';

export interface NativeRoute {
  protocol: Exclude<SimProtocol, 'openai'>;
  kind: EndpointKind;
  /** The model named by the path (Triton), else undefined. */
  model?: string;
}

/**
 * The native route of a path, or null. Each is served both at the root (as the engines serve them) and under /v1,
 * so a run against the embedded server (base URL …/v1) reaches them too.
 */
export function nativeRoute(path: string): NativeRoute | null {
  const p = path.startsWith('/v1/') ? path.slice(3) : path;
  if (p === '/api/chat') return { protocol: 'ollama', kind: 'chat' };
  if (p === '/api/generate') return { protocol: 'ollama', kind: 'completions' };
  if (p === '/completion') return { protocol: 'llamacpp', kind: 'completions' };
  if (p === '/generate_stream') return { protocol: 'tgi', kind: 'completions' };
  const m = /^\/v2\/models\/([^/]+)(?:\/versions\/[^/]+)?\/generate_stream$/.exec(p);
  if (m) {
    let model: string;
    try {
      model = decodeURIComponent(m[1]);
    } catch {
      model = m[1];
    }
    return { protocol: 'triton', kind: 'completions', model };
  }
  return null;
}

type Json = Record<string, unknown>;
const asObj = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});

/**
 * A native request body rewritten as the OpenAI body parse.ts validates: the prompt, max tokens, stream, ignore_eos.
 * Ollama streams unless told `stream: false`; TGI's and Triton's generate_stream always stream.
 */
export function nativeToOpenAi(route: NativeRoute, body: unknown): unknown {
  const b = asObj(body);
  switch (route.protocol) {
    case 'ollama': {
      const o = asObj(b.options);
      const prompt = route.kind === 'chat' ? { messages: b.messages } : { prompt: b.prompt };
      return { model: b.model, ...prompt, max_tokens: o.num_predict, stream: b.stream !== false, stream_options: { include_usage: true } };
    }
    case 'llamacpp':
      return { model: b.model, prompt: b.prompt, max_tokens: b.n_predict, stream: b.stream === true, ignore_eos: b.ignore_eos, stream_options: { include_usage: true } };
    case 'tgi': {
      const p = asObj(b.parameters);
      return { model: b.model, prompt: b.inputs, max_tokens: p.max_new_tokens, stream: true, stream_options: { include_usage: true } };
    }
    case 'triton':
      return { model: route.model, prompt: b.text_input, max_tokens: b.max_tokens, min_tokens: b.min_length, stream: true };
  }
}
