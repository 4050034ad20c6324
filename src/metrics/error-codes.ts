// The stable codes a failed request record carries in `code`: one table (code → status, meaning), listed in docs/metrics.md.
import type { RequestStatus } from './record.js';

export interface CodeInfo {
  status: RequestStatus;
  meaning: string;
}

/**
 * Every fixed code. Two families are not listed one by one: `E_HTTP_<nnn>` (http_error, one per HTTP status,
 * e.g. E_HTTP_429) and the OS / undici codes passed through as they come for network errors (UND_ERR_*, E*),
 * because those are what operators search for. Grouping by `code` splits failures by cause; grouping by `status`
 * gives the coarse kind.
 */
export const ERROR_CODES = {
  E_TIMEOUT: { status: 'timeout', meaning: 'no complete response within --timeout' },
  E_HEADERS_TIMEOUT: { status: 'timeout', meaning: 'no response headers for --idle-timeout' },
  E_STREAM_STALLED: { status: 'timeout', meaning: 'headers arrived, then nothing for --idle-timeout' },
  E_CANCELLED: { status: 'cancelled', meaning: 'the run stopped before the request finished' },
  E_CANCELLED_BY_CLIENT: { status: 'cancelled', meaning: 'the client cancelled it on purpose, --cancel-after after send or at the point --cancel-rate drew (docs/metrics.md#request-cancellation)' },
  E_EMPTY: { status: 'empty', meaning: 'HTTP 200 but the response carried no tokens' },
  E_CONTEXT_TOO_LONG: { status: 'http_error', meaning: "HTTP 4xx: the prompt (plus max_tokens) is longer than the model's context or the API's input cap (vLLM/OpenAI \"maximum context length\", context_length_exceeded, SGLang, TGI, llama.cpp \"exceeds the available context size\")" },
  E_MAX_TOKENS_TOO_LARGE: { status: 'http_error', meaning: 'HTTP 4xx: max_tokens is above what the model or API will generate (OpenAI "max_tokens is too large", TGI max_new_tokens)' },
  E_PRIORITY_NOT_ENABLED: { status: 'http_error', meaning: 'HTTP 4xx: the body carried `priority` and the server schedules first come, first served (vLLM "Priority scheduling is not enabled", SGLang without --enable-priority-scheduling)' },
  E_SERVER_OOM: { status: 'http_error', meaning: 'the server ran out of GPU or host memory ("CUDA out of memory", OutOfMemoryError), as an HTTP error or an error event in the stream' },
  E_ENGINE_DEAD: { status: 'http_error', meaning: 'HTTP 5xx: the inference engine behind the API server died (vLLM EngineDeadError, "engine loop has died"); every later request fails until it restarts' },
  E_STREAM_ERROR_EVENT: { status: 'http_error', meaning: 'an error object or `event: error` inside a 200 response' },
  E_SSE_PARSE: { status: 'parse_error', meaning: 'an SSE event whose data is not valid JSON' },
  E_JSON_PARSE: { status: 'parse_error', meaning: "a non-streamed response body that is not valid JSON, or not of its protocol's shape (the message names the part)" },
  E_STREAM_TRUNCATED: { status: 'parse_error', meaning: "a stream whose body ended before its protocol's end event (Anthropic message_stop, Responses response.completed, Ollama done, llama.cpp stop)" },
  E_CONTENT_TYPE: { status: 'parse_error', meaning: 'a stream was asked for and the body is not text/event-stream or JSON' },
  E_LINE_TOO_LONG: { status: 'parse_error', meaning: 'an SSE line or event, or a whole body, longer than --max-line-bytes' },
  E_CONTENT_ENCODING: { status: 'parse_error', meaning: 'a content coding that is not supported or could not be decoded' },
  E_MALFORMED_RESPONSE: { status: 'network_error', meaning: 'bytes that are not a valid HTTP/1.1 response' },
  E_STALE_SOCKET: { status: 'network_error', meaning: 'a reused keep-alive connection closed before any response byte, again after one re-send' },
  E_SOCKET: { status: 'network_error', meaning: 'any other socket error (h1; the OS code is in the message)' },
  E_TLS: { status: 'network_error', meaning: 'the TLS handshake or certificate check failed (h1)' },
  E_INVALID_REQUEST: { status: 'network_error', meaning: 'a header the h1 client refuses to send (CR/LF, bad characters)' },
  E_UNSUPPORTED: { status: 'network_error', meaning: 'a response the h1 client does not handle (101 Switching Protocols)' },
  E_ABORTED: { status: 'network_error', meaning: 'the h1 request was aborted by its caller' },
  E_POOL_CLOSED: { status: 'network_error', meaning: 'the h1 pool was closed before the request could be sent' },
  E_HANDLER: { status: 'network_error', meaning: 'a response handler threw; the connection was destroyed (h1)' },
  E_WORKER: { status: 'network_error', meaning: 'the worker thread sending the request failed (--workers)' },
  E_NETWORK: { status: 'network_error', meaning: 'a transport error that carried no code of its own' },
  E_WS_CLOSED: { status: 'network_error', meaning: 'the WebSocket closed before the end-of-stream message (--backend websocket)' },
  E_WS_PARSE: { status: 'parse_error', meaning: 'a WebSocket message that is not valid JSON (--backend websocket)' },
} as const satisfies Record<string, CodeInfo>;

