// The Backend interface every protocol implements: the request path and body, and what a response's data carried.
import type { RequestSpec } from '../dataset/types.js';
import type { MediaCarry } from './media-content.js';
import type { EventKind } from '../metrics/record.js';
import type { UsageReport } from './usage.js';
import type { ServerTimings } from '../metrics/server-timings.js';

/** Sampling and shaping options of one request body; the protocol decides where each goes. */
export interface BodyOptions {
  model: string;
  stream: boolean;
  ignoreEos: boolean;
  temperature?: number;
  topP?: number;
  topK?: number;
  seed?: number;
  extraBody?: Record<string, unknown>;
  /** --tools N: synthetic function definitions on every chat request (OpenAI chat bodies). */
  tools?: number;
  /** Inputs per request of the embeddings and rerank backends (--batch-size). */
  batchSize?: number;
  /** Put the request's priority (RequestSpec.priority) in the body: OpenAI chat and completions only; false with --no-priority-send. */
  sendPriority?: boolean;
}

/** What one parsed data event (or a whole non-streamed body) carried. */
export interface ChunkInfo {
  kind: EventKind;
  reasoning: string;
  answer: string;
  /** The usage values as sent; judged once the response is complete (see usage.ts). */
  usage: UsageReport | null;
  finishReason: string | null;
  error: string | null;
  /** Server-side timings this event reported (native engine APIs, usually on the last event); absent otherwise. */
  server?: Partial<ServerTimings> | null;
  /** Embeddings and rerank: the results (vectors, scores) the response carried; absent for generation. */
  samples?: number;
  /** This event is the protocol's end of stream (`endEvent` below); it may carry text too (Ollama, llama.cpp). */
  ended?: boolean;
}

/** How a response is read: called per event on the hot path, so each is a plain function taken once per request. */
export interface ResponseClassifier {
  /** How a streamed body is framed: SSE events (the default) or NDJSON, one JSON object per line (see ndjson.ts). */
  readonly framing?: 'sse' | 'ndjson';
  /** One SSE data payload (with its `event:` name, when the stream named it), or a whole non-streamed body. */
  classifyData(data: string, event?: string): ChunkInfo;
  /** The data of an SSE `event: error`. */
  classifyErrorEvent(data: string): ChunkInfo;
  /**
   * A classifyData for one response, free to remember its earlier events to read the next ones faster; it must
   * return exactly what classifyData returns (openai-common.ts, chunk-scan.ts). Absent: classifyData is used.
   */
  streamClassifier?(): (data: string, event?: string) => ChunkInfo;
  /**
   * The event every complete stream of this protocol ends with (Anthropic `message_stop`, …): a stream whose body
   * ends without it was cut short, a failed record (E_STREAM_TRUNCATED). Absent: the body's end is the stream's.
   */
  readonly endEvent?: string;
}

export interface Backend extends ResponseClassifier {
  readonly kind: string;
  /** Path appended to --base-url (before its query string). */
  readonly path: string;
  /** The path when it names the model (Triton's /v2/models/{model}/generate_stream); `path` otherwise. */
  pathFor?(model: string): string;
  /** The --endpoint this backend answers to: whether workloads build chat messages or a flat prompt. */
  readonly endpoint: 'chat' | 'completions';
  /** The server streams whatever the body says (TGI's and Triton's generate_stream): --no-stream cannot apply. */
  readonly streamOnly?: boolean;
  /** The media kinds its body carries (docs/workloads.md#images-video-and-audio); absent: text only. */
  readonly media?: readonly MediaCarry[];
  /** The JSON body of one request. */
  buildBody(spec: RequestSpec, o: BodyOptions): Record<string, unknown>;
  /** A body that is not JSON (multipart/form-data uploads): its bytes, sent with `contentType` instead of buildBody's JSON. */
  encodeBody?(spec: RequestSpec, o: BodyOptions): Uint8Array;
  /** The request content-type when not application/json. */
  readonly contentType?: string;
  /** The headers that carry the API key (and protocol version); absent: `Authorization: Bearer <key>`. */
  authHeaders?(apiKey: string | undefined): Record<string, string>;
}
