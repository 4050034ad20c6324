// Requests of a simulated run: a workload's spec as the engine's request, the engine's answer as the record a real run would write.
import type { RunConfig } from '../config/schema.js';
import type { Tokenizer } from '../dataset/tokenizer.js';
import type { MediaPart, RequestSpec } from '../dataset/types.js';
import { audioTokens, imageTokens, videoTokens } from '../sim/engine/media.js';
import { ASSUMED, countMedia, mediaUsage, placeholderIds, type CountedMedia } from '../sim/media-count.js';
import type { RawRequest } from '../metrics/record.js';
import { httpErrorCode } from '../metrics/error-codes.js';
import type { EngineSpec } from '../sim/engine/config.js';
import { contextLengthError } from '../sim/engine/engine.js';
import { errorBody } from '../sim/http/errors.js';
import type { TextSource } from '../sim/http/text.js';
import type { VirtualRecord, VirtualRequest } from '../sim/virtual.js';
import { createRng } from '../util/rng.js';
import { workloadSeed } from '../config/workload.js';

export interface Planned {
  spec: RequestSpec;
  virtual: VirtualRequest;
  /** vLLM's 400 message when prompt + max_tokens exceeds max_model_len (checked on max_tokens, as the server does). */
  tooLong?: string;
  /** The request's media as the sim server counts them (tokens in virtual.promptTokenIds), and its usage details. */
  media: CountedMedia[];
}

/**
 * One MediaPart as the sim server would count it: from its declared size / length, else from its bytes' header
 * (as the server reads them), else the server's assumption for media it cannot measure (a remote URL).
 */
export function countMediaPart(modelId: string, m: MediaPart): CountedMedia {
  const base = { kind: m.kind, hash: m.hash };
  if (m.kind === 'image' && m.width && m.height) return { ...base, ...imageTokens(modelId, m.width, m.height) };
  if (m.kind === 'audio' && m.seconds !== undefined) return { ...base, ...audioTokens(modelId, m.seconds) };
  if (m.kind === 'video' && m.frames && m.width && m.height) return { ...base, ...videoTokens(modelId, m.width, m.height, m.frames) };
  const r = countMedia(modelId, { kind: m.kind, bytes: m.data, url: m.data ? undefined : m.url });
  if (r.ok) return { ...r.media, hash: m.hash };
  return { ...base, ...(m.kind === 'audio' ? audioTokens(modelId, ASSUMED.audioSeconds) : imageTokens(modelId, ASSUMED.width, ASSUMED.height)) };
}

/** Encoded texts kept for reuse at most (a run of unique prompts must not keep them all). */
const MEMO_LIMIT = 4096;
/** Characters of text kept in the memo at most: 4096 trace prompts of 12k tokens would hold ~700 MB of texts and ids. */
const MEMO_CHARS = 4_000_000;
/** Texts longer than this are encoded each time: long prompts (trace turns, documents) are rarely sent twice verbatim. */
const MEMO_MAX_TEXT = 64_000;

/** Token ids no tokenizer produces: filler for prompt text that is unique to one request. */
const UNIQUE_FILLER = 0x40000000;

/**
 * Prompt token ids as the sim server computes them (Σ encode(content) for chat, encode(prompt) for completions), so
 * prefix-cache hashes match a real run. Synthetic chat prompts with a cache-bust nonce are unique from the nonce on,
 * so only the shared system prefix is encoded and the rest (spec.inputTokens, an exact count) is per-request filler:
 * same block hashes as far as sharing goes, without tokenizing every prompt twice.
 */
/** Characters held by each memo. */
const memoChars = new WeakMap<Map<string, number[]>, number>();

