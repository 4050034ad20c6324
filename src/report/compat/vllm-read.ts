// A vLLM bench result JSON (`vllm bench serve --save-result`) as one side of `compare`, and tokenflood runs recomputed under vLLM's definitions beside it.
import { readFileSync, statSync } from 'node:fs';
import { z } from 'zod';
import { UsageError } from '../../errors.js';
import { eachRecord, requestsFile } from '../results-dir.js';
import type { RunKind } from '../compare-kind.js';
import { DEFINITIONS } from './definitions.js';
import { RunRecompute, toolRequest, type ToolView } from './recompute.js';
import { readRunJson } from '../compare-kind.js';
import { runPercentiles } from '../../metrics/aggregator.js';
import { percentileKey } from '../../metrics/stats.js';
import { EXTRA_PERCENTILE_METRICS, extraPercentilesOf } from '../compare-percentiles.js';

/** Largest result file read (a --save-detailed result of 100,000s of requests stays well under it). */
const MAX_BYTES = 512 * 1024 * 1024;

const finite = z.number();
/** The fields that identify a vLLM serving-benchmark result; others are read when present. */
export const VllmResultShape = z
  .object({
    duration: finite,
    completed: z.number().int().min(0),
    request_throughput: finite,
    output_throughput: finite,
    mean_ttft_ms: finite.optional(),
    mean_e2el_ms: finite.optional(),
  })
  .passthrough()
  .refine((o) => o.mean_ttft_ms !== undefined || o.mean_e2el_ms !== undefined, 'no mean_ttft_ms or mean_e2el_ms');

export type MetricValueMap = Record<string, number | null>;

/** Per-request samples for the compare report's distribution charts, ms. */
export interface LatencySamples {
  ttft_ms: number[];
  tpot_ms: number[];
  e2e_ms: number[];
}

export const isFilePath = (p: string): boolean => {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
};

/** Parse `file` as a vLLM result; anything else is a UsageError naming the file and what is wrong. */
export function parseVllmResult(file: string): Record<string, unknown> {
  const size = statSync(file).size;
  if (size > MAX_BYTES) throw new UsageError([`compare: ${file} is ${size} bytes, more than a vLLM result file (${MAX_BYTES} bytes at most)`]);
  const text = readFileSync(file, 'utf8');
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    const lines = text.split('\n').filter((l) => l.trim()).length;
    const appended = lines > 1 ? `; it has ${lines} lines: results appended with --append-result must be split into one file each` : '';
    throw new UsageError([`compare: ${file} is not valid JSON (${(e as Error).message})${appended}`]);
  }
  const r = VllmResultShape.safeParse(doc);
  if (!r.success) {
    const why = r.error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
    throw new UsageError([`compare: ${file} is neither a results directory nor a vLLM bench result JSON (${why})`]);
  }
  return r.data as Record<string, unknown>;
}

const num = (o: Record<string, unknown>, k: string): number | undefined => (typeof o[k] === 'number' && Number.isFinite(o[k]) ? (o[k] as number) : undefined);

/** The compared metrics a vLLM result carries (a key is absent when the file has no such field). */
export function vllmValues(doc: Record<string, unknown>): MetricValueMap {
  const out: MetricValueMap = {};
  const set = (key: string, field: string) => {
    const v = num(doc, field);
    if (v !== undefined) out[key] = v;
  };
  set('output_throughput', 'output_throughput');
  set('request_throughput', 'request_throughput');
  set('total_token_throughput', 'total_token_throughput');
  set('ttft_p50', 'median_ttft_ms');
  set('ttft_p99', 'p99_ttft_ms');
  set('tpot_p50', 'median_tpot_ms');
  set('tpot_p99', 'p99_tpot_ms');
  set('itl_p99', 'p99_itl_ms');
  set('e2e_p50', 'median_e2el_ms');
  set('e2e_p99', 'p99_e2el_ms');
  const completed = num(doc, 'completed') ?? 0;
  const failed = num(doc, 'failed');
  const prompts = num(doc, 'num_prompts');
  if (failed !== undefined) out.error_rate = completed + failed > 0 ? failed / (completed + failed) : 0;
  else if (prompts !== undefined && prompts > 0) out.error_rate = Math.max(0, prompts - completed) / prompts;
  for (const p of vllmExtraPercentiles(doc)) for (const [k, metric] of VLLM_NAMES) {
    const v = num(doc, `p${p}_${metric}_ms`);
    if (v !== undefined) out[`${k}_${percentileKey(p)}`] = v;
  }
  return out;
}

/** tokenflood's distribution prefix → vLLM's metric word in `p<P>_<metric>_ms`. */
const VLLM_NAMES = EXTRA_PERCENTILE_METRICS.map((k) => [k, k === 'e2e' ? 'e2el' : k] as const);

/**
 * The percentiles of a vLLM result beyond compare's fixed ones, from its `p<P>_<metric>_ms` keys (--metric-percentiles;
 * `p99.9_ttft_ms` is p99.9), ascending. Only plain decimals between 0 and 100 count.
 */
export function vllmExtraPercentiles(doc: Record<string, unknown>): number[] {
  const ps = new Set<number>();
  for (const k of Object.keys(doc)) {
    const m = /^p(\d+(?:\.\d+)?)_(ttft|tpot|itl|e2el)_ms$/.exec(k);
    const p = m ? Number(m[1]) : NaN;
    if (p > 0 && p < 100 && typeof doc[k] === 'number') ps.add(p);
  }
  return extraPercentilesOf({ percentiles: [...ps].sort((a, b) => a - b) });
}

