// Parse and validate chat/completions request bodies into what the sim needs (prompt token ids, lengths, flags).
import { z } from 'zod';
import type { Tokenizer } from '../../dataset/tokenizer.js';
import { countMedia, placeholderIds, type CountedMedia, type MediaSource } from '../media-count.js';

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
  /** vLLM's request `priority` (lower runs first under --scheduling-policy priority); 0 when absent. */
  priority: number;
  stream: boolean;
  includeUsage: boolean;
  /** Images, clips and videos in the prompt, in order (their tokens are in promptTokenIds). */
  media: CountedMedia[];
}

const urlRef = z.union([z.string(), z.object({ url: z.string() })]);
const part = z.object({
  type: z.string(),
  text: z.string().optional(),
  // OpenAI chat: image_url / video_url {url}, input_audio {data, format}; Responses: input_image image_url (a string).
  image_url: urlRef.optional(),
  video_url: urlRef.optional(),
  input_audio: z.object({ data: z.string(), format: z.string().optional() }).optional(),
  // Anthropic Messages: {type: 'image', source: {type: 'base64', media_type, data} | {type: 'url', url}}.
  source: z.object({ type: z.string(), media_type: z.string().optional(), data: z.string().optional(), url: z.string().optional() }).optional(),
});
const message = z.object({
  role: z.string(),
  content: z.union([z.string(), z.array(part), z.null()]).optional(),
  // Ollama /api/chat: base64 images beside the text.
  images: z.array(z.string()).optional(),
});
const common = {
  model: z.string().optional(),
  max_tokens: z.number().int().min(1).nullish(),
  max_completion_tokens: z.number().int().min(1).nullish(),
  min_tokens: z.number().int().min(0).nullish(),
  ignore_eos: z.boolean().nullish(),
  priority: z.number().int().nullish(),
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

const url = (r: z.infer<typeof urlRef>): string => (typeof r === 'string' ? r : r.url);

/** The media source of a content part, or undefined for text and unknown parts. */
function mediaOf(p: z.infer<typeof part>): MediaSource | undefined {
  if (p.image_url !== undefined && (p.type === 'image_url' || p.type === 'input_image')) return { kind: 'image', url: url(p.image_url) };
  if (p.video_url !== undefined && p.type === 'video_url') return { kind: 'video', url: url(p.video_url) };
  if (p.input_audio && p.type === 'input_audio') return { kind: 'audio', bytes: new Uint8Array(Buffer.from(p.input_audio.data, 'base64')), format: p.input_audio.format };
  if (p.source && p.type === 'image') return p.source.data !== undefined ? { kind: 'image', bytes: new Uint8Array(Buffer.from(p.source.data, 'base64')) } : { kind: 'image', url: p.source.url };
  return undefined;
}

class MediaError extends Error {}

/**
 * Chat prompt tokens = Σ tokens(content of each message) + each media item's tokens (engine/media.ts rule of
 * `mediaModel`, markers included), no template overhead, so a client counting each message's text with the same
 * tokenizer gets usage.prompt_tokens minus the media tokens. Media items append to `media`.
 */
function chatPromptIds(tok: Tokenizer, messages: z.infer<typeof message>[], mediaModel: string, media: CountedMedia[], at = 'messages'): number[] {
  const ids: number[] = [];
  const add = (src: MediaSource, where: string): void => {
    const r = countMedia(mediaModel, src);
    if (!r.ok) throw new MediaError(`${where}: ${r.message}`);
    media.push({ ...r.media, offset: ids.length });
    for (const id of placeholderIds(r.media)) ids.push(id);
  };
  messages.forEach((m, i) => {
    if (typeof m.content === 'string') ids.push(...tok.encode(m.content));
    else if (Array.isArray(m.content))
      m.content.forEach((p, j) => {
        if (p.text) ids.push(...tok.encode(p.text));
        const src = mediaOf(p);
        if (src) add(src, `${at}.${i}.content.${j}.${p.type}`);
      });
    (m.images ?? []).forEach((b64, j) => add({ kind: 'image', bytes: new Uint8Array(Buffer.from(b64, 'base64')) }, `${at}.${i}.images.${j}`));
  });
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

/** `mediaModel`: the catalog model whose image/audio token rules apply (text-only models use the fallback rule). */
export function parseGenerationBody(kind: EndpointKind, body: unknown, tok: Tokenizer, mediaModel = 'llama-3.1-8b'): ParseResult {
  try {
    return parseGeneration(kind, body, tok, mediaModel);
  } catch (e) {
    if (e instanceof MediaError) return { ok: false, message: e.message };
    throw e;
  }
}

function parseGeneration(kind: EndpointKind, body: unknown, tok: Tokenizer, mediaModel: string): ParseResult {
  const r = (kind === 'chat' ? chatBody : completionBody).safeParse(body);
  if (!r.success) {
    const msg = r.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');
    return { ok: false, message: msg };
  }
  const b = r.data;
  const promptText = kind === 'chat' ? chatText((b as z.infer<typeof chatBody>).messages) : completionText((b as z.infer<typeof completionBody>).prompt);
  const media: CountedMedia[] = [];
  const promptTokenIds =
    kind === 'chat'
      ? chatPromptIds(tok, (b as z.infer<typeof chatBody>).messages, mediaModel, media)
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
      priority: b.priority ?? 0,
      stream: b.stream ?? false,
      includeUsage: b.stream_options?.include_usage ?? false,
      media,
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
export function parseTypedBody(protocol: 'responses' | 'messages', body: unknown, tok: Tokenizer, mediaModel = 'llama-3.1-8b'): ParseResult {
  try {
    return parseTyped(protocol, body, tok, mediaModel);
  } catch (e) {
    if (e instanceof MediaError) return { ok: false, message: e.message };
    throw e;
  }
}

function parseTyped(protocol: 'responses' | 'messages', body: unknown, tok: Tokenizer, mediaModel: string): ParseResult {
  const r = protocol === 'responses' ? responsesBody.safeParse(body) : messagesBody.safeParse(body);
  if (!r.success) return { ok: false, message: r.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ') };
  const b = r.data;
  let ids: number[];
  let maxTokens: number | undefined;
  let promptText: string;
  const media: CountedMedia[] = [];
  if ('input' in b) {
    ids = typeof b.input === 'string' ? tok.encode(b.input) : chatPromptIds(tok, b.input, mediaModel, media, 'input');
    promptText = typeof b.input === 'string' ? b.input : chatText(b.input);
    maxTokens = b.max_output_tokens ?? undefined;
  } else {
    const m = b as z.infer<typeof messagesBody>;
    const system = typeof m.system === 'string' ? tok.encode(m.system) : (m.system ?? []).flatMap((p) => (p.text ? tok.encode(p.text) : []));
    ids = [...system, ...chatPromptIds(tok, m.messages, mediaModel, media)];
    const systemText = typeof m.system === 'string' ? m.system : (m.system ?? []).map((p) => p.text ?? '').join('');
    promptText = [systemText, chatText(m.messages)].filter((t) => t !== '').join('\n');
    maxTokens = m.max_tokens;
  }
  return {
    ok: true,
    value: {
      kind: 'chat', model: b.model, promptTokenIds: ids, promptText, maxTokens, minTokens: b.min_tokens ?? 0, ignoreEos: b.ignore_eos ?? false, priority: 0,
      stream: b.stream ?? false, includeUsage: b.stream_options?.include_usage ?? true, media,
    },
  };
}
