// RequestRecord: the raw facts of one request (as written to requests.jsonl) plus its derived metrics.
import type { ServerTimings } from './server-timings.js';

export type RequestStatus = 'ok' | 'http_error' | 'timeout' | 'network_error' | 'empty' | 'parse_error' | 'cancelled';

export const REQUEST_STATUSES: readonly RequestStatus[] = [
  'ok',
  'http_error',
  'timeout',
  'network_error',
  'empty',
  'parse_error',
  'cancelled',
];

/**
 * What one SSE event carried. Stored one letter per event in `event_kinds`:
 * r = role-only / empty delta (or a protocol's structural event), R = reasoning text, a = answer text, u = usage only,
 * c = SSE comment (heartbeat), h = a protocol's heartbeat event (Anthropic `ping`, an empty keep-alive event),
 * d = end of stream ([DONE], message_stop, response.completed), e = error object, x = anything else (unparseable or unknown shape).
 * c and h are heartbeats: never tokens, never the first token or first event (docs/metrics.md#heartbeats).
 */
export type EventKind = 'r' | 'R' | 'a' | 'u' | 'c' | 'h' | 'd' | 'e' | 'x';

/** Heartbeat kinds: keep-alive packets that carry nothing measured. */
export const isHeartbeatKind = (k: string): boolean => k === 'c' || k === 'h';

/**
 * The stage a request was scheduled in (docs/metrics.md#phases): a stage whose target is above the previous one is
 * ramp-up, equal is steady, below is ramp-down. Without ramps or stages every request is steady.
 */
export type RequestPhase = 'ramp-up' | 'steady' | 'ramp-down';

export const REQUEST_PHASES: readonly RequestPhase[] = ['ramp-up', 'steady', 'ramp-down'];

/** Token counts are from the server's `usage` when it sent one, else counted with the run's tokenizer. */
export type TokenSource = 'usage' | 'tokenizer' | 'estimate';

/**
 * Raw facts about one request. Times are ms on the run's monotonic clock (0 = run start) unless noted. The optional
 * `server_*` fields are what a native engine API reported about the request (server-timings.ts).
 */
