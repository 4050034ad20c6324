// vllm-result.json: a run written in the result JSON schema of `vllm bench serve --save-result --save-detailed` (field names and units as vLLM writes them).
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describeFsError, writeFileAtomic } from '../../util/atomic-write.js';
import { WriteError } from '../../errors.js';
import type { RequestRecord } from '../../metrics/record.js';
import { percentileKey, type DistStats } from '../../metrics/stats.js';
import { runPercentiles } from '../../metrics/aggregator.js';
import type { Reporter } from '../events.js';
import { recordsOf, REQUESTS_JSONL } from '../results-dir.js';
import { VERSION } from '../../version.js';
import { DEFINITIONS } from './definitions.js';
import { handoffOffsetMs, RunRecompute, toolRequest } from './recompute.js';
import { ARTIFACTS } from '../../artifacts/registry.js';

export const VLLM_RESULT_JSON = ARTIFACTS.vllmResult.file;

/**
 * The key vLLM's serve.py writes for percentile `p` of `metric`: `p{p_word}_{metric}_ms` with
 * p_word = str(int(p)) if int(p) == p else str(p), Python's shortest float repr (99 → p99, 99.9 → p99.9).
 */
export function vllmPercentileKey(p: number, metric: string): string {
  // JS and Python agree on the shortest repr except below 1e-4, where Python writes 1e-05 and JS 0.00001.
  const word = Number.isInteger(p) ? String(p) : p < 1e-4 ? p.toExponential().replace(/e-(\d)$/, 'e-0$1') : String(p);
  return `p${word}_${metric}_ms`;
}
/** The metrics given mean/median/std/percentiles, as `--percentile-metrics ttft,tpot,itl,e2el` would. */
export const VLLM_PERCENTILE_METRICS = ['ttft', 'tpot', 'itl', 'e2el'] as const;

/** One request as vLLM's RequestFuncOutput would hold it; times in seconds. */
interface Output {
  id: number;
  attempt: number;
  ok: boolean;
  prompt_len: number;
  output_len: number;
  ttft: number;
  itl: number[];
  latency: number;
  start_time: number;
  queue_time: number;
  error: string;
  generated_text: string;
}

function output(r: RequestRecord): Output {
  const t = toolRequest(r, DEFINITIONS.vllm);
  // vLLM's start_time is when its timer starts (the hand-off to the HTTP client); queue time is from when the request was due.
  const start = r.sent_at_ms - handoffOffsetMs(r);
  const base = { id: r.id, attempt: r.attempt, prompt_len: r.input_tokens ?? r.expected_input_tokens, start_time: start / 1000, queue_time: Math.max(0, start - r.scheduled_at_ms) / 1000, generated_text: r.generated_text ?? '' };
  if (!t || t.ttft_ms === null || t.e2e_ms === null) return { ...base, ok: false, output_len: 0, ttft: 0, itl: [], latency: 0, error: r.error ?? r.code ?? r.status };
  return { ...base, ok: true, output_len: r.output_tokens ?? 0, ttft: t.ttft_ms / 1000, itl: t.gaps_ms.map((g) => g / 1000), latency: t.e2e_ms / 1000, error: '' };
}

