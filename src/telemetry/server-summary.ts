// Pure: the server_metrics.jsonl samples of a run + the client's summary → the summary's `server` section.
import type { Summary } from '../metrics/summary-model.js';
import type { ServerSummary, ServerTimeStats } from '../metrics/server-model.js';
import { HISTOGRAMS, type CounterField, type GaugeField } from './engines.js';
import type { ServerSample } from './normalize.js';
import { histogramDelta, histogramMean, histogramQuantile } from './histogram-window.js';
import { diagnose } from './diagnose.js';

/** The run-clock span the headline figures cover: first send to last answer of the summarized requests. */
export interface Window {
  startMs: number;
  endMs: number;
}

const round = (x: number | null, digits = 3): number | null => (x === null || !Number.isFinite(x) ? null : Number(x.toFixed(digits)));

/**
 * The samples that bracket `w`: from the last one at or before its start (else the first) to the first one at or
 * after its end (else the last), so histogram deltas count every request answered inside the window.
 */
export function bracket(samples: readonly ServerSample[], w: Window | null): ServerSample[] {
  if (!w || samples.length === 0) return [...samples];
  let from = 0;
  for (let i = 0; i < samples.length; i++) if (samples[i].t_ms <= w.startMs) from = i;
  let to = samples.length - 1;
  for (let i = samples.length - 1; i >= from; i--) if (samples[i].t_ms >= w.endMs) to = i;
  return samples.slice(from, to + 1);
}

/** Running count, sum and max of one gauge: a day of 1 s scrapes is never spread into Math.max. */
interface RunningStat {
  n: number;
  sum: number;
  max: number;
}

const gaugeStat = (r: RunningStat | undefined): { mean: number | null; max: number | null } => (r && r.n ? { mean: r.sum / r.n, max: r.max } : { mean: null, max: null });

/**
 * The server section built one sample at a time (a run's samples are streamed from server_metrics.jsonl, never held):
 * the bracket of `bracket()`, running gauge statistics, first and last counter values, and the per-interval ITL pairs.
 */
export class ServerSummaryBuilder {
  private n = 0;
  private first: ServerSample | undefined;
  private last: ServerSample | undefined;
  private gauges = new Map<GaugeField, RunningStat>();
  private firstCounter: Partial<Record<CounterField, number>> = {};
  private lastCounter: Partial<Record<CounterField, number>> = {};
  private itl: { running: number; itlMs: number }[] = [];
  private rejected = 0;
  private done = false;
  constructor(
    private readonly w: Window | null,
    private readonly timeScale = 1,
    private readonly o: { sim?: boolean } = {},
  ) {}

  add(s: ServerSample): void {
    if (this.done) return;
    // The last sample at or before the window's start begins the bracket afresh.
    if (this.w && s.t_ms <= this.w.startMs) this.reset();
    const prev = this.last;
    this.n++;
    this.first ??= s;
    this.last = s;
    for (const [f, v] of Object.entries(s.gauges) as [GaugeField, number][]) {
      if (typeof v !== 'number') continue;
      const r = this.gauges.get(f);
      if (r) {
        r.n++;
        r.sum += v;
        if (v > r.max) r.max = v;
      } else this.gauges.set(f, { n: 1, sum: v, max: v });
    }
    for (const [f, v] of Object.entries(s.counters) as [CounterField, number][]) {
      if (v === undefined) continue;
      this.firstCounter[f] ??= v;
      this.lastCounter[f] = v;
    }
    this.rejected += s.rejected?.count ?? 0;
    if (prev) {
      const pair = itlPair(prev, s, this.timeScale);
      if (pair) this.itl.push(pair);
    }
    // The first sample at or after the window's end closes it.
    if (this.w && s.t_ms >= this.w.endMs) this.done = true;
  }

  private reset(): void {
    this.n = 0;
    this.first = this.last = undefined;
    this.gauges.clear();
    this.firstCounter = {};
    this.lastCounter = {};
    this.itl = [];
    this.rejected = 0;
  }

  /** Counter increase over the bracket (a decrease = a restart: the last value alone). */
  private counterDelta(f: CounterField): number | null {
    const a = this.firstCounter[f];
    const b = this.lastCounter[f];
    if (a === undefined || b === undefined) return null;
    return b >= a ? b - a : b;
  }

  /** The server section, or undefined when no sample was added. */
  summary(client: Summary): ServerSummary | undefined {
    if (!this.first || !this.last) return undefined;
    return buildSummary(this, client);
  }