export interface RawRequest extends Partial<ServerTimings> {
  id: number;
  /** 1 for the first attempt; 2, 3, … for --retry attempts of the same request (same id). */
  attempt: number;
  /** Sent again on a new connection because its reused keep-alive connection closed before any response byte. */
  reconnected: boolean;
  warmup: boolean;
  /** Its phase; absent (records of older files, simulate) means steady. */
  phase?: RequestPhase;
  /** The live load stage it was sent in (a load changed during the run, e.g. from the dashboard); absent otherwise. */
  stage?: number;
  class: string | undefined;
  status: RequestStatus;
  http_status: number | null;
  error: string | null;
  /** Stable code of the failure (E_HTTP_429, E_STREAM_STALLED, ECONNRESET, ...; src/metrics/error-codes.ts); null when ok. */
  code: string | null;
  /** When the schedule wanted the request sent. */
  scheduled_at_ms: number;
  /**
   * When its last byte was handed to the kernel (the socket write completed); when that was never reached or not
   * measured, when it was handed to the HTTP client. Every "ms since send" below counts from here.
   */
  sent_at_ms: number;
  /** false: the request opened its connection during the run; true: it reused one (prewarmed or kept alive); null: never got one. */
  connection_reused: boolean | null;
  /** Phase timings (k6's names), ms, null when not reached or not measured: waiting in the pool for a connection. */
  blocked_ms: number | null;
  /** TCP connect of the connection it opened (0 when reused). */
  connecting_ms: number | null;
  /** TLS handshake of the connection it opened (0 when reused); null for http. */
  tls_ms: number | null;
  /** Connection ready → last byte handed to the kernel (= sent_at_ms). */
  sending_ms: number | null;
  /** When response headers arrived (ms since send). */
  headers_ms: number | null;
  /** When the response ended or failed (ms since send). */
  end_ms: number | null;
  streamed: boolean;
  /** ms since send at which each SSE event arrived (events of one TCP read share a time). */
  event_times_ms: number[];
  /** One EventKind letter per event, same order as event_times_ms. */
  event_kinds: string;
  /** Characters of reasoning and answer text received. */
  reasoning_chars: number;
  answer_chars: number;
  input_tokens: number | null;
  output_tokens: number | null;
  reasoning_tokens: number | null;
  cached_tokens: number | null;
  token_source: TokenSource | null;
  /** Prompt tokens as counted client-side by the run's tokenizer (the intended input length). */
  expected_input_tokens: number;
  max_tokens: number;
  finish_reason: string | null;
  /** Why server usage values were ignored (not sane counts), e.g. "completion_tokens=-5 is not a non-negative integer"; null when none were. */
  usage_rejected: string | null;
  /** SSE events that arrived after the end of the stream (`data: [DONE]`, message_stop, response.completed) and were ignored. */
  events_after_done: number;
  /** The request id it was sent with (`<run id>-<id>`, header --request-id-header); null with --no-request-id and in older files. */
  request_id?: string | null;
  /** The endpoint (target name, never a URL) it was sent to, in a run with several (docs/routing.md). */
  endpoint?: string;
  /** The model it asked for, in a run over several models (--models, per-target models). */
  model?: string;
  /** Its shared-prefix group, 0-based, with --prefix-tokens (docs/routing.md#cache-locality). */
  prefix_group?: number;
  /** Trace replay and multi-turn data: the session, the 0-based turn index within its agent, and the subagent (absent: the main agent). */
  session?: string;
  turn?: number;
  agent?: string;
  /** Trace replay: the instance (endpoint name) its trace line named; with several endpoints it was sent there (docs/routing.md). */
  instance?: string;
  /** Trace replay: the trace record it came from ("file:line", or "file requests[3]" for a session file). */
  source?: string;
  /** Trace replay: prompt tokens an unlimited prefix cache could serve (from hash_ids, in arrival order). */
  ceiling_tokens?: number;
  /** Trace replay: ms this turn waited for its subagents (join), and for its predecessor's mocked tool call, before it was sent. */
  join_wait_ms?: number;
  tool_wait_ms?: number;
  /**
   * Multimodal requests (issue 28), written only when the request carried media: images (video frames not counted),
   * video frames, audio seconds, pixels of all images and frames, media bytes (encoded, before base64), client encode ms,
   * and the server's `usage.prompt_tokens_details` image/audio tokens when it gave them (null: not given).
   */
  images?: number;
  video_frames?: number;
  audio_seconds?: number;
  image_pixels?: number;
  media_bytes?: number;
  /** The request body's bytes as sent (JSON, with base64 media, or multipart); absent in older files. */
  request_bytes?: number;
  /** Response body bytes received, as on the wire (compressed when the server compressed them); absent when none arrived or not measured (older files, WebSocket). */
  response_bytes?: number;
  media_encode_ms?: number;
  image_tokens?: number | null;
  audio_tokens?: number | null;
  /** The server's `x-served-by` response header (a replica behind a router), letters, digits and ._:- only. */
  served_by?: string;
  /** The dataset's or trace's `user` field of the request (summary.json by_user); absent when the data names none. */
  user_id?: string;
  /** The request's priority class (lower runs first): the data's `priority`, --priority-mix's draw, else --extra-body's integer `priority`; absent when none (summary.json by_priority). */
  priority?: number;
  /** With --users (the user-centric executor): the 0-based user that sent it; absent otherwise. */
  user?: number;
  /** With --shard: the shard that sent it, "I/N" (0-based I); absent in a whole run (docs/distributed.md). */
  shard?: string;
  /** Embeddings and rerank only: results (vectors, scores) the response carried; absent for generation backends. */
  samples?: number | null;
  /** The answer text, kept only with --result-format vllm (vllm-result.json's generated_texts); at most MAX_GENERATED_TEXT_CHARS. */
  generated_text?: string;
}

/** The session fields of a record, each written only when set (jsonl.ts). */
export const SESSION_FIELDS = ['session', 'turn', 'agent', 'instance', 'source', 'ceiling_tokens', 'join_wait_ms', 'tool_wait_ms'] as const;
/** Media fields of a record (issue 28): written only when set. */
export const MEDIA_FIELDS = ['images', 'video_frames', 'audio_seconds', 'image_pixels', 'media_bytes', 'request_bytes', 'media_encode_ms', 'image_tokens', 'audio_tokens'] as const;

/** Metrics derived from RawRequest by the pure functions in derive.ts. */
export interface DerivedMetrics {
  ttft_ms: number | null;
  /** TTFT counted from when the schedule wanted the request sent: schedule_lag_ms + ttft_ms (coordinated omission shows here). */
  ttft_from_scheduled_ms: number | null;
  ttfat_ms: number | null;
  first_event_ms: number | null;
  tpot_ms: number | null;
  itl_ms: number[];
  e2e_ms: number | null;
  output_speed_tok_s: number | null;
  schedule_lag_ms: number;
  chunks: number;
  waiting_ms: number | null;
  receiving_ms: number | null;
}

export type RequestRecord = RawRequest & DerivedMetrics;

/** The connection facts of a request that never reached a connection, or of a transport that does not measure them. */
export const NO_CONNECTION: Pick<RawRequest, 'connection_reused' | 'blocked_ms' | 'connecting_ms' | 'tls_ms' | 'sending_ms'> = {
  connection_reused: null,
  blocked_ms: null,
  connecting_ms: null,
  tls_ms: null,
  sending_ms: null,
};
