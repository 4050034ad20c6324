// The one verdict on a finished exchange (HTTP SSE/NDJSON/JSON or WebSocket): an ok answer is judged by what it carried.
import type { RawRequest } from '../metrics/record.js';
import type { EventLog } from './event-log.js';
import type { Usage } from './usage.js';
import { streamErrorCode } from '../metrics/error-codes.js';

/** How a protocol words the verdicts: the codes stay the same across protocols except the parse code. */
export interface SettleWording {
  /** Code of an event that could not be read: E_SSE_PARSE, E_JSON_PARSE or E_WS_PARSE. */
  parseCode: string;
  /** The record's error for an error event in the stream (its text, server-sent, as given). */
  streamError: (text: string) => string;
  /** The record's error for an answer that carried no tokens and no samples. */
  noTokens: string;
  /** The record's error for an answer that said it carried 0 samples (embeddings, rerank). */
  noResults: string;
}

/**
 * Close the event log into the record, then judge a record still `ok`: an error event → http_error
 * E_STREAM_ERROR_EVENT (E_SERVER_OOM / E_ENGINE_DEAD when its message says so); an unreadable event → parse_error; a missing end event → E_STREAM_TRUNCATED; neither
 * tokens nor samples (embeddings and rerank count samples, not tokens) → empty E_EMPTY. A failed record keeps its status.
 * `missingEnd` names the protocol's end event when the stream had to carry one and did not.
 */
export function settleRecord(raw: RawRequest, log: EventLog, maxTokens: number, w: SettleWording, missingEnd?: string): { usage: Usage | null; reasoningText: string; answerText: string } {
  const texts = log.finish(maxTokens);
  if (raw.status !== 'ok') return texts;
  const { streamError, parseError } = log;
  if (streamError) {
    raw.status = 'http_error';
    raw.code = streamErrorCode(streamError);
    raw.error = w.streamError(streamError);
  } else if (parseError) {
    raw.status = 'parse_error';
    raw.code = w.parseCode;
    raw.error = parseError;
  } else if (missingEnd !== undefined) {
    // The body ended cleanly, the protocol's stream did not: whatever was read is not a whole answer.
    raw.status = 'parse_error';
    raw.code = 'E_STREAM_TRUNCATED';
    raw.error = `stream ended without its end event (${missingEnd}): cut short`;
  } else if (raw.reasoning_chars + raw.answer_chars === 0 && !raw.samples) {
    raw.status = 'empty';
    raw.code = 'E_EMPTY';
    raw.error = raw.samples === 0 ? w.noResults : w.noTokens;
  }
  return texts;
}
