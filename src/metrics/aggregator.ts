// Aggregator: the run's summary built record by record, in memory that grows with requests (typed columns), not with events.
import { CancellationAggregator } from './cancellation.js';
import { UsersAggregator } from './users.js';
import { UserCacheAggregator } from './user-cache.js';
import { SERVER_TIMING_FIELDS, type ServerTimingField } from './server-timings.js';
import { parsePercentiles, DEFAULT_PERCENTILES, type DistStats, type Percentiles } from './stats.js';
import { distStatsCi } from './ci95.js';
import type { RequestRecord, RequestStatus } from './record.js';
import type { CodeCount, ErrorCount, MetricsBlock, PhaseCounts, StageBlock, Summary } from './summary-model.js';
import type { ClientHealth } from './health.js';
import { promptCacheCheck, tokenSums } from './prompt-cache.js';
import { CacheLocalityAggregator } from './cache-locality.js';
import { SessionAggregator } from './sessions.js';
import { MediaAggregator } from './media.js';
import { metricDefs, type MetricDef } from './registry/index.js';
import { SliceColumns, sliceSections } from './slices.js';
import { Column } from './column.js';
import { bandOf, parseLengthBands, runLengthBands, askedLengthBands, DEFAULT_LENGTH_BANDS, type LengthBand } from './length-bands.js';

export { Column } from './column.js';
export { ItlStore, ITL_EXACT_LIMIT, ITL_HISTOGRAM_DIGITS } from './metric-stores.js';
import { ExactStore, ItlStore, ITL_EXACT_LIMIT, type MetricStore } from './metric-stores.js';
import { errorHint } from './error-hints.js';

/** The registry's metrics as MetricsBlock keys (a registered metric's key is not in the type; distOf reads it). */
type MetricDists = Pick<MetricsBlock, 'ttft_ms' | 'ttft_from_scheduled_ms' | 'ttfat_ms' | 'first_event_ms' | 'tpot_ms' | 'itl_ms' | 'e2e_ms' | 'output_speed_tok_s' | 'input_tokens' | 'output_tokens' | 'reasoning_tokens' | 'cached_tokens' | 'schedule_lag_ms'>;

interface ErrorAcc<E = ErrorCount> {
  e: E;
  /** (id, attempt) of the record the example came from: the lowest, so the example does not depend on arrival order. */
  id: number;
  attempt: number;
}

/** The metrics block of one set of records (the whole run, or one class), built record by record. */
export class BlockAggregator {
  private total = 0;
  /** Measured requests added (metrics().requests.total), without building the block. */
  get requests(): number {
    return this.total;
  }
  private ok = 0;
  private cancelled = 0;
  private warmup = 0;
  private retries = 0;
  private reconnected = 0;
  private start = Infinity;
  private end = -Infinity;
  /** Σ end_ms in whole µs: exact and independent of record order. */
  private busyUs = 0;
  private inTok = 0;
  private outTok = 0;
  /** Σ request_bytes and Σ response_bytes of measured records; null until a record carries them. */
  private reqBytes: number | null = null;
  private respBytes: number | null = null;
  /** Σ samples of ok embeddings/rerank records; null until a record carries samples. */
  private samples: number | null = null;
  /** The registry's metrics when the aggregator was made, split by the records that feed them, each with its store. */
  private readonly defs: readonly MetricDef[];
  private readonly stores: MetricStore[];
  private readonly okIdx: number[] = [];
  private readonly allIdx: number[] = [];
  private readonly errors = new Map<string, ErrorAcc>();
  private readonly codes = new Map<string, ErrorAcc<CodeCount>>();
  private readonly sources = { usage: 0, tokenizer: 0, estimate: 0 };
  /** server_* fields of ok records, one column per field that any record carried. */
  private readonly serverCols = new Map<ServerTimingField, Column>();
  constructor(itlExactLimit = ITL_EXACT_LIMIT, defs: readonly MetricDef[] = metricDefs()) {
    this.defs = defs;
    this.stores = defs.map((d) => (d.store === 'histogram' ? new ItlStore(itlExactLimit) : new ExactStore()));
    defs.forEach((d, i) => (d.over === 'all' ? this.allIdx : this.okIdx).push(i));
  }

