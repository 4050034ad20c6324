// A run's metrics recomputed from its raw records under one tool's definitions (definitions.ts): pure per-request formulas and an accumulator.
import type { RawRequest, RequestRecord } from '../../metrics/record.js';
import type { DistStats } from '../../metrics/stats.js';
import { distStatsCi } from '../../metrics/ci95.js';
import type { PaceRule, ToolDefinition } from './definitions.js';

/** One request under a tool's definitions; times in ms from that tool's start of the request. */
export interface ToolRequest {
  /** Where the tool's timer starts, ms on the run clock: sent_at_ms, or the hand-off before it. */
  start_ms: number;
  ttft_ms: number | null;
  e2e_ms: number | null;
  tpot_ms: number | null;
  /** Gaps between consecutive chunks (what a `gaps` ITL pools). */
  gaps_ms: number[];
  /** The per-request ITL of a pace rule (null for `gaps`). */
  itl_ms: number | null;
  speed_tok_s: number | null;
}

/**
 * handoff_offset_ms = blocked_ms + connecting_ms + tls_ms + sending_ms (unmeasured phases count 0): how long before
 * `sent_at_ms` the request was handed to the HTTP client, where the other tools start their timers.
 */
export function handoffOffsetMs(raw: Pick<RawRequest, 'blocked_ms' | 'connecting_ms' | 'tls_ms' | 'sending_ms'>): number {
  return (raw.blocked_ms ?? 0) + (raw.connecting_ms ?? 0) + (raw.tls_ms ?? 0) + (raw.sending_ms ?? 0);
}

function chunkTimes(raw: RawRequest, kinds: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < raw.event_kinds.length; i++) if (kinds.includes(raw.event_kinds[i])) out.push(raw.event_times_ms[i]);
  return out;
}

/** End of the request in ms since send, under an end rule (null when the rule's event never came). */
function endSinceSend(raw: RawRequest, def: ToolDefinition, chunks: number[]): number | null {
  if (!raw.streamed) return raw.end_ms;
  switch (def.end) {
    case 'end':
      return raw.end_ms;
    case 'last-chunk':
      return chunks.length ? chunks[chunks.length - 1] : null;
    case 'last-event':
      return raw.event_times_ms.length ? raw.event_times_ms[raw.event_times_ms.length - 1] : raw.end_ms;
    case 'done': {
      const i = raw.event_kinds.indexOf('d');
      return i >= 0 ? raw.event_times_ms[i] : raw.end_ms;
    }
  }
}

/**
 * A pace in ms/token, n = output_tokens:
 * decode-span = (last chunk − first chunk) / (n − 1), streamed, n > 1, two or more chunks not all in one read;
 * latency-minus-ttft = (e2e − ttft) / (n − 1), n > 1; start-to-last-over-n = (last chunk − start) / n, n > 0.
 */
function pace(rule: PaceRule, raw: RawRequest, chunks: number[], offset: number, ttft: number | null, e2e: number | null): number | null {
  const n = raw.output_tokens;
  if (n === null) return null;
  switch (rule) {
    case 'decode-span': {
      if (!raw.streamed || n <= 1 || chunks.length < 2) return null;
      const span = chunks[chunks.length - 1] - chunks[0];
      return span === 0 ? null : span / (n - 1);
    }
    case 'latency-minus-ttft':
      return n > 1 && ttft !== null && e2e !== null ? (e2e - ttft) / (n - 1) : null;
    case 'start-to-last-over-n': {
      const last = chunks.length ? chunks[chunks.length - 1] : raw.end_ms;
      return n > 0 && last !== null ? (last + offset) / n : null;
    }
  }
}

/** The request under `def`; null for a request that did not succeed (the tools leave those out of latencies). */
export function toolRequest(raw: RawRequest, def: ToolDefinition): ToolRequest | null {
  if (raw.status !== 'ok') return null;
  const offset = def.start === 'handoff' ? handoffOffsetMs(raw) : 0;
  const chunks = raw.streamed ? chunkTimes(raw, def.chunks) : [];
  // Embeddings and rerank (records with `samples`) generate nothing: no first token, as in derive.ts.
  const first = typeof raw.samples === 'number' ? null : raw.streamed ? (chunks.length ? chunks[0] : null) : raw.end_ms;
  const end = endSinceSend(raw, def, chunks);
  const ttft = first === null ? null : first + offset;
  const e2e = end === null ? null : end + offset;
  const gaps: number[] = [];
  for (let j = 1; j < chunks.length; j++) gaps.push(chunks[j] - chunks[j - 1]);
  const tpot = def.tpot && pace(def.tpot, raw, chunks, offset, ttft, e2e);
  const itl = def.itl === 'gaps' ? null : pace(def.itl, raw, chunks, offset, ttft, e2e);
  let speed: number | null = null;
  if (def.speed === 'inverse-tpot') speed = tpot !== null && tpot > 0 ? 1000 / tpot : null;
  else if (def.speed === 'inverse-itl') speed = itl !== null && itl > 0 ? 1000 / itl : null;
  else if (def.speed === 'tokens-over-latency') speed = raw.output_tokens !== null && e2e !== null && e2e > 0 ? raw.output_tokens / (e2e / 1000) : null;
  return { start_ms: raw.sent_at_ms - offset, ttft_ms: ttft, e2e_ms: e2e, tpot_ms: tpot, gaps_ms: gaps, itl_ms: itl, speed_tok_s: speed };
}

