// Backends by kind: `--backend KIND` (or `--endpoint chat|completions`, which names one) → the protocol of the run.
import type { Backend } from './backend.js';
import { openaiChat } from './openai-chat.js';
import { openaiCompletions } from './openai-completions.js';
import { openaiResponses } from './openai-responses.js';
import { anthropicMessages } from './anthropic-messages.js';
import { websocket } from './websocket.js';
import { embeddings, embeddingsTei } from './embeddings.js';
import { rerank, rerankTei } from './rerank.js';
import { byKind } from '../util/kinds.js';
import { ollama, ollamaGenerate } from './ollama.js';
import { llamacpp } from './llamacpp.js';
import { tgi } from './tgi.js';
import { triton } from './triton.js';
import { customNdjson, customSse } from './custom.js';
import { openaiTranscriptions } from './openai-transcriptions.js';

export const BACKENDS = {
  'openai-chat': openaiChat,
  'openai-completions': openaiCompletions,
  'openai-responses': openaiResponses,
  'anthropic-messages': anthropicMessages,
  // Speech to text: multipart upload of the request's audio (docs/backends.md#openai-transcriptions).
  'openai-transcriptions': openaiTranscriptions,
  // Native engine APIs with server-side timings (docs/backends.md#native-engine-backends-and-custom-gateways).
  ollama,
  'ollama-generate': ollamaGenerate,
  llamacpp,
  tgi,
  triton,
  // Any HTTP streaming gateway, from --backend-config (src/backends/custom.ts).
  'custom-sse': customSse,
  'custom-ndjson': customNdjson,
  websocket,
  embeddings,
  'embeddings-tei': embeddingsTei,
  rerank,
  'rerank-tei': rerankTei,
} as const satisfies Record<string, Backend>;

export type BackendKind = keyof typeof BACKENDS;
export const BACKEND_KINDS = Object.keys(BACKENDS) as [BackendKind, ...BackendKind[]];

/** The backend of a kind; an unknown kind is a UsageError listing the valid ones. */
export const getBackend = (kind: string, name = '--backend'): Backend => byKind<Backend>(BACKENDS, kind, name);

/** The backend `--endpoint` names: each endpoint is served by exactly one backend. */
export function backendForEndpoint(endpoint: 'chat' | 'completions'): BackendKind {
  return BACKEND_KINDS.find((k) => BACKENDS[k].endpoint === endpoint)!;
}

/** The run's backend: --backend when given, else the one --endpoint names. */
export const backendOf = (c: { backend?: BackendKind; endpoint: 'chat' | 'completions' }): BackendKind => c.backend ?? backendForEndpoint(c.endpoint);
