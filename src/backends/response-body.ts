// How one HTTP response body is read: its mode (SSE, NDJSON, one JSON body, an error body), decoding, and the events it counts.
import { SseParser, type SseEvent } from './sse.js';
import { NdjsonParser, isNdjsonType } from './ndjson.js';
import type { ResponseClassifier } from './backend.js';
import type { EventLog } from './event-log.js';
import { BodyDecoder, contentCoding, isJsonType, mediaType, singletonField } from './content.js';
import { bodyText, errorBodyText, MAX_ERROR_BODY } from './exchange-parts.js';
import { markHttpError } from './exchange-failure.js';
import type { RawRequest } from '../metrics/record.js';

/** How the response body is read, decided by its status line and content type. */
export type BodyMode = 'sse' | 'ndjson' | 'text' | 'error';

/** What the reader needs from its exchange. */
export interface BodyOwner {
  /** ms since the request was sent. */
  elapsed(): number;
  /** The body cannot be read: stop receiving it, the request is a parse_error with `code`. */
  rejectBody(code: string, why: string): void;
  /** The whole body was delivered (decoded when compressed): complete() may run. */
  bodyEnded(): void;
}

/**
 * The body of one response. Per streamed chunk it takes one timestamp and feeds the SSE or NDJSON parser; per event
 * it classifies and counts into the event log. A non-streamed or error body is kept (error bodies up to
 * MAX_ERROR_BODY bytes) and read once at the end.
 */
export class ResponseBody {
  mode: BodyMode = 'text';
  /** The Content-Type as sent (for messages) and its media type, lowercased without parameters. */
  private contentType = '';
  private media = '';
  private parser: SseParser | NdjsonParser | null = null;
  private decoder: BodyDecoder | null = null;
  /** A data: [DONE] arrived: later events are ignored and counted. */
  private done = false;
  /** Time of the chunk being parsed: every event completed by it gets this timestamp. */
  private t = 0;
  /** Body bytes kept for a non-streamed or error response. */
  private parts: Buffer[] = [];
  private bytes = 0;
  /** Taken once per request: the per-event calls are direct, with no lookup. */
  private readonly classify: ResponseClassifier['classifyData'];
  private readonly classifyError: ResponseClassifier['classifyErrorEvent'];

  constructor(
    private readonly raw: RawRequest,
    private readonly log: EventLog,
    private readonly classifier: ResponseClassifier,
    private readonly o: { stream: boolean; maxLineBytes: number },
    private readonly owner: BodyOwner,
  ) {
    this.classify = classifier.streamClassifier?.() ?? classifier.classifyData;
    this.classifyError = classifier.classifyErrorEvent;
  }

  /** The stream was read event by event (SSE or NDJSON). */
  get streamedEvents(): boolean {
    return this.mode === 'sse' || this.mode === 'ndjson';
  }

  /** The status line and headers decide how the body is read. */
  start(statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    this.contentType = singletonField(headers['content-type']);
    this.media = mediaType(headers['content-type']);
    if (statusCode >= 300) this.mode = 'error';
    else if (this.o.stream && this.media === 'text/event-stream') {
      this.mode = 'sse';
      this.parser = new SseParser(this.onEvent, this.o.maxLineBytes);
    } else if (this.o.stream && this.classifier.framing === 'ndjson' && isNdjsonType(this.media)) {
      this.mode = 'ndjson';
      this.parser = new NdjsonParser(this.onLine, this.o.maxLineBytes);
    }
    // tokenflood asks for identity; a server that compresses anyway is decoded, or failed when it cannot be.
    const { coding, error } = contentCoding(headers['content-encoding']);
    if (coding) this.decoder = new BodyDecoder(coding, this.body, this.decoded);
    else if (error && this.mode !== 'error') this.owner.rejectBody('E_CONTENT_ENCODING', error);
  }

  /** Bytes as they arrive from the transport. */
  write(chunk: Buffer): void {
    if (this.decoder) this.decoder.write(chunk);
    else this.body(chunk);
  }

  /** The transport delivered the last byte: bodyEnded() follows once a decoder has delivered the rest. */
  end(): void {
    if (this.decoder) this.decoder.end();
    else this.owner.bodyEnded();
  }

  destroy(): void {
    this.decoder?.destroy();
  }

  /** Body bytes as they became readable (decompressed when the server compressed them). */
  private readonly body = (chunk: Buffer): void => {
    if (this.parser) {
      this.t = this.owner.elapsed();
      this.parser.push(chunk);
      if (this.parser.overflow) this.owner.rejectBody('E_LINE_TOO_LONG', this.parser.overflow);
    } else {
      // Error bodies: only the first MAX_ERROR_BODY bytes are kept (the rest is read and dropped).
      // Copied: H1Pool reuses its read buffer once this call returns.
      if (this.mode === 'text' || this.bytes < MAX_ERROR_BODY) this.parts.push(Buffer.from(chunk));
      this.bytes += chunk.length;
      if (this.mode === 'text' && this.bytes > this.o.maxLineBytes)
        this.owner.rejectBody('E_LINE_TOO_LONG', `a response body longer than ${this.o.maxLineBytes} bytes (--max-line-bytes)`);
    }
  };

  private readonly decoded = (err: Error | null): void => {
    if (err) this.owner.rejectBody('E_CONTENT_ENCODING', `could not decode the compressed body: ${err.message}`);
    else this.owner.bodyEnded();
  };

  /** The body is over: the last events, the end time, a non-streamed body read. False when it was rejected instead. */
  complete(): boolean {
    const raw = this.raw;
    if (this.parser) {
      this.t = this.owner.elapsed();
      this.parser.end();
      if (this.parser.overflow) {
        this.owner.rejectBody('E_LINE_TOO_LONG', this.parser.overflow);
        return false;
      }
      raw.end_ms = this.owner.elapsed();
    } else if (this.mode === 'error') {
      raw.end_ms = this.owner.elapsed();
      markHttpError(raw, errorBodyText(this.parts));
    } else {
      // Non-streaming (or a server that ignored stream: true): one body, TTFT = E2E.
      const text = bodyText(this.parts);
      raw.end_ms = this.owner.elapsed();
      raw.streamed = false;
      if (this.o.stream && !isJsonType(this.media)) {
        raw.status = 'parse_error';
        raw.code = 'E_CONTENT_TYPE';
        raw.error = `expected an event stream, got content-type "${this.contentType || 'none'}": ${text.slice(0, 200)}`;
      } else this.log.absorb(this.classify(text), raw.end_ms);
    }
    return true;
  }

  private readonly onEvent = (ev: SseEvent): void => {
    if (this.done) {
      this.raw.events_after_done++; // a stream is over at [DONE]: what follows is not measured
    } else if (ev.type === 'comment') {
      this.log.mark('c', this.t);
    } else if (ev.event === 'error') {
      this.log.absorb(this.classifyError(ev.data), this.t);
    } else {
      const info = this.classify(ev.data, ev.event);
      this.log.absorb(info, this.t);
      if (info.kind === 'd') this.done = true;
    }
  };

  /** One NDJSON line: a blank one is a keep-alive (recorded like an SSE comment), any other is one event. */
  private readonly onLine = (line: string): void => {
    if (this.done) {
      this.raw.events_after_done++;
    } else if (line === '') {
      this.log.mark('c', this.t);
    } else {
      const info = this.classify(line);
      this.log.absorb(info, this.t);
      if (info.kind === 'd') this.done = true;
    }
  };
}