/** A run's metrics under one tool's definitions. */
export interface ToolView {
  tool: string;
  /** Measured requests that ended (cancelled ones excluded), ok ones, the others. */
  total: number;
  ok: number;
  failed: number;
  /** The throughput window (WindowRule), s. */
  duration_s: number;
  total_input_tokens: number;
  total_output_tokens: number;
  request_throughput: number;
  output_throughput: number;
  total_token_throughput: number;
  ttft_ms: DistStats;
  tpot_ms: DistStats | null;
  itl_ms: DistStats;
  e2e_ms: DistStats;
  speed_tok_s: DistStats | null;
}

/** Window start of one record under a window rule, ms on the run clock. */
function windowStart(r: RawRequest, def: ToolDefinition): number {
  if (def.window === 'scheduled') return Math.min(r.scheduled_at_ms, r.sent_at_ms);
  return def.window === 'handoff' ? r.sent_at_ms - handoffOffsetMs(r) : r.sent_at_ms;
}

/** Adds records one at a time under one definition (memory: a few numbers per request and per gap). */
export class ToolAccumulator {
  private total = 0;
  private ok = 0;
  private failed = 0;
  private start = Infinity;
  private end = -Infinity;
  private inTok = 0;
  private outTok = 0;
  private readonly cols = { ttft: [] as number[], tpot: [] as number[], itl: [] as number[], e2e: [] as number[], speed: [] as number[] };
  /** `percentiles`: carried by each distribution beside p50/p90/p95/p99 (a run's --percentiles). */
  constructor(
    readonly def: ToolDefinition,
    private readonly percentiles?: readonly number[],
  ) {}

  add(r: RawRequest): void {
    this.total++;
    // The window spans every measured request, as the summary's does (cancelled ones too: they held the server).
    this.start = Math.min(this.start, windowStart(r, this.def));
    this.end = Math.max(this.end, r.sent_at_ms + (r.end_ms ?? 0));
    if (r.status === 'cancelled') return void this.total--;
    const t = toolRequest(r, this.def);
    if (!t) return void this.failed++;
    this.ok++;
    this.inTok += r.input_tokens ?? 0;
    this.outTok += r.output_tokens ?? 0;
    const push = (col: number[], v: number | null) => v !== null && col.push(v);
    push(this.cols.ttft, t.ttft_ms);
    push(this.cols.tpot, t.tpot_ms);
    push(this.cols.e2e, t.e2e_ms);
    push(this.cols.speed, t.speed_tok_s);
    if (this.def.itl === 'gaps') for (const g of t.gaps_ms) this.cols.itl.push(g);
    else push(this.cols.itl, t.itl_ms);
  }

  /** Records added that count (not cancelled). */
  get count(): number {
    return this.total;
  }

  view(): ToolView {
    const seen = this.start !== Infinity;
    const durationS = seen ? Math.max(this.end - this.start, 1e-3) / 1000 : 0;
    const per = (x: number) => (durationS > 0 ? x / durationS : 0);
    const ps = this.percentiles;
    return {
      tool: this.def.tool,
      total: this.total,
      ok: this.ok,
      failed: this.failed,
      duration_s: durationS,
      total_input_tokens: this.inTok,
      total_output_tokens: this.outTok,
      request_throughput: per(this.ok),
      output_throughput: per(this.outTok),
      total_token_throughput: per(this.inTok + this.outTok),
      // Recomputed from the records, so their intervals are too (ci95, as in summary.json).
      ttft_ms: distStatsCi(this.cols.ttft, ps),
      tpot_ms: this.def.tpot ? distStatsCi(this.cols.tpot, ps) : null,
      itl_ms: distStatsCi(this.cols.itl, ps),
      e2e_ms: distStatsCi(this.cols.e2e, ps),
      speed_tok_s: this.def.speed ? distStatsCi(this.cols.speed, ps) : null,
    };
  }
}

/**
 * Views of a run under several definitions in one pass, over the requests summary.json covers: measured (not warmup)
 * ones, and with ramps the steady ones (docs/metrics.md#phases; all measured when none was steady).
 */
export class RunRecompute {
  private readonly steady: ToolAccumulator[];
  private readonly all: ToolAccumulator[];
  private ramps = 0;
  constructor(defs: readonly ToolDefinition[], percentiles?: readonly number[]) {
    this.steady = defs.map((d) => new ToolAccumulator(d, percentiles));
    this.all = defs.map((d) => new ToolAccumulator(d, percentiles));
  }
  add(r: RequestRecord | RawRequest): void {
    if (r.warmup) return;
    const steady = (r.phase ?? 'steady') === 'steady';
    if (!steady) this.ramps++;
    for (const a of this.all) a.add(r);
    if (steady) for (const a of this.steady) a.add(r);
  }
  views(): ToolView[] {
    const pick = this.ramps > 0 && this.steady.every((a) => a.count === 0) ? this.all : this.steady;
    return pick.map((a) => a.view());
  }
}
