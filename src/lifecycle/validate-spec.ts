// The validation ladder's probe request: a short fixed prompt, counted by the run's tokenizer, LADDER_MAX_TOKENS out.
import type { Tokenizer } from '../dataset/tokenizer.js';
import type { RequestSpec } from '../dataset/types.js';
import { countPrompt, flatPrompt } from '../dataset/prompt.js';
import { getBackend } from '../backends/registry.js';
import { LADDER_MAX_TOKENS } from '../drivers/validate-ladder.js';

const PROBE = 'This is a validation request from tokenflood before a benchmark. Count from one to twenty in words, separated by commas.';

/** The chat or completions form of the probe, as the backend's endpoint takes it. */
export function ladderSpec(tok: Tokenizer, endpoint: 'chat' | 'completions'): RequestSpec {
  const messages = [{ role: 'user' as const, content: PROBE }];
  return { messages, prompt: flatPrompt(messages), inputTokens: countPrompt(tok, messages, endpoint), maxTokens: LADDER_MAX_TOKENS };
}

/** The endpoint (chat or completions) a backend's bodies take. */
export const backendEndpoint = (backend: string): 'chat' | 'completions' => getBackend(backend).endpoint;
