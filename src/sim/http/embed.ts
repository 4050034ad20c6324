// The sim server's embeddings and rerank endpoints (OpenAI /v1/embeddings, TEI /embed, Cohere/Jina and TEI /rerank).
import type { ServerResponse } from 'node:http';
import type { Tokenizer } from '../../dataset/tokenizer.js';
import { sendError, sendJson } from './errors.js';

/**
 * The encoder's pace: a fixed cost per request plus a cost per input token, in simulated ms (an encoder of a few
 * hundred million parameters reads ~100k tokens/s on one GPU). Wall time is these divided by --sim-time-scale.
 */
export const EMBED_BASE_MS = 2;
export const EMBED_MS_PER_TOKEN = 0.01;
/** Length of the vectors returned (small: the load is the server's, not the JSON). */
export const EMBED_DIMENSIONS = 8;

export type EmbedShape = 'openai-embeddings' | 'tei-embed' | 'rerank';

const strings = (v: unknown): string[] | null => (typeof v === 'string' ? [v] : Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : null);

/** A unit vector that depends on the text only (FNV-1a of the text seeds it). */
function vector(text: string): number[] {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  const v = Array.from({ length: EMBED_DIMENSIONS }, (_, i) => Math.sin(h + i * 7919));
  const n = Math.hypot(...v) || 1;
  return v.map((x) => Math.round((x / n) * 1e6) / 1e6);
}

/** Answer one request after the encoder's simulated time; bad bodies get a 400 naming the field. */
export function serveEmbed(shape: EmbedShape, raw: string, res: ServerResponse, o: { tok: Tokenizer; timeScale: number; model: string; timers: Set<NodeJS.Timeout> }): void {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(raw) as Record<string, unknown>;
  } catch (e) {
    return sendError(res, 400, `Invalid JSON body: ${(e as Error).message}`);
  }
  if (!body || typeof body !== 'object') return sendError(res, 400, 'expected a JSON object');
  let reply: () => unknown;
  let texts: string[] | null;
  if (shape === 'rerank') {
    // One path, two shapes: Cohere/Jina send `documents`, TEI sends `texts`.
    const tei = body.texts !== undefined;
    texts = strings(tei ? body.texts : body.documents);
    if (typeof body.query !== 'string') return sendError(res, 400, '`query` must be a string');
    if (!texts) return sendError(res, 400, `\`${tei ? 'texts' : 'documents'}\` must be a list of strings`);
    const query = body.query;
    const docs = texts;
    const scores = () => docs.map((d, index) => ({ index, score: Math.abs(vector(query + d)[0]) })).sort((a, b) => b.score - a.score);
    const tokens = o.tok.count(query) + docs.reduce((a, d) => a + o.tok.count(d), 0);
    reply = tei
      ? scores
      : () => ({ id: 'rerank-sim', model: o.model, results: scores().map((s) => ({ index: s.index, relevance_score: s.score })), usage: { total_tokens: tokens } });
  } else {
    texts = strings(shape === 'tei-embed' ? body.inputs : body.input);
    if (!texts) return sendError(res, 400, `\`${shape === 'tei-embed' ? 'inputs' : 'input'}\` must be a string or a list of strings`);
    const ts = texts;
    const tokens = ts.reduce((a, t) => a + o.tok.count(t), 0);
    reply =
      shape === 'tei-embed'
        ? () => ts.map(vector)
        : () => ({ object: 'list', model: o.model, data: ts.map((t, index) => ({ object: 'embedding', index, embedding: vector(t) })), usage: { prompt_tokens: tokens, total_tokens: tokens } });
  }
  const tokens = texts.reduce((a, t) => a + o.tok.count(t), 0);
  const t = setTimeout(() => {
    o.timers.delete(t);
    if (!res.destroyed) sendJson(res, reply());
  }, (EMBED_BASE_MS + tokens * EMBED_MS_PER_TOKEN) / o.timeScale);
  o.timers.add(t);
}