  /** Each value of `def` for `r` into its store (null: the record has none). */
  private put(i: number, r: RequestRecord): void {
    const v = this.defs[i].of(r);
    if (typeof v === 'number') this.stores[i].add(v);
    else if (v !== null) for (const x of v) this.stores[i].add(x);
  }

  add(r: RequestRecord): void {
    if (r.warmup) {
      this.warmup++;
      return;
    }
    this.total++;
    if (r.attempt > 1) this.retries++;
    if (r.reconnected) this.reconnected++;
    const endMs = r.end_ms ?? 0;
    if (r.sent_at_ms < this.start) this.start = r.sent_at_ms;
    if (r.sent_at_ms + endMs > this.end) this.end = r.sent_at_ms + endMs;
    this.busyUs += Math.round(endMs * 1000);
    if (r.request_bytes !== undefined) this.reqBytes = (this.reqBytes ?? 0) + r.request_bytes;
    if (r.response_bytes !== undefined) this.respBytes = (this.respBytes ?? 0) + r.response_bytes;
    for (const i of this.allIdx) this.put(i, r);
    if (r.status === 'ok') this.addOk(r);
    else if (r.status === 'cancelled') this.cancelled++;
    else this.addError(r);
  }

  private addOk(r: RequestRecord): void {
    this.ok++;
    this.inTok += r.input_tokens ?? 0;
    this.outTok += r.output_tokens ?? 0;
    if (typeof r.samples === 'number') this.samples = (this.samples ?? 0) + r.samples;
    for (const i of this.okIdx) this.put(i, r);
    if (r.token_source) this.sources[r.token_source]++;
    for (const f of SERVER_TIMING_FIELDS) {
      const v = r[f];
      if (v === undefined) continue;
      let c = this.serverCols.get(f);
      if (!c) this.serverCols.set(f, (c = new Column()));
      c.push(v);
    }
  }

  // cancelled requests are not failures (the run was stopped); HTTP status splits only http_error rows.
  private addError(r: RequestRecord): void {
    const status: RequestStatus = r.status;
    const key = status === 'http_error' ? `${status}:${r.http_status ?? ''}` : status;
    const example = r.error ? r.error.slice(0, 200) : null;
    this.addCode(r, example);
    const acc = this.errors.get(key);
    if (!acc) {
      this.errors.set(key, { e: { kind: status, http_status: status === 'http_error' ? r.http_status : null, count: 1, example }, id: r.id, attempt: r.attempt });
      return;
    }
    acc.e.count++;
    if (r.id < acc.id || (r.id === acc.id && r.attempt < acc.attempt)) Object.assign(acc, { id: r.id, attempt: r.attempt, e: { ...acc.e, example } });
  }

  /** The same failure counted by its stable code (a hand-made record without one keeps its kind). */
  private addCode(r: RequestRecord, example: string | null): void {
    const code = r.code ?? r.status;
    const acc = this.codes.get(code);
    if (!acc) {
      this.codes.set(code, { e: { code, kind: r.status, count: 1, example, hint: errorHint(code, r.status) }, id: r.id, attempt: r.attempt });
      return;
    }
    acc.e.count++;
    if (r.id < acc.id || (r.id === acc.id && r.attempt < acc.attempt)) Object.assign(acc, { id: r.id, attempt: r.attempt, e: { ...acc.e, example } });
  }

