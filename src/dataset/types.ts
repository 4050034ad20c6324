// The request a workload hands to the scheduler: what to send, independent of protocol.

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/**
 * One media item of a request (issue 28: images, video, audio), synthetic or from a dataset. It belongs to the request's
 * last user message; each backend renders it as its protocol's content part (docs/workloads.md#images-video-and-audio).
 */
export interface MediaPart {
  kind: 'image' | 'audio' | 'video';
  /** MIME type: image/png, image/jpeg, audio/wav, audio/mpeg, video/mp4 …; for a remote `url`, as declared or guessed. */
  mime: string;
  /** The encoded bytes (a backend base64-encodes them into a data URL or a base64 source); absent for a remote `url`. */
  data?: Uint8Array;
  /** A remote URL, passed through as given (datasets); the run must have been told about its host. */
  url?: string;
  /** Images and video: pixels per image or frame. */
  width?: number;
  height?: number;
  /** Video: frames and frames per second (a clip, or sent as `frames` images where the protocol has no video part). */
  frames?: number;
  fps?: number;
  /** Audio: length, sample rate, channels. */
  seconds?: number;
  sampleRate?: number;
  channels?: number;
  /** Hex digest of the bytes (of the URL when remote): equal media, equal hash (a server's multimodal cache key). */
  hash: string;
  /** Client time spent generating and encoding it, ms (off the measuring thread). */
  encodeMs?: number;
}

export interface RequestSpec {
  /** Chat form of the prompt (used by the chat endpoint). */
  messages: ChatMessage[];
  /** Flat form of the prompt (used by the completions endpoint). */
  prompt: string;
  /** Prompt length as counted by the run's tokenizer (expected input tokens). */
  inputTokens: number;
  /** Output length to ask for (`max_tokens`); with ignore_eos the server should produce exactly this many. */
  maxTokens: number;
  /** Traffic class (e.g. "short", "rag"); summaries break metrics down by it. */
  class?: string;
  /** The user it belongs to (a dataset's or trace's `user` field): summary.json by_user. */
  user?: string;
  /** The body's `priority` (lower runs first): the data's `priority` field, else --priority-mix's draw (dataset/priority.ts). */
  priority?: number;
  /** Multi-turn: the session (virtual user conversation) and 0-based turn index. */
  sessionId?: string;
  turn?: number;
  /** Trace replay: the subagent the request belongs to (undefined: the session's main agent). */
  agent?: string;
  /** Trace replay: the instance (endpoint name) the trace line says served it; routing sends it there (docs/routing.md). */
  instance?: string;
  /** Trace replay: the request's KV-cache block ids (prefix-hash routing can hash on them). */
  hashIds?: readonly number[];
  /** Trace replay: prompt tokens an unlimited prefix cache could serve for this request (the trace's cache ceiling, in arrival order). */
  ceilingTokens?: number;
  /** Trace replay: how long this turn waited for its subagents to finish (join), and for its predecessor's mocked tool call, ms. */
  joinWaitMs?: number;
  toolWaitMs?: number;
  /** Trace replay: when to send, ms relative to the first request. */
  timestampMs?: number;
  /** The shared-prefix group (0-based) of a synthetic prompt with --prefix-tokens: prefix-hash routes on it. */
  prefixGroup?: number;
  /** Let the model stop on its own (graded eval items): no ignore_eos/min_tokens even when the run sends them. */
  natural?: boolean;
  /** Dataset or trace provenance, e.g. "data.jsonl:17" (written to the record as `source` for trace replay). */
  source?: string;
  /** Images, video and audio of the last user message, in order (issue 28). */
  media?: MediaPart[];
}
