// Non-streaming embeddings backends: OpenAI (POST /embeddings) and Hugging Face TEI (POST /embed), --batch-size inputs each.
import type { Backend, BodyOptions, ChunkInfo } from './backend.js';
import type { RequestSpec } from '../dataset/types.js';
import { parseUsage } from './openai-common.js';

type Json = Record<string, unknown>;

/** The inputs of one request: the workload's prompt, --batch-size times (so every input has the workload's length). */
export const batchInputs = (spec: RequestSpec, o: BodyOptions): string[] => Array.from({ length: o.batchSize ?? 1 }, () => spec.prompt);

/** A blank classification of a whole non-streamed body. */
export const blankInfo = (): ChunkInfo => ({ kind: 'x', reasoning: '', answer: '', usage: null, finishReason: null, error: null });

/** Parse a whole body; an error object (OpenAI `{"error":…}`, TEI `{"error":"…","error_type":…}`) or bad JSON says so. */
export function parseBody(data: string): { doc: unknown } | { info: ChunkInfo } {
  const info = blankInfo();
  let doc: unknown;
  try {
    doc = JSON.parse(data);
  } catch {
    info.error = `malformed JSON in response: ${data.slice(0, 120)}`;
    return { info };
  }
  if (doc && typeof doc === 'object' && !Array.isArray(doc) && (doc as Json).error !== undefined && (doc as Json).error !== null) {
    const e = (doc as Json).error;
    info.kind = 'e';
    info.error = typeof e === 'string' ? e : typeof (e as Json)?.message === 'string' ? ((e as Json).message as string) : JSON.stringify(e);
    return { info };
  }
  return { doc };
}

/** A short, safe description of a JSON value for a message (server text: truncated, never interpreted). */
export function describeJson(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object without the expected fields';
  const t = JSON.stringify(v) ?? String(v);
  return `${typeof v} ${t.length > 40 ? `${t.slice(0, 40)}…` : t}`;
}

const isNumberArray = (v: unknown): boolean => Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'number' && Number.isFinite(x));

/** An OpenAI embedding item: `{"embedding": [numbers]}` (encoding_format float) or a base64 string (base64). */
const isEmbedding = (v: unknown): boolean => {
  const e = v && typeof v === 'object' && !Array.isArray(v) ? (v as Json).embedding : undefined;
  return isNumberArray(e) || (typeof e === 'string' && e.length > 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(e));
};

/**
 * `n` results when every item passes `ok`, else null with what the first bad one is: junk items (null, 5, "x",
 * `{}`) are not samples, so a server answering them cannot post a samples/s figure (issue 25 item 21).
 */
export function countResults(items: unknown[], ok: (v: unknown) => boolean, where: string, what: string): { n: number } | { bad: string } {
  for (let i = 0; i < items.length; i++) if (!ok(items[i])) return { bad: `${where}[${i}] is ${describeJson(items[i])}, not ${what}` };
  return { n: items.length };
}

/** A response with `n` results (null: not the expected shape) and the server's input-token count, when it sent one. */
export function sampleInfo(n: number | null | { n: number } | { bad: string }, what: string, inputTokens: unknown): ChunkInfo {
  const info = blankInfo();
  if (n !== null && typeof n === 'object') {
    if ('bad' in n) {
      info.error = `expected ${what}: ${n.bad}`;
      return info;
    }
    n = n.n;
  }
  if (n === null) {
    info.error = `expected ${what}`;
    return info;
  }
  info.samples = n;
  // Nothing is generated: an input count from the server makes the output count 0 from usage too.
  if (inputTokens !== undefined) info.usage = { prompt_tokens: inputTokens, completion_tokens: 0, reasoning_tokens: undefined, cached_tokens: undefined };
  info.kind = info.usage ? 'u' : 'r';
  return info;
}

const errorEvent = (data: string): ChunkInfo => ({ ...blankInfo(), kind: 'e', error: data.slice(0, 200) });

export const embeddings: Backend = {
  kind: 'embeddings',
  path: '/embeddings',
  endpoint: 'completions',
  buildBody: (spec, o) => ({ model: o.model, input: batchInputs(spec, o), encoding_format: 'float', ...o.extraBody }),
  classifyData(data) {
    const r = parseBody(data);
    if ('info' in r) return r.info;
    const d = (r.doc as Json | null)?.data;
    const n = Array.isArray(d) ? countResults(d, isEmbedding, 'data', 'an embedding ({"embedding":[numbers]} or a base64 string)') : null;
    return sampleInfo(n, 'an OpenAI embeddings response ({"data":[{"embedding":[…]}…]})', parseUsage((r.doc as Json).usage)?.prompt_tokens);
  },
  classifyErrorEvent: errorEvent,
};

export const embeddingsTei: Backend = {
  kind: 'embeddings-tei',
  path: '/embed',
  endpoint: 'completions',
  buildBody: (spec, o) => ({ inputs: batchInputs(spec, o), ...o.extraBody }),
  classifyData(data) {
    const r = parseBody(data);
    if ('info' in r) return r.info;
    const n = Array.isArray(r.doc) ? countResults(r.doc, isNumberArray, 'response', 'a vector of numbers') : null;
    return sampleInfo(n, 'a TEI /embed response (an array of vectors)', undefined);
  },
  classifyErrorEvent: errorEvent,
};