function promptIds(spec: RequestSpec, index: number, c: RunConfig, tok: Tokenizer, memo: Map<string, number[]>): number[] {
  if (!memoChars.has(memo)) memoChars.set(memo, 0);
  const enc = (s: string): number[] => {
    if (s.length > MEMO_MAX_TEXT) return tok.encode(s);
    let ids = memo.get(s);
    if (!ids) {
      // Repeated texts (system prompts, reused dataset items) are encoded once; the memo stays bounded in count and size.
      if (memo.size >= MEMO_LIMIT || memoChars.get(memo)! + s.length > MEMO_CHARS) (memo.clear(), memoChars.set(memo, 0));
      memo.set(s, (ids = tok.encode(s)));
      memoChars.set(memo, memoChars.get(memo)! + s.length);
    }
    return ids;
  };
  if (c.endpoint === 'completions') return enc(spec.prompt);
  const ids: number[] = [];
  // Only the synthetic workload's prompts carry the nonce: dataset items and --replay traces (token-exact blocks from
  // hash_ids) share what they share, so they are encoded as sent.
  if (c.cacheBust && !c.dataset && !c.replay) {
    for (const m of spec.messages) if (m.role === 'system') for (const id of enc(m.content)) ids.push(id);
    for (let i = ids.length; i < spec.inputTokens; i++) ids.push(UNIQUE_FILLER + index);
    return ids;
  }
  for (const m of spec.messages) for (const id of enc(m.content)) ids.push(id);
  return ids;
}

export function plan(spec: RequestSpec, index: number, c: RunConfig, engine: EngineSpec, tok: Tokenizer, memo: Map<string, number[]>): Planned {
  let ids = promptIds(spec, index, c, tok, memo);
  // Media of the last user message after its text, as content parts the server counts (sim/media-count.ts).
  const media = c.endpoint === 'completions' ? [] : (spec.media ?? []).map((m) => countMediaPart(engine.model.id, m));
  if (media.length > 0) {
    ids = [...ids];
    for (const m of media) {
      m.offset = ids.length;
      for (const id of placeholderIds(m)) ids.push(id);
    }
  }
  const tooLong = contextLengthError(engine.maxModelLen, ids.length, spec.maxTokens);
  // A rejected request is given ignore_eos so the engine sees prompt + max_tokens and rejects it with the same message.
  const ignoreEos = c.ignoreEos || tooLong !== undefined;
  return { spec, tooLong, media, virtual: { promptTokenIds: ids, maxTokens: spec.maxTokens, minTokens: c.ignoreEos ? spec.maxTokens : 0, ignoreEos } };
}

export interface StreamShape {
  chat: boolean;
  tokensPerChunk: number;
  /** The first `reasoningTokens` output tokens are reasoning (model `<id>-reasoning`). */
  reasoningTokens: number;
}

/**
 * SSE events as the sim server sends them and a streaming client records them: chat's role-only chunk with the
 * first token chunk, one chunk per `tokensPerChunk` tokens (flushed early where reasoning turns into answer), the
 * last carrying finish_reason, then usage and [DONE] at the last token's time. Times are ms since send.
 */
export function streamEvents(tokenTimesMs: readonly number[], s: StreamShape): { times: number[]; kinds: string } {
  const times: number[] = [];
  let kinds = '';
  const push = (t: number, k: string): void => {
    times.push(t);
    kinds += k;
  };
  const n = tokenTimesMs.length;
  let buffered = 0;
  let field = 'a';
  const flush = (t: number): void => {
    if (s.chat && kinds.length === 0) push(t, 'r');
    push(t, field);
    buffered = 0;
  };
  for (let i = 1; i <= n; i++) {
    const t = tokenTimesMs[i - 1];
    const f = i <= s.reasoningTokens ? 'R' : 'a';
    if (f !== field && buffered > 0) flush(t);
    field = f;
    buffered++;
    if (i === n || buffered >= s.tokensPerChunk) flush(t);
  }
  if (n > 0) {
    push(tokenTimesMs[n - 1], 'u');
    push(tokenTimesMs[n - 1], 'd');
  }
  return { times, kinds };
}