/** vLLM's peak figures: the most output chunks in one 1-s bucket from the first start, and the most requests in flight at once. */
function peaks(outputs: readonly Output[]): { max_output_tokens_per_s: number; max_concurrent_requests: number } {
  const ok = outputs.filter((o) => o.ok);
  if (!ok.length) return { max_output_tokens_per_s: 0, max_concurrent_requests: 0 };
  // Loops, not Math.min(...xs): a spread of 100,000s of values overflows the stack.
  let minStart = Infinity;
  let maxEnd = -Infinity;
  for (const o of ok) {
    minStart = Math.min(minStart, o.start_time);
    maxEnd = Math.max(maxEnd, o.start_time + o.latency);
  }
  const buckets = new Array<number>(Math.ceil(maxEnd - minStart) + 1).fill(0);
  for (const o of ok) {
    let t = o.start_time + o.ttft;
    const bump = () => {
      const b = Math.floor(t - minStart);
      if (b >= 0 && b < buckets.length) buckets[b]++;
    };
    bump();
    for (const g of o.itl) {
      t += g;
      bump();
    }
  }
  // Half-open [start, end): an end at the same instant as a start comes first.
  const events = ok.flatMap((o) => [[o.start_time, 1] as const, [o.start_time + o.latency, -1] as const]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let cur = 0;
  let peak = 0;
  for (const [, d] of events) peak = Math.max(peak, (cur += d));
  return { max_output_tokens_per_s: buckets.reduce((a, b) => Math.max(a, b), 0), max_concurrent_requests: peak };
}

/** All generated_texts together are at most this many characters (memory at the end of a long run); past it, texts are "". */
export const MAX_GENERATED_TEXTS_CHARS = 64 * 1024 * 1024;

/** Each answer as vLLM's generated_texts holds it, in the outputs' order, within MAX_GENERATED_TEXTS_CHARS in all. */
function generatedTexts(outputs: readonly Output[]): { texts: string[]; cut: boolean } {
  let left = MAX_GENERATED_TEXTS_CHARS;
  let cut = false;
  const texts = outputs.map((o) => {
    if (o.generated_text.length > left) return ((cut = true), '');
    left -= o.generated_text.length;
    return o.generated_text;
  });
  return { texts, cut };
}

/** vLLM's --metadata KEY=VALUE pairs: each a top-level field, key and value stripped, split at the first "=". */
function metadataFields(items: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const it of Array.isArray(items) ? items : []) {
    const s = String(it);
    const i = s.indexOf('=');
    if (i > 0) out[s.slice(0, i).trim()] = s.slice(i + 1).trim();
  }
  return out;
}

/** vLLM's `datetime.now().strftime("%Y%m%d-%H%M%S")`. */
function vllmDate(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}

/** vLLM's backend names for tokenflood's protocols (`vllm bench serve --backend`). */
const VLLM_BACKENDS: Record<string, string> = { 'openai-chat': 'openai-chat', 'openai-completions': 'openai' };

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** mean/median/std and each of `percentiles` of one metric in ms; vLLM writes 0 for a metric with no values (`np.mean(x or 0)`). */
function metricFields(name: string, d: DistStats | null, percentiles: readonly number[]): Record<string, number> {
  const z = (x: number | null | undefined) => x ?? 0;
  const out: Record<string, number> = { [`mean_${name}_ms`]: z(d?.mean), [`median_${name}_ms`]: z(d?.p50), [`std_${name}_ms`]: z(d?.stdev) };
  for (const p of percentiles) out[vllmPercentileKey(p, name)] = z(d?.[percentileKey(p)]);
  return out;
}

/**
 * The result document from a run's records and run.json. Latencies follow vLLM's client (DEFINITIONS.vllm): TTFT at
 * the first chunk with a non-empty choices list, E2EL at the last such chunk, TPOT = (E2EL − TTFT) / (output_len − 1),
 * ITL the gaps between those chunks; throughputs over the time from the first request due to the last response.
 * Percentiles are the run's (run.json `config.percentiles`, from --percentiles), as vLLM's --metric-percentiles.
 */