  /** @internal what buildSummary reads. */
  get state() {
    return { sim: this.o.sim === true, n: this.n, first: this.first!, last: this.last!, w: this.w, timeScale: this.timeScale, itl: this.itl, rejected: this.rejected, gauge: (f: GaugeField) => gaugeStat(this.gauges.get(f)), delta: (f: CounterField) => this.counterDelta(f) };
  }
}

/**
 * The server section, or undefined when no sample was taken. `timeScale` divides server times (sim_time_scale);
 * `o.sim`: the server is the run's embedded simulator (its findings name the --sim-* flags).
 */
export function serverSummary(samples: Iterable<ServerSample>, w: Window | null, client: Summary, timeScale = 1, o: { sim?: boolean } = {}): ServerSummary | undefined {
  const b = new ServerSummaryBuilder(w, timeScale, o);
  for (const s of samples) b.add(s);
  return b.summary(client);
}

/**
 * Speculative decoding over the window: acceptance rate = accepted ÷ draft tokens; mean acceptance length =
 * 1 + accepted ÷ drafts (tokens per verify step, the bonus token included, as vLLM logs it); SGLang: the means of its
 * spec_accept_length and spec_accept_rate gauges. draft_tokens_per_draft = draft tokens ÷ drafts (the configured K).
 * implied_step_ms = client TPOT mean × mean acceptance length: the time of one verify step of one sequence as the
 * client sees it (TPOT alone hides that each step now emits several tokens).
 */
function specDecode(st: ServerSummaryBuilder['state'], client: Summary): ServerSummary['spec_decode'] {
  const drafts = st.delta('spec_drafts');
  const draftTokens = st.delta('spec_draft_tokens');
  const accepted = st.delta('spec_accepted_tokens');
  const gaugeLen = st.gauge('spec_accept_length').mean;
  const gaugeRate = st.gauge('spec_accept_rate').mean;
  if (drafts === null && draftTokens === null && accepted === null && gaugeLen === null && gaugeRate === null) return null;
  const length = accepted !== null && drafts ? round(1 + accepted / drafts, 3) : round(gaugeLen, 3);
  const tpot = client.tpot_ms.count ? client.tpot_ms.mean : null;
  return {
    drafts,
    draft_tokens: draftTokens,
    accepted_tokens: accepted,
    acceptance_rate: accepted !== null && draftTokens ? round(accepted / draftTokens, 4) : round(gaugeRate, 4),
    mean_acceptance_length: length,
    draft_tokens_per_draft: draftTokens !== null && drafts ? round(draftTokens / drafts, 3) : null,
    implied_step_ms: tpot !== null && length !== null ? round(tpot * length, 3) : null,
  };
}