export interface ConvertContext {
  c: RunConfig;
  shape: Omit<StreamShape, 'reasoningTokens'>;
  reasoningShare: number;
  reasoning: boolean;
  text: TextSource;
  /** Keep the output text (multi-turn workloads feed answers back into the next turn); else only count characters. */
  keepText: boolean;
}

/** One simulated response as a real run would have recorded it, and its text when kept. */
export interface SimulatedResponse {
  raw: RawRequest;
  answerText: string;
  reasoningText: string;
}

/** One VirtualRecord as the RawRequest a real run against the sim server would have recorded. */
export function toRawRequest(v: VirtualRecord, p: Planned, x: ConvertContext, who: { attempt: number; warmup: boolean }): SimulatedResponse {
  const { c } = x;
  const out: SimulatedResponse = { raw: undefined as unknown as RawRequest, answerText: '', reasoningText: '' };
  // NO_CONNECTION's fields written out: V8 builds a spread followed by 30 properties on a slow path (~100 µs a record).
  const raw: RawRequest = (out.raw = {
    connection_reused: null, blocked_ms: null, connecting_ms: null, tls_ms: null, sending_ms: null,
    id: v.index, attempt: who.attempt, reconnected: false, warmup: who.warmup, class: p.spec.class, status: 'ok', http_status: 200, error: null, code: null,
    scheduled_at_ms: v.scheduledMs, sent_at_ms: v.sentMs, headers_ms: 0, end_ms: v.endMs - v.sentMs, streamed: c.stream,
    event_times_ms: [], event_kinds: '', reasoning_chars: 0, answer_chars: 0,
    input_tokens: null, output_tokens: null, reasoning_tokens: null, cached_tokens: null, token_source: null,
    expected_input_tokens: p.spec.inputTokens, max_tokens: p.spec.maxTokens, finish_reason: null,
    usage_rejected: null, events_after_done: 0,
  });
  if (v.error !== undefined) {
    raw.status = 'http_error';
    raw.http_status = 400;
    raw.error = `HTTP 400: ${errorBody(400, v.error).slice(0, 500)}`;
    raw.code = httpErrorCode(400, raw.error);
    return out;
  }
  const n = v.outputTokens;
  const reasoningTokens = x.reasoning && c.endpoint === 'chat' ? Math.floor(n * x.reasoningShare) : 0;
  // Output text as the server would write it: counted, and kept only when asked.
  const rng = createRng((workloadSeed(c) * 1_000_003 + v.index + 1) >>> 0);
  for (let i = 0; i < n; i++) {
    const word = x.text.next(rng, i);
    if (i < reasoningTokens) raw.reasoning_chars += word.length;
    else raw.answer_chars += word.length;
    if (x.keepText) {
      if (i < reasoningTokens) out.reasoningText += word;
      else out.answerText += word;
    }
  }
  const rel = v.tokenTimesMs.map((t) => t - v.sentMs);
  if (c.stream) {
    const ev = streamEvents(rel, { ...x.shape, reasoningTokens });
    raw.event_times_ms = ev.times;
    raw.event_kinds = ev.kinds;
  } else {
    // The whole response arrives with the last token: one event, TTFT = E2E.
    raw.headers_ms = raw.end_ms;
    raw.event_times_ms = [raw.end_ms as number];
    raw.event_kinds = raw.answer_chars > 0 ? 'a' : 'R';
  }
  raw.input_tokens = v.promptTokens;
  raw.output_tokens = n;
  raw.reasoning_tokens = reasoningTokens;
  raw.cached_tokens = v.cachedTokens;
  if (p.media.length > 0) {
    const u = mediaUsage(p.media);
    if (u.image_tokens !== undefined) raw.image_tokens = u.image_tokens;
    if (u.audio_tokens !== undefined) raw.audio_tokens = u.audio_tokens;
  }
  raw.token_source = 'usage';
  raw.finish_reason = v.finishReason ?? null;
  return out;
}
