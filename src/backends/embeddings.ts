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

/** A response with `n` results (null: not the expected shape) and the server's input-token count, when it sent one. */
export function sampleInfo(n: number | null, what: string, inputTokens: unknown): ChunkInfo {
  const info = blankInfo();
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
    return sampleInfo(Array.isArray(d) ? d.length : null, 'an OpenAI embeddings response ({"data":[{"embedding":[…]}…]})', parseUsage((r.doc as Json).usage)?.prompt_tokens);
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
    return sampleInfo(Array.isArray(r.doc) ? r.doc.length : null, 'a TEI /embed response (an array of vectors)', undefined);
  },
  classifyErrorEvent: errorEvent,
};
