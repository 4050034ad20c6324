// Why an HTTP request failed, from what is known at the moment it did: the status, code and message of its record.
import { H1Error } from './h1/index.js';
import { httpErrorCode } from '../metrics/error-codes.js';
import { classifyNetworkError } from './exchange-parts.js';
import type { RawRequest } from '../metrics/record.js';

/** What the exchange knew when the request failed or was aborted. */
export interface FailureFacts {
  /** The status line was already an error (3xx and above). */
  httpErrorStatus: boolean;
  /** The body could not be read (too long, undecodable). */
  bodyError: { code: string; message: string } | null;
  timedOut: boolean;
  stalled: boolean;
  /** The client's planned cancel (--cancel-after/--cancel-rate) fired. */
  cancelledByClient?: boolean;
  aborted: boolean;
  timeoutMs: number;
  idleMs: number;
}

/** An error status line: http_error with the code its status and body name (error-codes.ts), and the start of the error body when there is one. */
export function markHttpError(raw: RawRequest, text: string): void {
  raw.status = 'http_error';
  raw.code = httpErrorCode(raw.http_status, text);
  raw.error = `HTTP ${raw.http_status}${text ? `: ${text}` : ''}`;
}

/** Status, code and error of a request that failed with `err` (null when tokenflood itself ended it). */
export function markFailure(raw: RawRequest, f: FailureFacts, err: unknown): void {
  if (f.httpErrorStatus) {
    markHttpError(raw, ''); // the status line already said it failed; an unreadable error body adds nothing
  } else if (f.bodyError) {
    raw.status = 'parse_error';
    raw.code = f.bodyError.code;
    raw.error = f.bodyError.message;
  } else if (f.timedOut) {
    raw.status = 'timeout';
    raw.code = 'E_TIMEOUT';
    raw.error = `no complete response within ${f.timeoutMs / 1000} s`;
  } else if (f.stalled) {
    raw.status = 'timeout';
    raw.code = raw.headers_ms === null ? 'E_HEADERS_TIMEOUT' : 'E_STREAM_STALLED';
    raw.error = `${raw.headers_ms === null ? 'no response headers' : 'stream stalled'}: nothing received for ${f.idleMs / 1000} s (--idle-timeout)`;
  } else if (f.cancelledByClient) {
    markClientCancel(raw);
  } else if (f.aborted) {
    raw.status = 'cancelled';
    raw.code = 'E_CANCELLED';
    raw.error = 'run stopped before the request finished';
  } else if (err instanceof H1Error) {
    // H1Error messages already say where it happened ("before response headers", "mid-body").
    raw.status = 'network_error';
    raw.code = err.code;
    raw.error = `${err.code}: ${err.message}`;
  } else {
    const c = classifyNetworkError(err, raw.headers_ms === null);
    raw.status = c.status;
    raw.code = c.code;
    raw.error = raw.headers_ms === null ? `${c.message} (before response headers)` : `${c.message} (mid-stream)`;
  }
}

/** A request the client cancelled on purpose (--cancel-after/--cancel-rate): cancelled, E_CANCELLED_BY_CLIENT, when. */
export function markClientCancel(raw: RawRequest): void {
  raw.status = 'cancelled';
  raw.code = 'E_CANCELLED_BY_CLIENT';
  raw.error = `cancelled by the client ${raw.end_ms === null ? '' : `${Math.round(raw.end_ms)} ms `}after send (--cancel-after/--cancel-rate)`;
}
