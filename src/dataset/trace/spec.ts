// One trace request as the RequestSpec the run sends: its token-exact prompt, max_tokens, and its session identity.
import type { Tokenizer } from '../tokenizer.js';
import type { RequestSpec } from '../types.js';
import { countPrompt } from '../prompt.js';
import type { TraceRequest } from './model.js';
import type { PromptSynth } from './prompts.js';

export interface TraceSpecOptions {
  tok: Tokenizer;
  endpoint: 'chat' | 'completions';
  synth: PromptSynth;
  /** --max-tokens: overrides the recorded output length. */
  maxTokens?: number;
}

/** What the replay knows about the request beyond the trace: its ceiling share and its waits. */
export interface TraceSpecExtra {
  ceilingTokens: number;
  joinWaitMs?: number;
  toolWaitMs?: number;
  /** Text sent instead of the synthesized prompt (a session's live answers); counted with the tokenizer. */
  text?: string;
  /** Output length instead of the recorded one (the start-at-fraction warmup sends 1). */
  maxTokens?: number;
}

/**
 * The spec of trace request `r`. Completions: the prompt is exactly `inputLength` tokens of the tokenizer. Chat: the one
 * user message is those tokens, and `inputTokens` counts the message as countPrompt does (the server adds its chat
 * template's tokens on top: docs/workloads.md#traces-and-agentic-sessions). max_tokens = the recorded output length.
 */
export function traceSpec(r: TraceRequest, o: TraceSpecOptions, extra: TraceSpecExtra): RequestSpec {
  const text = extra.text ?? o.synth.text({ index: r.index, inputLength: r.inputLength, hashIds: r.hashIds });
  const messages = [{ role: 'user' as const, content: text }];
  const inputTokens = extra.text !== undefined ? countPrompt(o.tok, messages, o.endpoint) : o.endpoint === 'completions' ? r.inputLength : countPrompt(o.tok, messages, 'chat');
  return {
    messages,
    prompt: text,
    inputTokens,
    maxTokens: extra.maxTokens ?? o.maxTokens ?? Math.max(1, r.outputLength),
    ...(r.session !== undefined ? { sessionId: r.session, turn: r.turn } : {}),
    ...(r.agent !== undefined ? { agent: r.agent } : {}),
    ...(r.hashIds ? { hashIds: r.hashIds } : {}),
    ...(r.instance !== undefined ? { instance: r.instance } : {}),
    ceilingTokens: extra.ceilingTokens,
    ...(extra.joinWaitMs !== undefined ? { joinWaitMs: extra.joinWaitMs } : {}),
    ...(extra.toolWaitMs !== undefined ? { toolWaitMs: extra.toolWaitMs } : {}),
    source: r.source,
  };
}
