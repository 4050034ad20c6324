// Server-reported token usage: which values are sane enough to measure with, and why the others were ignored.
import type { RawRequest } from '../metrics/record.js';

/** Token counts taken from a response's `usage`; null where the server sent nothing usable. */
export interface Usage {
  inputTokens: number | null;
  outputTokens: number | null;
  reasoningTokens: number | null;
  cachedTokens: number | null;
}

/** The usage values exactly as the server sent them (any JSON value; undefined when absent). */
export interface UsageReport {
  prompt_tokens: unknown;
  completion_tokens: unknown;
  reasoning_tokens: unknown;
  cached_tokens: unknown;
  /** usage.prompt_tokens_details.image_tokens / audio_tokens (OpenAI Realtime's and the sim's names; OpenAI chat sends audio_tokens). */
  image_tokens?: unknown;
  audio_tokens?: unknown;
}

/**
 * Output tokens a server may report beyond max_tokens: some servers (DeepSeek's reasoner, for one) do not count
 * reasoning against max_tokens, and reasoning budgets reach 128 Ki tokens. More than this is not a count.
 */
export const EXTRA_OUTPUT_TOKENS = 131_072;

/** No prompt or output is anywhere near a billion tokens: a larger value is garbage, not a measurement. */
export const MAX_TOKENS_VALUE = 1_000_000_000;

/** A server value, short and with control characters escaped, for a message: server text is untrusted. */
function show(v: unknown): string {
  const s = typeof v === 'number' ? String(v) : (JSON.stringify(v) ?? String(v));
  return s.length > 40 ? `${s.slice(0, 40)}…` : s;
}

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/**
 * Keep each usage value that is a sane count and say why the others were dropped. Sane: a non-negative integer
 * (≤ 1e9), with completion_tokens ≤ max_tokens + EXTRA_OUTPUT_TOKENS, reasoning_tokens ≤ completion_tokens and
 * cached_tokens ≤ prompt_tokens. A dropped value becomes null, so the run counts that quantity itself
 * (output with the tokenizer, input from the client's own count of the prompt).
 */
export function checkUsage(r: UsageReport, maxTokens: number): { usage: Usage; rejected: string | null } {
  const why: string[] = [];
  const take = (name: keyof UsageReport): number | null => {
    const v = r[name];
    if (v === undefined || v === null) return null;
    if (!isCount(v)) why.push(`${name}=${show(v)} is not a non-negative integer`);
    else if (v > MAX_TOKENS_VALUE) why.push(`${name}=${v} is more than ${MAX_TOKENS_VALUE}`);
    else return v;
    return null;
  };
  const inputTokens = take('prompt_tokens');
  let outputTokens = take('completion_tokens');
  let reasoningTokens = take('reasoning_tokens');
  let cachedTokens = take('cached_tokens');
  if (outputTokens !== null && outputTokens > maxTokens + EXTRA_OUTPUT_TOKENS) {
    why.push(`completion_tokens=${outputTokens} is more than max_tokens (${maxTokens}) + ${EXTRA_OUTPUT_TOKENS}`);
    outputTokens = null;
  }
  if (reasoningTokens !== null && outputTokens !== null && reasoningTokens > outputTokens) {
    why.push(`reasoning_tokens=${reasoningTokens} is more than completion_tokens (${outputTokens})`);
    reasoningTokens = null;
  }
  // Without a usable completion count the tokenizer counts reasoning too, so a lone reasoning count is not kept.
  if (outputTokens === null) reasoningTokens = null;
  if (cachedTokens !== null && inputTokens !== null && cachedTokens > inputTokens) {
    why.push(`cached_tokens=${cachedTokens} is more than prompt_tokens (${inputTokens})`);
    cachedTokens = null;
  }
  return { usage: { inputTokens, outputTokens, reasoningTokens, cachedTokens }, rejected: why.length ? why.join('; ') : null };
}

/** Two usage reports of one response as one: each value from the later report when it sent one, else the earlier. */
export function mergeUsage(earlier: UsageReport, later: UsageReport): UsageReport {
  return {
    prompt_tokens: later.prompt_tokens ?? earlier.prompt_tokens,
    completion_tokens: later.completion_tokens ?? earlier.completion_tokens,
    reasoning_tokens: later.reasoning_tokens ?? earlier.reasoning_tokens,
    cached_tokens: later.cached_tokens ?? earlier.cached_tokens,
    image_tokens: later.image_tokens ?? earlier.image_tokens,
    audio_tokens: later.audio_tokens ?? earlier.audio_tokens,
  };
}

/** The fields of a raw record that a server's usage report sets once it is judged (checkUsage). */
export type UsageFields = Pick<RawRequest, 'usage_rejected' | 'input_tokens' | 'output_tokens' | 'reasoning_tokens' | 'cached_tokens' | 'token_source' | 'image_tokens' | 'audio_tokens'>;

/** A media token count from usage: a sane count (≤ prompt_tokens when that is known), else why not (absent: undefined). */
function mediaCount(name: string, v: unknown, prompt: number | null): number | string | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isCount(v)) return `${name}=${show(v)} is not a non-negative integer`;
  if (v > MAX_TOKENS_VALUE) return `${name}=${v} is more than ${MAX_TOKENS_VALUE}`;
  return prompt !== null && v > prompt ? `${name}=${v} is more than prompt_tokens (${prompt})` : v;
}

/**
 * The server's image/audio token counts (usage.prompt_tokens_details) into the record when sane; a value that is not
 * is left out and named in usage_rejected. A media request without them keeps null (send.ts copyMediaFields).
 */
export function applyMediaUsage(raw: UsageFields, r: UsageReport, promptTokens: number | null): void {
  const why: string[] = [];
  for (const [name, field] of [['image_tokens', 'image_tokens'], ['audio_tokens', 'audio_tokens']] as const) {
    const v = mediaCount(name, r[field], promptTokens);
    if (typeof v === 'number') raw[field] = v;
    else if (typeof v === 'string') why.push(v);
  }
  if (why.length) raw.usage_rejected = [raw.usage_rejected, ...why].filter(Boolean).join('; ');
}

/** Judge a response's usage report and set the record's token fields from it: the one place both stream readers (HTTP, WebSocket) do it. */
export function applyUsage(raw: UsageFields, r: UsageReport, maxTokens: number): Usage {
  const checked = checkUsage(r, maxTokens);
  const u = checked.usage;
  raw.usage_rejected = checked.rejected;
  raw.input_tokens = u.inputTokens;
  raw.output_tokens = u.outputTokens;
  raw.reasoning_tokens = u.reasoningTokens;
  raw.cached_tokens = u.cachedTokens;
  raw.token_source = 'usage';
  applyMediaUsage(raw, r, u.inputTokens);
  return u;
}
