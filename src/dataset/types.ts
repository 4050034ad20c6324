// The request a workload hands to the scheduler: what to send, independent of protocol.

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface RequestSpec {
  /** Chat form of the prompt (used by the chat endpoint). */
  messages: ChatMessage[];
  /** Flat form of the prompt (used by the completions endpoint). */
  prompt: string;
  /** Prompt length as counted by the run's tokenizer (expected input tokens). */
  inputTokens: number;
  /** Output length to ask for (`max_tokens`); with ignore_eos the server should produce exactly this many. */
  maxTokens: number;
  /** Traffic class (e.g. "short", "rag"); summaries break metrics down by it. */
  class?: string;
  /** Multi-turn: the session (virtual user conversation) and 0-based turn index. */
  sessionId?: string;
  turn?: number;
  /** Trace replay: when to send, ms relative to the first request. */
  timestampMs?: number;
  /** The shared-prefix group (0-based) of a synthetic prompt with --prefix-tokens: prefix-hash routes on it. */
  prefixGroup?: number;
  /** Let the model stop on its own (graded eval items): no ignore_eos/min_tokens even when the run sends them. */
  natural?: boolean;
  /** Dataset provenance, e.g. "data.jsonl:17". */
  source?: string;
}
