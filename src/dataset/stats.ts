// Dataset statistics: token-length histograms of inputs and outputs, percentiles, and items over a context limit.
import type { Tokenizer } from './tokenizer.js';
import type { ChatMessage } from './types.js';
import type { DatasetItem } from './items.js';
import { distStats, type DistStats } from '../metrics/stats.js';
import { mediaStats, type MediaStats } from './media-stats.js';

export const DEFAULT_BUCKETS = '0,1k,4k,16k,32k,48k,64k';

/** Parse bucket edges such as `0,1k,4k,16k` (k = 1024, m = 1024²) into ascending numbers; throws Error when bad. */
export function parseBuckets(spec: string): number[] {
  const edges = spec.split(',').map((s) => s.trim()).filter(Boolean).map((s) => {
    const m = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(s);
    if (!m) throw new Error(`bad bucket edge "${s}": expected a number such as 512, 4k or 1m`);
    const mult = m[2].toLowerCase() === 'k' ? 1024 : m[2].toLowerCase() === 'm' ? 1024 * 1024 : 1;
    return Math.round(Number(m[1]) * mult);
  });
  if (!edges.length) throw new Error('no bucket edges given');
  for (let i = 1; i < edges.length; i++) if (edges[i] <= edges[i - 1]) throw new Error(`bucket edges must increase: ${spec}`);
  return edges;
}

const label = (n: number): string => (n >= 1024 && n % 1024 === 0 ? `${n / 1024}k` : String(n));

export interface Bucket {
  /** e.g. "1k-4k", "64k+". */
  bucket: string;
  /** Inclusive lower, exclusive upper bound (null: open). */
  lo: number;
  hi: number | null;
  count: number;
  share: number;
}

/** Count values into [edge_i, edge_i+1) buckets, the last open-ended; values below the first edge get their own bucket. */
export function histogram(values: readonly number[], edges: readonly number[]): Bucket[] {
  const out: Bucket[] = [];
  if (edges[0] > 0) out.push({ bucket: `<${label(edges[0])}`, lo: 0, hi: edges[0], count: 0, share: 0 });
  edges.forEach((lo, i) => {
    const hi = i + 1 < edges.length ? edges[i + 1] : null;
    out.push({ bucket: hi === null ? `${label(lo)}+` : `${label(lo)}-${label(hi)}`, lo, hi, count: 0, share: 0 });
  });
  for (const v of values) {
    const b = out.find((x) => v >= x.lo && (x.hi === null || v < x.hi));
    if (b) b.count++;
  }
  for (const b of out) b.share = values.length ? b.count / values.length : 0;
  return out;
}

export interface DatasetStats {
  items: number;
  /** Requests the data would send (every turn of every conversation). */
  requests: number;
  conversations: number;
  input_tokens: DistStats & { histogram: Bucket[] };
  /** Output lengths where known (max_tokens / output_tokens, or a recorded answer). */
  output_tokens: DistStats & { histogram: Bucket[]; unknown: number };
  max_model_len?: { limit: number; over: number; share: number; unknown_output: number };
  /** Images, audio and video of the requests (only when some request has media). */
  media?: MediaStats;
}

/**
 * Token lengths per request, in request order: a later turn's input counts the conversation so far with the recorded
 * answers (the real run sends the server's answers instead). Input = sum of message content tokens; output =
 * max_tokens / output_tokens, else the recorded answer's tokens, else undefined (unknown).
 */
export function requestLengths(items: readonly DatasetItem[], tok: Tokenizer): { inputs: number[]; outputs: (number | undefined)[] } {
  const inputs: number[] = [];
  const outputs: (number | undefined)[] = [];
  const count = (ms: readonly ChatMessage[]) => ms.reduce((s, m) => s + tok.count(m.content), 0);
  for (const item of items) {
    let history = 0;
    for (const t of item.turns) {
      const input = item.inputTokens ?? history + count(t.messages);
      inputs.push(input);
      outputs.push(t.maxTokens ?? (t.answer ? tok.count(t.answer) : undefined));
      history = input + (t.answer ? tok.count(t.answer) : 0);
    }
  }
  return { inputs, outputs };
}

/** The statistics of requestLengths: percentiles, histograms over `edges`, and the requests over `maxModelLen`. */
export function datasetStats(items: readonly DatasetItem[], tok: Tokenizer, edges: readonly number[], maxModelLen?: number): DatasetStats {
  const { inputs, outputs: all } = requestLengths(items, tok);
  const outputs = all.filter((o): o is number => o !== undefined);
  const unknown = all.length - outputs.length;
  let over = 0;
  let overUnknown = 0;
  if (maxModelLen !== undefined)
    inputs.forEach((input, i) => {
      const output = all[i];
      if (input + (output ?? 0) > maxModelLen) over++;
      else if (output === undefined) overUnknown++;
    });
  const stats: DatasetStats = {
    items: items.length,
    requests: inputs.length,
    conversations: items.filter((i) => i.turns.length > 1).length,
    input_tokens: { ...distStats(inputs), histogram: histogram(inputs, edges) },
    output_tokens: { ...distStats(outputs), histogram: histogram(outputs, edges), unknown },
  };
  const media = mediaStats(items);
  if (media) stats.media = media;
  if (maxModelLen !== undefined) stats.max_model_len = { limit: maxModelLen, over, share: inputs.length ? over / inputs.length : 0, unknown_output: overUnknown };
  return stats;
}