  /**
   * duration_s = (last end − first send) over measured requests; throughputs divide by it;
   * mean_in_flight = Σ e2e / duration (Little's law over the window); error_rate = failed / (total − cancelled);
   * embeddings and rerank: sample_throughput = Σ samples of ok requests / duration;
   * samples_per_s = sample_throughput there, else ok requests / duration (one request = one sample);
   * request_mb_per_s = Σ request_bytes of measured requests / 10⁶ / duration, response_mb_per_s likewise (failed requests too: their bytes crossed the wire).
   * Distributions carry p50/p90/p95/p99 and the `percentiles` asked for (--percentiles).
   */
  metrics(concurrency?: number, percentiles: Percentiles = DEFAULT_PERCENTILES): MetricsBlock {
    const failed = this.total - this.ok - this.cancelled;
    const durationMs = this.total ? Math.max(this.end - this.start, 1e-3) : 0;
    const durationS = durationMs / 1000;
    const per = (x: number) => (durationS > 0 ? x / durationS : 0);
    const meanInFlight = durationMs > 0 ? this.busyUs / 1000 / durationMs : 0;
    const outputThroughput = per(this.outTok);
    const conc = concurrency ?? meanInFlight;
    const denom = this.total - this.cancelled;
    // The registry's distributions, in its order (summary.json keys follow it).
    const dists: Record<string, DistStats> = {};
    this.defs.forEach((d, i) => (dists[d.id] = this.stores[i].stats(percentiles)));
    // Ties in count keep the order of each kind's first record (by id, then attempt).
    const errors = [...this.errors.values()].sort((a, b) => b.e.count - a.e.count || a.id - b.id || a.attempt - b.attempt).map((a) => a.e);
    return {
      requests: {
        total: this.total,
        ok: this.ok,
        failed,
        cancelled: this.cancelled,
        error_rate: denom > 0 ? failed / denom : 0,
        warmup: this.warmup,
        retries: this.retries,
        reconnected: this.reconnected,
        errors,
        errors_by_code: [...this.codes.values()].map((a) => a.e).sort((a, b) => b.count - a.count || (a.code < b.code ? -1 : 1)),
      },
      duration_s: durationS,
      request_throughput: per(this.ok),
      qpm: per(this.ok) * 60,
      input_throughput: per(this.inTok),
      output_throughput: outputThroughput,
      total_token_throughput: per(this.inTok + this.outTok),
      concurrency_efficiency: conc > 0 ? outputThroughput / conc : null,
      mean_in_flight: meanInFlight,
      ...(dists as unknown as MetricDists),
      token_source: { ...this.sources },
      ...(this.serverCols.size > 0 ? { server_timings: this.serverTimings(percentiles) } : {}),
      ...(this.samples !== null ? { samples: this.samples, sample_throughput: per(this.samples) } : {}),
      samples_per_s: this.samples !== null ? per(this.samples) : per(this.ok),
      ...(this.reqBytes !== null ? { request_bytes: this.reqBytes, request_mb_per_s: per(this.reqBytes) / 1e6 } : {}),
      ...(this.respBytes !== null ? { response_bytes: this.respBytes, response_mb_per_s: per(this.respBytes) / 1e6 } : {}),
    };
  }

  /**
   * Each metric's values as the summary's distribution saw them (by summary id, in arrival order), for compare's
   * per-request tests; a metric whose values moved to a histogram is left out.
   */
  metricValues(): Map<string, Float64Array> {
    const out = new Map<string, Float64Array>();
    this.defs.forEach((d, i) => {
      const v = this.stores[i].values();
      if (v) out.set(d.id, v);
    });
    return out;
  }

  /** Distributions of the server_* fields, in SERVER_TIMING_FIELDS order (only those some record carried). */
  private serverTimings(percentiles: readonly number[]): Partial<Record<ServerTimingField, DistStats>> {
    const out: Partial<Record<ServerTimingField, DistStats>> = {};
    for (const f of SERVER_TIMING_FIELDS) {
      const c = this.serverCols.get(f);
      if (c) out[f] = distStatsCi(c.values(), percentiles);
    }
    return out;
  }
}

/**
 * One set of records split by phase: steady requests in one block, ramp-up and ramp-down ones in the other (warmup
 * requests are only counted, in both). With ramps the headline is the steady block, or the ramp block when no
 * request was steady (a run of nothing but ramps).
 */