function buildSummary(b: ServerSummaryBuilder, client: Summary): ServerSummary {
  const st = b.state;
  const { first, last, w, timeScale } = st;
  const spanS = (last.t_ms - first.t_ms) / 1000;
  const toMs = (s: number | null): number | null => (s === null ? null : round((s * 1000) / timeScale));
  const times: ServerSummary['times'] = {};
  for (const f of HISTOGRAMS) {
    const end = last.histograms[f];
    if (!end) continue;
    const d = st.n > 1 ? histogramDelta(first.histograms[f], end) : end;
    const t: ServerTimeStats = { count: d.count, mean_ms: toMs(histogramMean(d)), p50_ms: toMs(histogramQuantile(d, 0.5)), p99_ms: toMs(histogramQuantile(d, 0.99)) };
    times[f] = t;
  }
  const rate = (f: CounterField): number | null => {
    const d = st.delta(f);
    return d === null || spanS <= 0 ? null : round(d / spanS);
  };
  const hits = st.delta('prefix_hits');
  const queries = st.delta('prefix_queries');
  const running = st.gauge('running');
  const waiting = st.gauge('waiting');
  const kv = st.gauge('kv_usage');
  const queueMs = times.queue?.mean_ms ?? null;
  const prefillSource = times.prefill?.mean_ms != null ? 'histogram' : times.ttft?.mean_ms != null && queueMs !== null ? 'ttft_minus_queue' : null;
  const prefillMs = prefillSource === 'histogram' ? times.prefill!.mean_ms : prefillSource === 'ttft_minus_queue' ? round(Math.max(0, times.ttft!.mean_ms! - queueMs!)) : null;
  const cMean = client.ttft_ms.count ? client.ttft_ms.mean : null;
  const cP50 = client.ttft_ms.count ? client.ttft_ms.p50 : null;
  const serverPart = queueMs !== null && prefillMs !== null ? queueMs + prefillMs : null;
  const diff = (c: number | null, s: number | null) => ({ server: s, client: c === null ? null : round(c), difference: c === null || s === null ? null : round(c - s) });
  const out: ServerSummary = {
    engine: last.engine ?? first.engine,
    ...(st.sim ? { sim: true } : {}),
    samples: st.n,
    window_ms: w ? [round(w.startMs)!, round(w.endMs)!] : null,
    time_scale: timeScale,
    running_mean: round(running.mean),
    waiting_mean: round(waiting.mean),
    waiting_max: round(waiting.max),
    waiting_littles_law: times.queue && queueMs !== null && spanS > 0 ? round((times.queue.count / spanS) * (queueMs / 1000)) : null,
    kv_usage_mean: round(kv.mean, 4),
    kv_usage_max: round(kv.max, 4),
    preemptions: st.delta('preemptions'),
    aborted_requests: st.delta('aborted'),
    prefix_hit_rate: hits !== null && queries !== null ? (queries > 0 ? round(hits / queries, 4) : null) : round(st.gauge('prefix_hit_rate').mean, 4),
    prompt_tokens_per_s: rate('prompt_tokens'),
    generation_tokens_per_s: rate('generation_tokens'),
    spec_decode: specDecode(st, client),
    rejected_values: st.rejected,
    times,
    ttft_decomposition:
      queueMs === null && prefillMs === null
        ? null
        : {
            client_ttft_mean_ms: round(cMean),
            client_ttft_p50_ms: round(cP50),
            queue_mean_ms: queueMs,
            prefill_mean_ms: prefillMs,
            prefill_source: prefillSource,
            rest_mean_ms: cMean !== null && serverPart !== null ? round(cMean - serverPart) : null,
            rest_p50_ms: cP50 !== null && serverPart !== null ? round(cP50 - serverPart) : null,
          },
    vs_client: {
      ttft_mean_ms: diff(cMean, times.ttft?.mean_ms ?? null),
      itl_mean_ms: diff(client.itl_ms.count ? client.itl_ms.mean : null, times.itl?.mean_ms ?? null),
    },
    findings: [],
  };
  const proc = processUse(st, spanS);
  if (proc) out.process = proc;
  out.findings = diagnose(out, client, st.itl, { sim: st.sim });
  return out;
}

/**
 * The process section: CPU % = Δ process_cpu_seconds ÷ wall seconds × 100 over the bracket (real seconds on both sides,
 * whatever a sim's time scale), RSS mean and max in MiB. Undefined without process series.
 */
function processUse(st: ServerSummaryBuilder['state'], wallS: number): ServerSummary['process'] {
  const rss = st.gauge('process_rss_bytes');
  const pct = (f: CounterField): number | null => {
    const d = st.delta(f);
    return d === null || wallS <= 0 ? null : round((d / wallS) * 100, 1);
  };
  const cpu = pct('process_cpu_seconds');
  if (cpu === null && rss.mean === null) return undefined;
  const mib = (x: number | null) => (x === null ? null : round(x / (1024 * 1024), 1));
  return { cpu_pct_mean: cpu, cpu_user_pct_mean: pct('process_cpu_user_seconds'), cpu_system_pct_mean: pct('process_cpu_system_seconds'), rss_mib_mean: mib(rss.mean), rss_mib_max: mib(rss.max) };
}

/** (mean running, mean ITL ms) over the interval a → b, when it saw inter-token observations. */
function itlPair(x: ServerSample, y: ServerSample, timeScale: number): { running: number; itlMs: number } | undefined {
  const a = x.histograms.itl;
  const b = y.histograms.itl;
  const r = y.gauges.running;
  if (!a || !b || r === undefined || b.count <= a.count) return undefined;
  return { running: ((x.gauges.running ?? r) + r) / 2, itlMs: ((b.sum - a.sum) / (b.count - a.count)) * 1000 / timeScale };
}

/** (mean running, mean ITL ms) per scrape interval that saw inter-token observations: decode slowing with batch size. */
export function perWindowItl(xs: readonly ServerSample[], timeScale = 1): { running: number; itlMs: number }[] {
  const out: { running: number; itlMs: number }[] = [];
  for (let i = 1; i < xs.length; i++) {
    const p = itlPair(xs[i - 1], xs[i], timeScale);
    if (p) out.push(p);
  }
  return out;
}
