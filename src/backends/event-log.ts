// What a stream reader collects from its classified events, whatever the transport (HTTP SSE/NDJSON, WebSocket).
import type { ChunkInfo } from './backend.js';
import type { RawRequest } from '../metrics/record.js';
import { withRates, type ServerTimings } from '../metrics/server-timings.js';
import { applyUsage, mergeUsage, type Usage, type UsageReport } from './usage.js';

/**
 * One request's events as they are read: their times and kinds (into the record), the answer and reasoning text,
 * the usage (merged: Anthropic sends input and output tokens in two events), server timings, and the first error
 * event and first unreadable event. Called once per event on the hot path: no allocation beyond the text parts.
 */
export class EventLog {
  private kinds = '';
  private readonly reasoningParts: string[] = [];
  private readonly answerParts: string[] = [];
  private usage: UsageReport | null = null;
  /** Server-side timings reported so far (native engine APIs); merged, the last value of a field wins. */
  private server: Partial<ServerTimings> | null = null;
  /** The first error event's text (an error object or `event: error`). */
  streamError: string | null = null;
  /** The first event that could not be read. */
  parseError: string | null = null;
  private contentSeen = false;
  /** The protocol's end-of-stream event was read (ChunkInfo.ended). */
  sawEnd = false;

  /** `onContent` is called per content event with the request's TTFT (ms since send) at its first one, else null. */
  constructor(
    private readonly raw: RawRequest,
    private readonly onContent?: (firstTokenMs: number | null) => void,
  ) {}

  /** An event that carries nothing measured (an SSE comment `c`, a heartbeat `h`): timed and kept, never content. */
  mark(kind: 'c' | 'h', t: number): void {
    this.raw.event_times_ms.push(t);
    this.kinds += kind;
  }

  absorb(info: ChunkInfo, t: number): void {
    const raw = this.raw;
    raw.event_times_ms.push(t);
    this.kinds += info.kind;
    if (info.kind === 'a' || info.kind === 'R') {
      // The live TTFT is taken here, when the first token arrives, not when the request ends (warmup never counts).
      const first = this.contentSeen || raw.warmup ? null : t;
      this.contentSeen = true;
      this.onContent?.(first);
    }
    if (info.reasoning) {
      this.reasoningParts.push(info.reasoning);
      raw.reasoning_chars += info.reasoning.length;
    }
    if (info.answer) {
      this.answerParts.push(info.answer);
      raw.answer_chars += info.answer.length;
    }
    if (info.usage) this.usage = this.usage ? mergeUsage(this.usage, info.usage) : info.usage;
    if (info.server) this.server = this.server ? Object.assign(this.server, info.server) : { ...info.server };
    if (info.finishReason) raw.finish_reason = info.finishReason;
    if (info.samples !== undefined) raw.samples = info.samples;
    if (info.ended) this.sawEnd = true;
    if (info.kind === 'e') this.streamError ??= info.error;
    else if (info.error) this.parseError ??= info.error;
  }

  /** At the end: event kinds, server timings and the judged usage into the record; the texts for the result. */
  finish(maxTokens: number): { usage: Usage | null; reasoningText: string; answerText: string } {
    const raw = this.raw;
    raw.event_kinds = this.kinds;
    if (this.server) Object.assign(raw, withRates(this.server));
    const usage = this.usage ? applyUsage(raw, this.usage, maxTokens) : null;
    return { usage, reasoningText: this.reasoningParts.join(''), answerText: this.answerParts.join('') };
  }
}
