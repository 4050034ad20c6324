// Non-streaming rerank backends: Cohere/Jina-style (POST /rerank, `documents`) and Hugging Face TEI (POST /rerank, `texts`).
import type { Backend } from './backend.js';
import { batchInputs, blankInfo, countResults, parseBody, sampleInfo } from './embeddings.js';

type Json = Record<string, unknown>;

/** The query every rerank request asks; the documents are the workload's prompts (--batch-size of them). */
export const RERANK_QUERY = 'Which passage is most relevant?';

/** A rerank result: an object with an integer `index` and a finite numeric score under `key`. */
const scored = (key: string) => (v: unknown): boolean => {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return false;
  const o = v as Json;
  return Number.isInteger(o.index) && (o.index as number) >= 0 && typeof o[key] === 'number' && Number.isFinite(o[key]);
};

const errorEvent = (data: string) => ({ ...blankInfo(), kind: 'e' as const, error: data.slice(0, 200) });

export const rerank: Backend = {
  kind: 'rerank',
  path: '/rerank',
  endpoint: 'completions',
  buildBody: (spec, o) => ({ model: o.model, query: RERANK_QUERY, documents: batchInputs(spec, o), return_documents: false, ...o.extraBody }),
  classifyData(data) {
    const r = parseBody(data);
    if ('info' in r) return r.info;
    const doc = r.doc as Json | null;
    const results = doc?.results;
    // Jina reports usage.total_tokens (query and documents); Cohere bills search units and reports no tokens.
    const u = doc?.usage && typeof doc.usage === 'object' ? (doc.usage as Json) : undefined;
    const n = Array.isArray(results) ? countResults(results, scored('relevance_score'), 'results', 'a result ({"index":n,"relevance_score":x})') : null;
    return sampleInfo(n, 'a rerank response ({"results":[{"index":…,"relevance_score":…}…]})', u?.prompt_tokens ?? u?.total_tokens);
  },
  classifyErrorEvent: errorEvent,
};

export const rerankTei: Backend = {
  kind: 'rerank-tei',
  path: '/rerank',
  endpoint: 'completions',
  buildBody: (spec, o) => ({ query: RERANK_QUERY, texts: batchInputs(spec, o), raw_scores: false, return_text: false, ...o.extraBody }),
  classifyData(data) {
    const r = parseBody(data);
    if ('info' in r) return r.info;
    const n = Array.isArray(r.doc) ? countResults(r.doc, scored('score'), 'response', 'a result ({"index":n,"score":x})') : null;
    return sampleInfo(n, 'a TEI /rerank response (an array of {"index":…,"score":…})', undefined);
  },
  classifyErrorEvent: errorEvent,
};
