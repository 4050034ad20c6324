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

function gaugeStats(xs: readonly ServerSample[], f: GaugeField): { mean: number | null; max: number | null } {
  const v = xs.map((s) => s.gauges[f]).filter((x): x is number => typeof x === 'number');
  if (!v.length) return { mean: null, max: null };
  return { mean: v.reduce((a, b) => a + b, 0) / v.length, max: Math.max(...v) };
}

/** Counter increase from the first to the last sample (a decrease = a restart: the last value alone). */
function counterDelta(xs: readonly ServerSample[], f: CounterField): number | null {
  const first = xs.find((s) => s.counters[f] !== undefined)?.counters[f];
  const last = [...xs].reverse().find((s) => s.counters[f] !== undefined)?.counters[f];
  if (first === undefined || last === undefined) return null;
  return last >= first ? last - first : last;
}

/**
 * The server section, or undefined when no sample was taken. `timeScale` divides server times (sim_time_scale);
 * `o.sim`: the server is the run's embedded simulator.
 */
export function serverSummary(samples: readonly ServerSample[], w: Window | null, client: Summary, timeScale = 1, o: { sim?: boolean } = {}): ServerSummary | undefined {
  if (samples.length === 0) return undefined;
  const xs = bracket(samples, w);
  const first = xs[0];
  const last = xs[xs.length - 1];
  const spanS = (last.t_ms - first.t_ms) / 1000;
  const toMs = (s: number | null): number | null => (s === null ? null : round((s * 1000) / timeScale));
  const times: ServerSummary['times'] = {};
  for (const f of HISTOGRAMS) {
    const end = last.histograms[f];
    if (!end) continue;
    const d = xs.length > 1 ? histogramDelta(first.histograms[f], end) : end;
    const t: ServerTimeStats = { count: d.count, mean_ms: toMs(histogramMean(d)), p50_ms: toMs(histogramQuantile(d, 0.5)), p99_ms: toMs(histogramQuantile(d, 0.99)) };
    times[f] = t;
  }
  const rate = (f: CounterField): number | null => {
    const d = counterDelta(xs, f);
    return d === null || spanS <= 0 ? null : round(d / spanS);
  };
  const hits = counterDelta(xs, 'prefix_hits');
  const queries = counterDelta(xs, 'prefix_queries');
  const running = gaugeStats(xs, 'running');
  const waiting = gaugeStats(xs, 'waiting');
  const kv = gaugeStats(xs, 'kv_usage');
  const queueMs = times.queue?.mean_ms ?? null;
  const prefillSource = times.prefill?.mean_ms != null ? 'histogram' : times.ttft?.mean_ms != null && queueMs !== null ? 'ttft_minus_queue' : null;
  const prefillMs = prefillSource === 'histogram' ? times.prefill!.mean_ms : prefillSource === 'ttft_minus_queue' ? round(Math.max(0, times.ttft!.mean_ms! - queueMs!)) : null;
  const cMean = client.ttft_ms.count ? client.ttft_ms.mean : null;
  const cP50 = client.ttft_ms.count ? client.ttft_ms.p50 : null;
  const serverPart = queueMs !== null && prefillMs !== null ? queueMs + prefillMs : null;
  const diff = (c: number | null, s: number | null) => ({ server: s, client: c === null ? null : round(c), difference: c === null || s === null ? null : round(c - s) });
  const out: ServerSummary = {
    engine: last.engine ?? first.engine,
    ...(o.sim ? { sim: true } : {}),
    samples: xs.length,
    window_ms: w ? [round(w.startMs)!, round(w.endMs)!] : null,
    time_scale: timeScale,
    running_mean: round(running.mean),
    waiting_mean: round(waiting.mean),
    waiting_max: round(waiting.max),
    kv_usage_mean: round(kv.mean, 4),
    kv_usage_max: round(kv.max, 4),
    preemptions: counterDelta(xs, 'preemptions'),
    prefix_hit_rate: hits !== null && queries !== null ? (queries > 0 ? round(hits / queries, 4) : null) : round(gaugeStats(xs, 'prefix_hit_rate').mean, 4),
    prompt_tokens_per_s: rate('prompt_tokens'),
    generation_tokens_per_s: rate('generation_tokens'),
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
  out.findings = diagnose(out, client, perWindowItl(xs, timeScale), { sim: o.sim });
  return out;
}

/** (mean running, mean ITL ms) per scrape interval that saw inter-token observations: decode slowing with batch size. */
export function perWindowItl(xs: readonly ServerSample[], timeScale = 1): { running: number; itlMs: number }[] {
  const out: { running: number; itlMs: number }[] = [];
  for (let i = 1; i < xs.length; i++) {
    const a = xs[i - 1].histograms.itl;
    const b = xs[i].histograms.itl;
    const r = xs[i].gauges.running;
    if (!a || !b || r === undefined || b.count <= a.count) continue;
    out.push({ running: ((xs[i - 1].gauges.running ?? r) + r) / 2, itlMs: ((b.sum - a.sum) / (b.count - a.count)) * 1000 / timeScale });
  }
  return out;
}
