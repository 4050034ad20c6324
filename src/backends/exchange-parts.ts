// The pieces of one exchange that need no connection: a fresh record, error classification, body text, Retry-After.
import { MAX_RESPONSE_HEAD_BYTES, isMalformedResponse, undiciCode } from './transport-errors.js';
import { networkCode } from '../metrics/error-codes.js';
import { NO_CONNECTION, type RawRequest, type RequestStatus } from '../metrics/record.js';

/** What a fresh record is made from: the request's identity and what the workload asked for. */
export interface RequestIdentity {
  id: number;
  attempt?: number;
  warmup: boolean;
  cls?: string;
  scheduledAtMs: number;
  stream: boolean;
  expectedInputTokens: number;
  maxTokens: number;
  /** The request id to send (`<run id>-<id>`), or absent with --no-request-id. */
  requestId?: string;
}

/** Bytes of an error body kept in the record. */
export const MAX_ERROR_BODY = 500;

export function classifyNetworkError(err: unknown, beforeHeaders: boolean): { status: RequestStatus; code: string; message: string } {
  const e = err as { code?: string; message?: string; name?: string; cause?: { code?: string; message?: string } };
  const own = isMalformedResponse(err, beforeHeaders) ? 'E_MALFORMED_RESPONSE' : (e?.code ?? e?.cause?.code);
  const msg = e?.code === 'UND_ERR_HEADERS_OVERFLOW' ? `response head larger than ${MAX_RESPONSE_HEAD_BYTES} bytes` : (e?.message ?? String(err));
  return { status: 'network_error', code: networkCode(undiciCode(own, e?.message)), message: `${own ?? e?.name ?? 'ERROR'}: ${msg}` };
}

/** A fresh record for a request sent at `sentAt`, status ok until something says otherwise. */
export function blankRaw(inp: RequestIdentity, sentAt: number): RawRequest {
  return {
    id: inp.id,
    attempt: inp.attempt ?? 1,
    reconnected: false,
    warmup: inp.warmup,
    class: inp.cls,
    status: 'ok',
    http_status: null,
    error: null,
    code: null,
    scheduled_at_ms: inp.scheduledAtMs,
    sent_at_ms: sentAt,
    ...NO_CONNECTION,
    headers_ms: null,
    end_ms: null,
    streamed: inp.stream,
    event_times_ms: [],
    event_kinds: '',
    reasoning_chars: 0,
    answer_chars: 0,
    input_tokens: null,
    output_tokens: null,
    reasoning_tokens: null,
    cached_tokens: null,
    token_source: null,
    expected_input_tokens: inp.expectedInputTokens,
    max_tokens: inp.maxTokens,
    finish_reason: null,
    usage_rejected: null,
    events_after_done: 0,
    request_id: inp.requestId ?? null,
  };
}

/** A whole body as UTF-8 text, a leading byte-order mark skipped (what undici's body.text() returns). */
export function bodyText(parts: Buffer[]): string {
  const b = parts.length === 1 ? parts[0] : Buffer.concat(parts);
  const bom = b.length > 2 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf;
  return b.toString('utf8', bom ? 3 : 0);
}

/** The first MAX_ERROR_BODY bytes of an error body, whitespace collapsed onto one line. */
export function errorBodyText(parts: Buffer[]): string {
  return Buffer.concat(parts).subarray(0, MAX_ERROR_BODY).toString('utf8').replace(/\s+/g, ' ').trim();
}

/** The longest delay setTimeout honours (2^31 − 1 ms, about 24.8 days); longer ones fire at once. */
export const MAX_RETRY_AFTER_MS = 2_147_483_647;

/**
 * Retry-After as delay-seconds or an HTTP date, in ms: finite, within [0, MAX_RETRY_AFTER_MS]; null when absent
 * or unreadable. (Capping how long a run actually waits is the retry loop's decision, not this parser's.)
 */
export function parseRetryAfter(v: string | string[] | undefined): number | null {
  const s = (Array.isArray(v) ? v[0] : v)?.trim();
  if (!s) return null;
  let ms: number;
  if (/^\d+(\.\d+)?$/.test(s)) ms = Number(s) * 1000;
  else if (/[a-z]/i.test(s)) ms = Date.parse(s) - Date.now(); // an HTTP date always names its day and month
  else return null;
  if (Number.isNaN(ms)) return null;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, Math.round(ms)));
}