export type FixedCode = keyof typeof ERROR_CODES;

/** OS codes (ECONNRESET, ECONNREFUSED, ETIMEDOUT, EPIPE, ...) and undici codes (UND_ERR_SOCKET, ...), kept as they come. */
export const PASS_THROUGH = /^(E[A-Z]+|UND_ERR_[A-Z_]+|HPE_[A-Z_]+)$/;

/** The code of an HTTP error status: E_HTTP_429. */
export const httpCode = (status: number | null): string => `E_HTTP_${status ?? 'UNKNOWN'}`;

/** Memory exhaustion in the engines' words: PyTorch's "CUDA out of memory", OutOfMemoryError, cuBLAS/HIP allocation failures. */
const OOM = /out of memory|OutOfMemoryError|\bOOM\b|CUBLAS_STATUS_ALLOC_FAILED|hipErrorOutOfMemory/i;
/** A dead engine behind a live API server: vLLM's EngineDeadError / "EngineCore encountered an issue", its older AsyncEngineDeadError. */
const ENGINE_DEAD = /EngineDeadError|engine (?:loop |core )?(?:has |is )?(?:died|dead)|EngineCore encountered an issue|background loop has errored/i;
/**
 * Prompt too long for the context, as each engine says it: vLLM/OpenAI "maximum context length" (OpenAI's code
 * context_length_exceeded), SGLang "longer than the model's context length", TGI "`inputs` tokens + `max_new_tokens`
 * must be <= N", llama.cpp "exceeds the available context size" (exceed_context_size_error).
 */
const CONTEXT = /context[_ ]length|context size|context window|tokens \+ `?max_new_tokens`? must be|prompt is too long|input (?:is )?too long|input tokens? exceed/i;
/** max_tokens above the cap: OpenAI "max_tokens is too large … supports at most N completion tokens", TGI "`max_new_tokens` must be <= N". */
const MAX_TOKENS = /max_tokens is too large|completion tokens, whereas|`?max_new_tokens`? must be <=|max_(?:completion_)?tokens (?:must be|exceeds?|is above)|output tokens? exceed/i;

/** A request `priority` the server will not honour: vLLM "Got priority N but Priority scheduling is not enabled." (fcfs), SGLang's --enable-priority-scheduling. */
const PRIORITY_OFF = /priority scheduling is not enabled|priority is not enabled|enable[-_]priority[-_]scheduling/i;

/**
 * The code of an HTTP error from its status and the start of its body: the engines' own messages name the cause
 * (out of memory, a dead engine, a prompt over the context, max_tokens over the cap); anything else is E_HTTP_<status>.
 */