/** The same metrics of a tokenflood view recomputed under vLLM's definitions. */
export function viewValues(v: ToolView, extra: readonly number[] = []): MetricValueMap {
  const out: MetricValueMap = {};
  for (const p of extra)
    for (const k of EXTRA_PERCENTILE_METRICS) out[`${k}_${percentileKey(p)}`] = (k === 'tpot' ? v.tpot_ms : v[`${k}_ms`])?.[percentileKey(p)] ?? null;
  return {
    ...out,
    output_throughput: v.output_throughput,
    request_throughput: v.request_throughput,
    total_token_throughput: v.total_token_throughput,
    ttft_p50: v.ttft_ms.p50,
    ttft_p99: v.ttft_ms.p99,
    tpot_p50: v.tpot_ms?.p50 ?? null,
    tpot_p99: v.tpot_ms?.p99 ?? null,
    itl_p99: v.itl_ms.p99,
    e2e_p50: v.e2e_ms.p50,
    e2e_p99: v.e2e_ms.p99,
    error_rate: v.ok + v.failed > 0 ? v.failed / (v.ok + v.failed) : 0,
  };
}

/** Samples of a vLLM result written with --save-detailed (ttfts and latencies in seconds); empty lists without. */
function vllmSamples(doc: Record<string, unknown>): LatencySamples {
  const list = (k: string): number[] => (Array.isArray(doc[k]) ? (doc[k] as unknown[]).map((x) => (typeof x === 'number' && Number.isFinite(x) ? x : NaN)) : []);
  const ttfts = list('ttfts');
  const lat = list('latencies');
  const outLens = list('output_lens');
  const out: LatencySamples = { ttft_ms: [], tpot_ms: [], e2e_ms: [] };
  // Failed requests are written with 0.0 latencies: only positive, finite values are samples.
  for (let i = 0; i < Math.max(ttfts.length, lat.length); i++) {
    if (ttfts[i] > 0) out.ttft_ms.push(ttfts[i] * 1000);
    if (lat[i] > 0) out.e2e_ms.push(lat[i] * 1000);
    if (lat[i] > 0 && ttfts[i] > 0 && outLens[i] > 1) out.tpot_ms.push(((lat[i] - ttfts[i]) / (outLens[i] - 1)) * 1000);
  }
  return out;
}

/** What a vLLM result measured, for compare's kind warnings (unknown fields are null and never compared). */
function vllmKind(doc: Record<string, unknown>): RunKind {
  const backend = typeof doc.backend === 'string' ? doc.backend : typeof doc.endpoint_type === 'string' ? doc.endpoint_type : null;
  const rate = num(doc, 'request_rate');
  const conc = num(doc, 'max_concurrency');
  return {
    sim_time_scale: null,
    server: null,
    sim_server: null,
    simulated: false,
    endpoint: backend === 'openai-chat' ? 'chat' : backend === 'openai' || backend === 'vllm' ? 'completions' : null,
    stream: true,
    model: typeof doc.model_id === 'string' ? doc.model_id.replace(/[^\x20-\x7e]/g, '?').slice(0, 200) : null,
    // vLLM names a Hugging Face tokenizer, tokenflood its own: the two never name the same thing.
    tokenizer: null,
    workload: null,
    load: rate !== undefined ? `rate ${rate} req/s` : conc !== undefined ? `concurrency ${conc}` : null,
  };
}

export interface VllmLoaded {
  values: MetricValueMap;
  /** Its percentiles beyond compare's fixed rows (`p99.9_ttft_ms` → 99.9). */
  extraPercentiles: number[];
  samples: LatencySamples;
  what: RunKind;
}

/** A vLLM result file as compare reads it. */
export function loadVllmResult(file: string): VllmLoaded {
  const doc = parseVllmResult(file);
  return { values: vllmValues(doc), extraPercentiles: vllmExtraPercentiles(doc), samples: vllmSamples(doc), what: vllmKind(doc) };
}

/** A tokenflood run directory recomputed under vLLM's definitions: its values and latency samples. */
export function runAsVllm(dir: string): { values: MetricValueMap; extraPercentiles: number[]; samples: LatencySamples } {
  // The run's own --percentiles (run.json), so its extra rows exist under vLLM's definitions too.
  const ps = runPercentiles(readRunJson(dir));
  const extra = extraPercentilesOf({ percentiles: ps });
  const rc = new RunRecompute([DEFINITIONS.vllm], ps);
  const samples: LatencySamples = { ttft_ms: [], tpot_ms: [], e2e_ms: [] };
  eachRecord(requestsFile(dir, 'compare'), (r) => {
    rc.add(r);
    if (r.warmup) return;
    const t = toolRequest(r, DEFINITIONS.vllm);
    if (t?.ttft_ms != null) samples.ttft_ms.push(t.ttft_ms);
    if (t?.tpot_ms != null) samples.tpot_ms.push(t.tpot_ms);
    if (t?.e2e_ms != null) samples.e2e_ms.push(t.e2e_ms);
  });
  return { values: viewValues(rc.views()[0], extra), extraPercentiles: extra, samples };
}
