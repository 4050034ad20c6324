// Per-request time outside the engine (API server, tokenization, detokenization and streaming), pure.
import type { EngineSpec } from './config.js';

/**
 * outside = apiServerMs + tokenizeMsPerToken·promptTokens + detokenizeMsPerToken·tokensPerChunk.
 * The API server's share and tokenization come before the engine sees the request; detokenization and streaming
 * delay every chunk by the same lag after the step that produced it. A client only sees the send and the token
 * arrivals, and a constant lag on every token of every request is the same to it (and to the engine, which then
 * sees the same arrivals shifted by a constant) as a delay before admission, so the drivers apply the sum before
 * `engine.add` and deliver tokens at the step's end.
 */
export function outsideEngineMs(spec: EngineSpec, promptTokens: number, tokensPerChunk = 1): number {
  return spec.apiServerMs + spec.tokenizeMsPerToken * promptTokens + spec.detokenizeMsPerToken * tokensPerChunk;
}