class PhaseBlocks {
  readonly steady: BlockAggregator;
  readonly ramps: BlockAggregator;
  constructor(itlExactLimit: number) {
    this.steady = new BlockAggregator(itlExactLimit);
    this.ramps = new BlockAggregator(itlExactLimit);
  }
  add(r: RequestRecord): void {
    const steady = (r.phase ?? 'steady') === 'steady';
    if (r.warmup || steady) this.steady.add(r);
    if (r.warmup || !steady) this.ramps.add(r);
  }
  pick(summarized: PhaseCounts['summarized']): BlockAggregator {
    return summarized === 'all' ? this.ramps : this.steady;
  }
}

/**
 * The percentiles a run asked for, read back from a run.json on disk (`config.percentiles`, from --percentiles) with
 * the flag's own parser; p50/p90/p95/p99 when it names none or a hand-edited file holds something else. A run in
 * progress passes its config's Percentiles instead.
 */
export function runPercentiles(run: Record<string, unknown>): Percentiles {
  const p = (run.config as { percentiles?: unknown } | undefined)?.percentiles;
  if (!Array.isArray(p) || p.length === 0 || !p.every((x) => typeof x === 'number')) return DEFAULT_PERCENTILES;
  const r = parsePercentiles(p, '');
  return 'percentiles' in r ? r.percentiles : DEFAULT_PERCENTILES;
}

