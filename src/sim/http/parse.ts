// Parse and validate chat/completions request bodies into what the sim needs (prompt token ids, lengths, flags).
import { z } from 'zod';
import type { Tokenizer } from '../../dataset/tokenizer.js';

export type EndpointKind = 'chat' | 'completions';

export interface GenerationRequest {
  kind: EndpointKind;
  /** Model id asked for; undefined = the served model. */
  model?: string;
  promptTokenIds: number[];
  /** The prompt's text (chat: the text of every message, one per line), for the oracle (docs/sim.md#oracle). */
  promptText: string;
  /** max_completion_tokens ?? max_tokens; undefined = up to max_model_len. */
  maxTokens?: number;
  minTokens: number;
  ignoreEos: boolean;
  stream: boolean;
  includeUsage: boolean;
}

const part = z.object({ type: z.string(), text: z.string().optional() });
const message = z.object({
  role: z.string(),
  content: z.union([z.string(), z.array(part), z.null()]).optional(),
});
const common = {
  model: z.string().optional(),
  max_tokens: z.number().int().min(1).nullish(),
  max_completion_tokens: z.number().int().min(1).nullish(),
  min_tokens: z.number().int().min(0).nullish(),
  ignore_eos: z.boolean().nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().nullish() }).nullish(),
  n: z.literal(1, { message: 'n must be 1 in the tokenflood sim server' }).nullish(),
};
const chatBody = z.object({ messages: z.array(message).min(1), ...common });
const tokenIds = z.array(z.number().int().min(0));
const completionBody = z.object({
  prompt: z.union([z.string(), z.array(z.string()).length(1), tokenIds, z.array(tokenIds).length(1)]),
  ...common,
});

/**
 * Chat prompt tokens = Σ tokens(content of each message), text parts only, no template overhead, so a client
 * counting each message with the same tokenizer gets exactly usage.prompt_tokens.
 */
function chatPromptIds(tok: Tokenizer, messages: z.infer<typeof message>[]): number[] {
  const ids: number[] = [];
  for (const m of messages) {
    if (typeof m.content === 'string') ids.push(...tok.encode(m.content));
    else if (Array.isArray(m.content)) for (const p of m.content) if (p.text) ids.push(...tok.encode(p.text));
  }
  return ids;
}

function completionPromptIds(tok: Tokenizer, prompt: z.infer<typeof completionBody>['prompt']): number[] {
  if (typeof prompt === 'string') return tok.encode(prompt);
  const first = prompt[0];
  if (typeof first === 'string') return tok.encode(first);
  if (Array.isArray(first)) return first;
  return prompt as number[];
}

function chatText(messages: z.infer<typeof message>[]): string {
  return messages.map((m) => (typeof m.content === 'string' ? m.content : Array.isArray(m.content) ? m.content.map((p) => p.text ?? '').join('') : '')).join('\n');
}

function completionText(prompt: z.infer<typeof completionBody>['prompt']): string {
  return typeof prompt === 'string' ? prompt : typeof prompt[0] === 'string' ? prompt[0] : '';
}

export type ParseResult = { ok: true; value: GenerationRequest } | { ok: false; message: string };

export function parseGenerationBody(kind: EndpointKind, body: unknown, tok: Tokenizer): ParseResult {
  const r = (kind === 'chat' ? chatBody : completionBody).safeParse(body);
  if (!r.success) {
    const msg = r.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');
    return { ok: false, message: msg };
  }
  const b = r.data;
  const promptText = kind === 'chat' ? chatText((b as z.infer<typeof chatBody>).messages) : completionText((b as z.infer<typeof completionBody>).prompt);
  const promptTokenIds =
    kind === 'chat'
      ? chatPromptIds(tok, (b as z.infer<typeof chatBody>).messages)
      : completionPromptIds(tok, (b as z.infer<typeof completionBody>).prompt);
  return {
    ok: true,
    value: {
      kind,
      model: b.model,
      promptTokenIds,
      promptText,
      maxTokens: b.max_completion_tokens ?? b.max_tokens ?? undefined,
      minTokens: b.min_tokens ?? 0,
      ignoreEos: b.ignore_eos ?? false,
      stream: b.stream ?? false,
      includeUsage: b.stream_options?.include_usage ?? false,
    },
  };
}

const typedCommon = {
  model: z.string().optional(),
  min_tokens: z.number().int().min(0).nullish(),
  ignore_eos: z.boolean().nullish(),
  stream: z.boolean().nullish(),
  // A sim-only switch for tests: include_usage false makes a gateway that strips usage.
  stream_options: z.object({ include_usage: z.boolean().nullish() }).nullish(),
};
const responsesBody = z.object({ input: z.union([z.string(), z.array(message).min(1)]), max_output_tokens: z.number().int().min(1).nullish(), ...typedCommon });
const messagesBody = z.object({
  messages: z.array(message).min(1),
  system: z.union([z.string(), z.array(part)]).nullish(),
  max_tokens: z.number().int().min(1, 'max_tokens: required by the Messages API'),
  ...typedCommon,
});

/**
 * An OpenAI Responses (`input`, max_output_tokens) or Anthropic Messages (`system`, `messages`, max_tokens) body.
 * Prompt tokens count as for chat: the text of the system prompt and of every message, no template overhead.
 * Usage is sent unless `stream_options.include_usage` is false (both APIs always send it).
 */
export function parseTypedBody(protocol: 'responses' | 'messages', body: unknown, tok: Tokenizer): ParseResult {
  const r = protocol === 'responses' ? responsesBody.safeParse(body) : messagesBody.safeParse(body);
  if (!r.success) return { ok: false, message: r.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ') };
  const b = r.data;
  let ids: number[];
  let maxTokens: number | undefined;
  let promptText: string;
  if ('input' in b) {
    ids = typeof b.input === 'string' ? tok.encode(b.input) : chatPromptIds(tok, b.input);
    promptText = typeof b.input === 'string' ? b.input : chatText(b.input);
    maxTokens = b.max_output_tokens ?? undefined;
  } else {
    const m = b as z.infer<typeof messagesBody>;
    const system = typeof m.system === 'string' ? tok.encode(m.system) : (m.system ?? []).flatMap((p) => (p.text ? tok.encode(p.text) : []));
    ids = [...system, ...chatPromptIds(tok, m.messages)];
    const systemText = typeof m.system === 'string' ? m.system : (m.system ?? []).map((p) => p.text ?? '').join('');
    promptText = [systemText, chatText(m.messages)].filter((t) => t !== '').join('\n');
    maxTokens = m.max_tokens;
  }
  return {
    ok: true,
    value: {
      kind: 'chat', model: b.model, promptTokenIds: ids, promptText, maxTokens, minTokens: b.min_tokens ?? 0, ignoreEos: b.ignore_eos ?? false,
      stream: b.stream ?? false, includeUsage: b.stream_options?.include_usage ?? true,
    },
  };
}