export function httpErrorCode(status: number | null, body: string): string {
  if (body) {
    if (OOM.test(body)) return 'E_SERVER_OOM';
    if (status !== null && status >= 500 && ENGINE_DEAD.test(body)) return 'E_ENGINE_DEAD';
    if (status !== null && status >= 400 && status < 500) {
      if (CONTEXT.test(body)) return 'E_CONTEXT_TOO_LONG';
      if (MAX_TOKENS.test(body)) return 'E_MAX_TOKENS_TOO_LARGE';
      if (PRIORITY_OFF.test(body)) return 'E_PRIORITY_NOT_ENABLED';
    }
  }
  return httpCode(status);
}

/** The code of an error event inside a 200 stream: a memory or engine failure by its message, else E_STREAM_ERROR_EVENT. */
export function streamErrorCode(message: string): string {
  return OOM.test(message) ? 'E_SERVER_OOM' : ENGINE_DEAD.test(message) ? 'E_ENGINE_DEAD' : 'E_STREAM_ERROR_EVENT';
}

/** The code a network error is recorded with: the transport's own code when it is one, else E_NETWORK. */
export function networkCode(code: string | undefined): string {
  return code !== undefined && (code in ERROR_CODES || PASS_THROUGH.test(code)) ? code : 'E_NETWORK';
}

/** The status a code belongs to, or null for a code that is not in the table nor in one of its families. */
export function codeStatus(code: string): RequestStatus | null {
  if (code in ERROR_CODES) return ERROR_CODES[code as FixedCode].status;
  if (/^E_HTTP_\d{3}$/.test(code)) return 'http_error';
  if (PASS_THROUGH.test(code)) return 'network_error';
  return null;
}

/**
 * The code of a record written before `code` existed, from its status, http_status and the (stable, tokenflood
 * written) start of its error message; the same code a current run records for the same failure.
 */
export function legacyCode(r: { status: RequestStatus; http_status: number | null; error: string | null; streamed: boolean }): string | null {
  const e = r.error ?? '';
  switch (r.status) {
    case 'ok':
      return null;
    case 'cancelled':
      return 'E_CANCELLED';
    case 'empty':
      return 'E_EMPTY';
    case 'http_error':
      // tokenflood writes "HTTP <status>: <body start>", so the body is what follows the first ": ".
      return e.startsWith('error event in stream') ? streamErrorCode(e) : httpErrorCode(r.http_status, e.slice(e.indexOf(': ') + 2 || e.length));
    case 'timeout':
      return e.startsWith('no response headers') ? 'E_HEADERS_TIMEOUT' : e.startsWith('stream stalled') ? 'E_STREAM_STALLED' : 'E_TIMEOUT';
    case 'network_error':
      if (e.startsWith('worker thread') || e.startsWith('every worker thread')) return 'E_WORKER';
      const m = /^([A-Z][A-Z0-9_]*): (.*?)(?: \((?:before response headers|mid-stream)\))?$/.exec(e);
      return networkCode(undiciCode(m?.[1], m?.[2]));
    case 'parse_error':
      if (e.startsWith('expected an event stream')) return 'E_CONTENT_TYPE';
      if (e.startsWith('stream ended without its end event')) return 'E_STREAM_TRUNCATED';
      if (e.includes('(--max-line-bytes)')) return 'E_LINE_TOO_LONG';
      if (e.startsWith('content-encoding') || e.startsWith('could not decode')) return 'E_CONTENT_ENCODING';
      return r.streamed ? 'E_SSE_PARSE' : 'E_JSON_PARSE';
  }
}

/**
 * The record code of an undici error: "other side closed" (the server's FIN before the response was complete) is
 * what h1 records as ECONNRESET (backends/h1/errors.ts closedEarly), so both transports group alike; others keep their code.
 */
export function undiciCode(code: string | undefined, message: string | undefined): string | undefined {
  return code === 'UND_ERR_SOCKET' && (message === 'other side closed' || message === 'closed') ? 'ECONNRESET' : code;
}
