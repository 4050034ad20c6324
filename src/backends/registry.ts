// Backends by kind: `--backend KIND` (or `--endpoint chat|completions`, which names one) → the protocol of the run.
import type { Backend } from './backend.js';
import { openaiChat } from './openai-chat.js';
import { openaiCompletions } from './openai-completions.js';
import { websocket } from './websocket.js';
import { embeddings, embeddingsTei } from './embeddings.js';
import { rerank, rerankTei } from './rerank.js';
import { byKind } from '../util/kinds.js';

export const BACKENDS = {
  'openai-chat': openaiChat,
  'openai-completions': openaiCompletions,
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