export function buildVllmResult(records: Iterable<RequestRecord>, meta: Readonly<Record<string, unknown>>, now = new Date()): Record<string, unknown> {
  const steady: Output[] = [];
  const all: Output[] = [];
  const percentiles = runPercentiles(meta);
  const rc = new RunRecompute([DEFINITIONS.vllm], percentiles);
  let ramps = 0;
  for (const r of records) {
    rc.add(r);
    if (r.warmup || r.status === 'cancelled') continue;
    const o = output(r);
    all.push(o);
    if ((r.phase ?? 'steady') === 'steady') steady.push(o);
    else ramps++;
  }
  const outputs = (ramps > 0 && steady.length === 0 ? all : steady).sort((a, b) => a.id - b.id || a.attempt - b.attempt);
  const [v] = rc.views();
  const cfg = (meta.config ?? {}) as Record<string, unknown>;
  const backend = str(meta.backend) ?? 'openai-chat';
  const arrival = str(cfg.arrival);
  const rate = num(cfg.rate);
  const texts = generatedTexts(outputs);
  // A vLLM ramp-up (config/vllm-aliases.ts) comes as metadata: vLLM writes request_rate "inf" and the ramp after max_concurrency.
  const { ramp_up_strategy: rampStrategy, ramp_up_start_rps: rampStart, ramp_up_end_rps: rampEnd, ...metadata } = metadataFields(cfg.result_metadata);
  const ramp = rampStrategy !== undefined ? { ramp_up_strategy: rampStrategy, ramp_up_start_rps: Number(rampStart), ramp_up_end_rps: Number(rampEnd) } : {};
  return {
    date: vllmDate(now),
    endpoint_type: VLLM_BACKENDS[backend] ?? backend,
    backend: VLLM_BACKENDS[backend] ?? backend,
    label: str(cfg.result_label),
    model_id: str(meta.model),
    tokenizer_id: str(meta.tokenizer),
    num_prompts: outputs.length,
    ...metadata,
    tokenflood_version: VERSION,
    request_rate: rampStrategy !== undefined ? 'inf' : (rate ?? 'inf'),
    // vLLM draws gaps from a gamma distribution of this shape (1 = Poisson); a constant arrival has no burstiness.
    burstiness: rate === null || arrival === 'poisson' ? 1.0 : arrival === 'gamma' ? num(cfg.burstiness) : null,
    max_concurrency: num(cfg.concurrency),
    ...ramp,
    duration: v.duration_s,
    completed: v.ok,
    failed: v.failed,
    total_input_tokens: v.total_input_tokens,
    total_output_tokens: v.total_output_tokens,
    request_throughput: v.request_throughput,
    request_goodput: null,
    output_throughput: v.output_throughput,
    total_token_throughput: v.total_token_throughput,
    input_lens: outputs.map((o) => o.prompt_len),
    output_lens: outputs.map((o) => o.output_len),
    ttfts: outputs.map((o) => o.ttft),
    itls: outputs.map((o) => o.itl),
    latencies: outputs.map((o) => o.latency),
    start_times: outputs.map((o) => o.start_time),
    queue_times: outputs.map((o) => o.queue_time),
    errors: outputs.map((o) => o.error),
    generated_texts: texts.texts,
    ...(texts.cut ? { tokenflood_generated_texts_cut: true } : {}),
    ...peaks(outputs),
    ...metricFields('ttft', v.ttft_ms, percentiles),
    ...metricFields('tpot', v.tpot_ms, percentiles),
    ...metricFields('itl', v.itl_ms, percentiles),
    ...metricFields('e2el', v.e2e_ms, percentiles),
  };
}

/** Writes vllm-result.json at the end of a run with `--result-format vllm` (compact, one line, as vLLM's json.dump). */
export const vllmResultReporter: Reporter = {
  name: VLLM_RESULT_JSON,
  runEnd: (e) => {
    const now = new Date();
    let text: string | undefined;
    const doc = () => (text ??= `${JSON.stringify(buildVllmResult(recordsOf(join(e.outDir, REQUESTS_JSONL)), e.meta, now))}\n`);
    e.files.save(VLLM_RESULT_JSON, doc);
    // --result-file (vLLM's --result-dir/--result-filename): the same document where vLLM would have written it.
    const file = str(((e.meta.config ?? {}) as Record<string, unknown>).result_file);
    if (file) {
      const model = (str(e.meta.model) ?? 'model').split('/').at(-1)!;
      const path = file.replaceAll('{model}', model).replaceAll('{date}', vllmDate(now));
      try {
        mkdirSync(dirname(path), { recursive: true });
      } catch (err) {
        throw new WriteError(path, describeFsError(err));
      }
      writeFileAtomic(path, doc());
    }
  },
};
