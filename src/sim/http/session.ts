// One open generation request on the sim server: turns engine tokens into SSE chunks or a whole response, applying faults.
import type { ServerResponse } from 'node:http';
import type { Rng } from '../../util/rng.js';
import { malformedEvent, usage, type ResponseIdentity } from './chunks.js';
import type { SimTimings, Wire, WireEnd } from './wire.js';
import type { ActiveFaults } from './faults.js';
import type { EndpointKind } from './parse.js';
import type { TextSource } from './text.js';

export interface SessionInit {
  res: ServerResponse;
  kind: EndpointKind;
  identity: ResponseIdentity;
  /** The protocol's writer (src/sim/http/wire.ts). */
  wire: Wire;
  stream: boolean;
  includeUsage: boolean;
  promptTokens: number;
  outputTokens: number;
  /** The first `reasoningTokens` output tokens are reasoning text. */
  reasoningTokens: number;
  finishReason: 'length' | 'stop';
  tokensPerChunk: number;
  faults: ActiveFaults;
  text: TextSource;
  rng: Rng;
  /** Response headers sent with the stream (sim markers). */
  headers: Record<string, string>;
  /** The stream was cut on purpose (drop fault): abort the request in the engine. */
  onDrop(): void;
  /** The engine's timings of this request so far (read when the last token is written). */
  timings?(): SimTimings;
  /** usage.prompt_tokens_details image_tokens / audio_tokens (media in the prompt). */
  mediaUsage?: { image_tokens?: number; audio_tokens?: number };
}

export interface Session {
  /** Send headers (streams) and start heartbeats. */
  open(): void;
  setCachedTokens(n: number): void;
  /** Output token `index` (1-based) arrived; `finished` on the last one. */
  token(index: number, finished: boolean): void;
  /** True once the response is complete or the connection is gone. */
  done(): boolean;
  /** Stop timers and end the connection (server shutdown or client gone). */
  close(): void;
}

export function createSession(s: SessionInit): Session {
  const { res, faults } = s;
  let cached = 0;
  let finished = false;
  let closed = false;
  let sentRole = false;
  let tokensSent = 0;
  let malformedSent = false;
  let stallDone = false;
  let held: string[] | undefined;
  let buffer = '';
  let buffered = 0;
  let bufferField: 'content' | 'reasoning_content' = 'content';
  let reasoningText = '';
  let contentText = '';
  const timers: NodeJS.Timeout[] = [];
  const firstChunkTokens = faults.bigFirstChunk?.tokens ?? s.tokensPerChunk;
  const ending = (): WireEnd => ({ usage: u(), timings: s.timings?.() ?? { queueMs: 0, promptEvalMs: 0, evalMs: 0, totalMs: 0 }, finish: s.finishReason });

  const write = (chunk: string): void => {
    if (closed || chunk === '') return;
    if (held) held.push(chunk);
    else res.write(chunk);
  };
  const close = (): void => {
    if (closed) return;
    closed = true;
    clearTimers();
    if (!res.writableEnded) res.destroy();
  };
  const clearTimers = (): void => {
    for (const t of timers) clearTimeout(t), clearInterval(t);
  };
  /** Complete the response now, or when a running stall releases its held chunks. */
  const end = (body?: string): void => {
    finished = true;
    if (held || closed) return;
    clearTimers();
    closed = true;
    res.end(body);
  };
  const stall = (): void => {
    if (!faults.stall || stallDone || tokensSent < faults.stall.afterTokens) return;
    stallDone = true;
    held = [];
    timers.push(
      setTimeout(() => {
        const queued = held ?? [];
        held = undefined;
        for (const c of queued) if (!closed) res.write(c);
        if (finished && !faults.neverEnding) end();
      }, faults.stall.ms),
    );
  };
  /** Faults that trigger on the number of tokens already sent; true if the stream was cut. */
  const afterTokens = (): boolean => {
    if (faults.drop && tokensSent >= faults.drop.afterTokens) {
      close();
      s.onDrop();
      return true;
    }
    if (s.stream && faults.malformed && !malformedSent && tokensSent >= faults.malformed.afterTokens) {
      malformedSent = true;
      write(malformedEvent(s.identity));
    }
    stall();
    return false;
  };
  const flush = (last: boolean): void => {
    if (buffered === 0 && !last) return;
    const finish = last && !faults.neverEnding ? s.finishReason : null;
    if (!sentRole) {
      sentRole = true;
      write(s.wire.start(cached));
    }
    if (buffered > 0 || finish) write(s.wire.delta(buffer, bufferField, finish ? ending() : null));
    tokensSent += buffered;
    buffer = '';
    buffered = 0;
  };
  const u = () => usage(s.promptTokens, s.outputTokens, cached, s.reasoningTokens, s.mediaUsage);

  return {
    open() {
      if (!s.stream) return;
      res.writeHead(200, { 'content-type': s.wire.contentType, 'cache-control': 'no-cache', connection: 'keep-alive', ...s.headers });
      res.flushHeaders();
      if (faults.heartbeat) timers.push(setInterval(() => write(s.wire.heartbeat), faults.heartbeat.intervalMs));
    },
    setCachedTokens: (n) => void (cached = n),
    done: () => finished || closed,
    close,
    token(index, last) {
      if (closed || finished) return;
      const text = s.text.next(s.rng, index - 1);
      const field = index <= s.reasoningTokens ? 'reasoning_content' : 'content';
      if (field === 'reasoning_content') reasoningText += text;
      else contentText += text;
      if (!s.stream) {
        tokensSent = index;
        if (faults.drop && tokensSent >= faults.drop.afterTokens) return void afterTokens();
        if (!last) return;
        const body = JSON.stringify(s.wire.whole(s.reasoningTokens > 0 ? reasoningText : null, contentText, ending()));
        const out = faults.malformed ? body.slice(0, Math.floor(body.length / 2)) : body;
        const send = (): void => {
          if (closed) return;
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out), ...s.headers });
          end(out);
        };
        finished = true;
        if (faults.stall) timers.push(setTimeout(send, faults.stall.ms));
        else send();
        return;
      }
      if (field !== bufferField && buffered > 0) {
        flush(false);
        if (afterTokens()) return;
      }
      bufferField = field;
      buffer += text;
      buffered++;
      const size = tokensSent === 0 ? firstChunkTokens : s.tokensPerChunk;
      if (!last && buffered < size) return;
      flush(last);
      if (afterTokens()) return;
      if (!last) return;
      if (faults.neverEnding) {
        finished = true; // the engine is done; the connection stays open until the client or server closes it
        return;
      }
      write(s.wire.end(ending(), s.includeUsage));
      end();
    },
  };
}