/** The whole summary: one block for the run and one per traffic class. Results do not depend on the order records arrive in. */
export class SummaryAggregator {
  private readonly all: PhaseBlocks;
  private readonly classes = new Map<string, PhaseBlocks>();
  /** Per endpoint and per model (docs/routing.md): in the summary only when there are two or more. */
  private readonly endpoints = new Map<string, PhaseBlocks>();
  private readonly models = new Map<string, PhaseBlocks>();
  private readonly locality = new CacheLocalityAggregator();
  private readonly turns = new SessionAggregator();
  private readonly media: MediaAggregator;
  private readonly stages = new Map<number, PhaseBlocks>();
  private readonly cancels = new CancellationAggregator();
  private readonly users = new UsersAggregator();
  private readonly byUser = new UserCacheAggregator();
  /** Per input-length band (--length-bands), keyed by label; see lengthBandBlocks for when the summary shows them. */
  private readonly bandBlocks = new Map<string, PhaseBlocks>();
  /** Per request priority (the record's `priority`), keyed by the number as text; see priorityBlocks. */
  private readonly priorities = new Map<string, PhaseBlocks>();
  /** Measured (not warmup) requests per phase. */
  private readonly phases = { steady: 0, ramp_up: 0, ramp_down: 0 };
  /** Records added (warmup included). */
  count = 0;
  /**
   * The measured requests' columns for time slices, the throughput interval and the saturation test (slices.ts), split
   * by phase as the blocks are: the steady requests', and every phase's (a run of nothing but ramps).
   */
  private readonly sliceCols = { steady: new SliceColumns(), all: new SliceColumns() };
  /**
   * `bands`: the input-length bands (--length-bands); `bandsAsked` = the user named them, so by_length_band is shown
   * even when one band holds every request (the default bands show only when two or more are populated).
   */
  constructor(
    private readonly itlExactLimit = ITL_EXACT_LIMIT,
    readonly bands: readonly LengthBand[] = parseLengthBands(DEFAULT_LENGTH_BANDS),
    readonly bandsAsked = false,
  ) {
    this.all = new PhaseBlocks(itlExactLimit);
    this.media = new MediaAggregator((d) => (d.store === 'histogram' ? new ItlStore(itlExactLimit) : new ExactStore()));
  }
  /** An aggregator with the length bands a run's config names (`lengthBands`, --length-bands), else the default ones. */
  static forConfig(config: unknown, itlExactLimit = ITL_EXACT_LIMIT): SummaryAggregator {
    const asked = askedLengthBands(config) !== undefined;
    return new SummaryAggregator(itlExactLimit, runLengthBands(config), asked);
  }
  add(r: RequestRecord): void {
    this.count++;
    if (!r.warmup) this.phases[r.phase === 'ramp-up' ? 'ramp_up' : r.phase === 'ramp-down' ? 'ramp_down' : 'steady']++;
    this.all.add(r);
    if (r.endpoint !== undefined) this.keyed(this.endpoints, r.endpoint).add(r);
    if (r.model !== undefined) this.keyed(this.models, r.model).add(r);
    this.locality.add(r);
    this.turns.add(r);
    this.media.add(r);
    if ((r.phase ?? 'steady') === 'steady') this.sliceCols.steady.add(r);
    this.sliceCols.all.add(r);
    this.cancels.add(r);
    this.users.add(r);
    this.byUser.add(r);
    // The intended prompt length (counted client-side) is known for failed requests too, so a band's error rate is its own.
    const band = bandOf(this.bands, r.expected_input_tokens || (r.input_tokens ?? 0));
    if (band) this.keyed(this.bandBlocks, band.label).add(r);
    if (r.priority !== undefined) this.keyed(this.priorities, String(r.priority)).add(r);
    if (r.stage !== undefined) {
      let s = this.stages.get(r.stage);
      if (!s) this.stages.set(r.stage, (s = new PhaseBlocks(this.itlExactLimit)));
      s.add(r);
    }
    if (!r.class) return;
    this.keyed(this.classes, r.class).add(r);
  }
  private keyed(m: Map<string, PhaseBlocks>, k: string): PhaseBlocks {
    let b = m.get(k);
    if (!b) m.set(k, (b = new PhaseBlocks(this.itlExactLimit)));
    return b;
  }
  /** The slice columns of the requests the headline covers (`summarized`). */
  slicesOf(summarized: PhaseCounts['summarized'] = this.phaseCounts()?.summarized ?? 'steady'): SliceColumns {
    return summarized === 'all' ? this.sliceCols.all : this.sliceCols.steady;
  }
  /** Which requests the headline figures cover: undefined when the run had no ramp (all of them, as always). */
  private phaseCounts(): PhaseCounts | undefined {
    const p = this.phases;
    if (p.ramp_up + p.ramp_down === 0) return undefined;
    return { ...p, summarized: p.steady > 0 ? 'steady' : 'all' };
  }
  metrics(concurrency?: number): MetricsBlock {
    return this.all.pick(this.phaseCounts()?.summarized ?? 'steady').metrics(concurrency);
  }
  /** The headline block's per-request values (BlockAggregator.metricValues), the same records its metrics cover. */
  metricValues(): Map<string, Float64Array> {
    return this.all.pick(this.phaseCounts()?.summarized ?? 'steady').metricValues();
  }
  /** The summary; its distributions carry `percentiles` (default: the list run.json's config asked for, else p50/p90/p95/p99). */
  summary(run: Record<string, unknown>, concurrency?: number, percentiles: Percentiles = runPercentiles(run)): Summary {
    const phases = this.phaseCounts();
    const which = phases?.summarized ?? 'steady';
    const ps = percentiles;
    const summary: Summary = { schema_version: 1, run, ...(phases ? { phases } : {}), percentiles: [...ps], ...this.all.pick(which).metrics(concurrency, ps) };
    if (run.client_health) summary.client = run.client_health as ClientHealth;
    const cache = promptCacheCheck(tokenSums(summary), run.workload as Record<string, unknown> | undefined);
    if (cache) summary.prompt_cache = cache;
    if (this.classes.size > 0) {
      summary.by_class = {};
      for (const c of [...this.classes.keys()].sort()) summary.by_class[c] = this.classes.get(c)!.pick(which).metrics(concurrency, ps);
    }
    // Both sorted by name, endpoints with numbers in order (t2 before t10); only those that measured requests count.
    const byEndpoint = heldBlocks([...this.endpoints].sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true })).map(([k, b]) => [k, b.pick(which)]), 2, concurrency, ps);
    if (byEndpoint) summary.by_endpoint = byEndpoint;
    const byModel = heldBlocks([...this.models].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, b]) => [k, b.pick(which)]), 2, concurrency, ps);
    if (byModel) summary.by_model = byModel;
    const loc = this.locality.summary();
    if (loc) {
      summary.cache_locality = loc.cacheLocality;
      summary.prefix_groups = loc.groups;
    }
    const bands = this.lengthBandBlocks(which, concurrency, ps);
    if (bands) summary.by_length_band = bands;
    const priorities = this.priorityBlocks(which, concurrency, ps);
    if (priorities) summary.by_priority = priorities;
    if (this.stages.size > 0) summary.by_stage = this.stageBlocks(run, which, ps);
    const cancellation = this.cancels.summary();
    if (cancellation) summary.cancellation = cancellation;
    const users = this.users.summary(run.config as Record<string, unknown> | undefined);
    if (users) summary.users = users;
    const byUser = this.byUser.summary();
    if (byUser) summary.by_user = byUser;
    Object.assign(summary, this.turns.summary(ps));
    const media = this.media.summary(ps, (run.workload as { media?: { threaded?: boolean; threads?: number; media_waited?: number } } | undefined)?.media);
    Object.assign(summary, media);
    // The client's media cost also sits with its health, where a user looks for the client as the limit.
    if (media.media && summary.client) summary.client = { ...summary.client, media: media.media.client };
    Object.assign(summary, sliceSections(this.slicesOf(which), run));
    return summary;
  }
  /** Each populated band's metrics in band order, when asked for or when two or more bands hold measured requests. */
  private lengthBandBlocks(which: PhaseCounts['summarized'], concurrency: number | undefined, ps: Percentiles): Record<string, MetricsBlock> | undefined {
    return heldBlocks(this.bands.map((b) => [b.label, this.bandBlocks.get(b.label)?.pick(which)]), this.bandsAsked ? 1 : 2, concurrency, ps);
  }
  /** Each priority's metrics, when the measured requests hold two or more priorities (key order: see Summary.by_priority). */
  private priorityBlocks(which: PhaseCounts['summarized'], concurrency: number | undefined, ps: Percentiles): Record<string, MetricsBlock> | undefined {
    return heldBlocks([...this.priorities].map(([k, b]) => [k, b.pick(which)]), 2, concurrency, ps);
  }
  /** Each stage's metrics, labelled with its load from run.json `load_stages`; a stage's concurrency is its own (closed loop). */
  private stageBlocks(run: Record<string, unknown>, which: PhaseCounts['summarized'], ps: Percentiles): StageBlock[] {
    const loads = Array.isArray(run.load_stages) ? (run.load_stages as Record<string, unknown>[]) : [];
    const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);
    return [...this.stages.keys()]
      .sort((a, b) => a - b)
      .map((stage) => {
        const l = loads.find((x) => x.stage === stage) ?? {};
        const concurrency = num(l.concurrency);
        return { stage, started_at_ms: num(l.started_at_ms), concurrency, rate: num(l.rate), metrics: this.stages.get(stage)!.pick(which).metrics(concurrency ?? undefined, ps) };
      });
  }
}

/**
 * The blocks of the classes that hold measured requests, in the order given, or undefined when fewer than `min` do.
 * Which classes hold requests is counted before any block is built: a lone class is not shown, and building its block
 * would sort every ITL gap of the run again (200,000 at 500 streams, issue 30).
 */
function heldBlocks(classes: readonly (readonly [string, BlockAggregator | undefined])[], min: number, concurrency: number | undefined, ps: Percentiles): Record<string, MetricsBlock> | undefined {
  const held = classes.filter((c): c is readonly [string, BlockAggregator] => c[1] !== undefined && c[1].requests > 0);
  return held.length >= min ? Object.fromEntries(held.map(([k, a]) => [k, a.metrics(concurrency, ps)])) : undefined;
}
