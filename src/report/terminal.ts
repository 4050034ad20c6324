// Terminal reporter: the end-of-run summary table.
import type { MetricsBlock, Summary } from '../metrics/summary.js';
import { distOf, metricsShownIn } from '../metrics/registry/index.js';
import { DEFAULT_PERCENTILES, percentileKey, type DistStats } from '../metrics/stats.js';
import { fmt, pct, table, safeTerminalText } from './format.js';
import { serverLines, specDecodeTpotLines } from './server-terminal.js';
import { cancellationLines, usersLines } from './load-shape-terminal.js';
import { routingLines } from './routing-terminal.js';
import { resourceLines } from './resource-terminal.js';
import { sessionLines } from './session-terminal.js';
import { clientMediaLines, mediaLines } from './media-terminal.js';
import { labelledTable, latencyColumns, priorityColumns, priorityEntries, type BreakdownColumn } from './breakdown-columns.js';
import { sliceTableLines, steadyAndSaturationLines, throughputCiLine } from './slices-terminal.js';
import { playbookLines } from './error-playbook.js';

/** Whether the grace period had to cancel anything; `inFlight` is absent in runs recorded before it was written. */
/** A table keyed by one label (length band, priority), in the terminal's words. */
function labelledText(label: string, entries: [string, MetricsBlock][], cols: BreakdownColumn[]): string {
  const t = labelledTable(label, entries, cols, { num: fmt, pct, errors: 'errors', throughput: 'out tok/s' });
  return table(t.head, t.rows);
}

function interruptedOutcome(cancelled: number, inFlight: unknown): string {
  if (cancelled > 0) return `${cancelled} request${cancelled === 1 ? '' : 's'} still in flight after the grace period ${cancelled === 1 ? 'was' : 'were'} cancelled`;
  if (typeof inFlight === 'number') return inFlight === 0 ? 'nothing was in flight' : `all ${inFlight} in-flight request${inFlight === 1 ? '' : 's'} finished within the grace period`;
  return 'no request had to be cancelled';
}

/** First event within this of TTFT (or FIRST_EVENT_NEAR_SHARE of it) at the mean, every percentile and the max: the row repeats TTFT. */
export const FIRST_EVENT_NEAR_MS = 1;
export const FIRST_EVENT_NEAR_SHARE = 0.01;

/** Whether first event tells nothing TTFT does not: equal, or an empty chunk (a role chunk) only just ahead of the first token. */
function firstEventNearTtft(s: Summary): boolean {
  const f = s.first_event_ms as DistStats | undefined;
  const t = s.ttft_ms as DistStats;
  if (!f || f.count !== t.count) return false;
  const keys = Object.keys(t).filter((k) => k !== 'count' && k !== 'stdev' && k !== 'ci95') as (keyof DistStats)[];
  return keys.every((k) => {
    const a = t[k] as number | null;
    const b = f[k] as number | null;
    if (a === null || b === null) return a === b;
    return Math.abs(a - b) <= Math.max(FIRST_EVENT_NEAR_MS, FIRST_EVENT_NEAR_SHARE * Math.abs(a));
  });
}

/** Why a hidden row equals TTFT, from what the run's data shows (TTFAT = TTFT unless a stream starts with reasoning). */
function sameAsTtftReason(k: 'ttfat_ms' | 'first_event_ms', s: Summary): string {
  if (k === 'first_event_ms')
    return JSON.stringify(s.first_event_ms) === JSON.stringify(s.ttft_ms)
      ? 'first event equals TTFT in this run: every stream\'s first event arrived with its first token (no earlier empty chunk)'
      : `first event, the first SSE event of any kind, is within ${FIRST_EVENT_NEAR_MS} ms of TTFT in this run: the server's empty first chunk (a role chunk) came just before the first token`;
  return (s.reasoning_tokens.max ?? 0) > 0
    ? 'TTFAT equals TTFT in this run: the first token of every stream was an answer token, ahead of its reasoning'
    : 'TTFAT equals TTFT in this run: no reasoning tokens';
}

/** The rows and figures that show ± (their 95% interval): the headline latencies' mean, p50, p99 and any --percentiles beyond the defaults. */
const CI_ROWS: ReadonlySet<string> = new Set(['ttft_ms', 'tpot_ms', 'itl_ms', 'e2e_ms']);
const NO_CI_STATS: ReadonlySet<string> = new Set(['p90', 'p95']);
export const CI_NOTE = '(±: 95% confidence interval, its wider side; both ends in summary.json ci95; none when too few requests: docs/metrics.md#confidence-intervals)';

/**
 * " ±h" with h = max(v − lo, hi − v), the wider side of an interval that need not be symmetric (an order-statistic
 * interval rarely is); two significant digits or so, to keep the column narrow. '' without an interval.
 */
export function plusMinus(v: number | null, ci: [number, number] | null | undefined): string {
  if (v === null || !ci) return '';
  const h = Math.max(v - ci[0], ci[1] - v);
  if (!Number.isFinite(h)) return '';
  return ` ±${h >= 10 ? h.toFixed(0) : h >= 1 ? h.toFixed(1) : h >= 0.01 ? h.toFixed(2) : h.toPrecision(1)}`;
}

export function renderSummary(s: Summary): string {
  const run = s.run as Record<string, unknown>;
  const out: string[] = [];
  const scale = run.sim_time_scale;
  out.push(`model ${String(run.model)} at ${String(run.target_url)}${run.embedded_server ? ' (embedded simulated server)' : ''}`);
  if (run.simulated === true) out.push('PREDICTION of the simulated engine model (virtual clock), not a measurement of a server: see docs/sim.md for what is modelled');
  if (typeof scale === 'number' && scale !== 1)
    out.push(`NOTE: simulated server running ${scale}x faster than real time: latencies are scaled, not real`);
  if (typeof run.stop_message === 'string') out.push(`STOPPED EARLY: ${run.stop_message}`);
  const r = s.requests;
  const ph = s.phases;
  if (ph)
    out.push(
      ph.summarized === 'steady'
        ? `phases: figures below cover the ${ph.steady} steady requests; ${ph.ramp_up} ramp-up and ${ph.ramp_down} ramp-down requests are recorded but left out`
        : `phases: no request was steady, so the figures below cover all ${ph.ramp_up + ph.ramp_down} requests, ramps included`,
    );
  if (typeof run.stop_message !== 'string' && run.stopped_reason === 'interrupted') out.push(`STOPPED: interrupted; ${interruptedOutcome(r.cancelled, run.in_flight_at_stop)}`);
  out.push(
    `requests: ${r.total} measured, ${r.ok} ok, ${r.failed} failed (${pct(r.error_rate)})` +
      (r.cancelled ? `, ${r.cancelled} cancelled` : '') +
      (r.warmup ? `, ${r.warmup} warmup excluded` : '') +
      (r.retries ? `, ${r.retries} retries` : '') +
      (r.reconnected ? `, ${r.reconnected} re-sent on a new connection (the server closed a reused one)` : '') +
      ` in ${fmt(s.duration_s)} s`,
  );
  out.push(...cancellationLines(s), ...usersLines(s));
  // Embeddings and rerank generate nothing: samples and input tokens per second instead of output figures.
  const samples = s.sample_throughput !== undefined;
  out.push(
    samples
      ? `throughput: ${fmt(s.request_throughput)} req/s (${fmt(s.qpm)} QPM), ${fmt(s.sample_throughput!)} samples/s, input ${fmt(s.input_throughput)} tok/s, mean in flight ${fmt(s.mean_in_flight)}`
      : `throughput: ${fmt(s.request_throughput)} req/s (${fmt(s.qpm)} QPM), output ${fmt(s.output_throughput)} tok/s, total ${fmt(s.total_token_throughput)} tok/s, mean in flight ${fmt(s.mean_in_flight)}`,
  );
  out.push(bytesLine(s));
  const ci = throughputCiLine(s);
  if (ci) out.push(ci);
  out.push(...steadyAndSaturationLines(s));
  out.push('');
  // Rows that carry something: token counts that were all zero (no reasoning, no cache hits) are left out.
  // TTFAT and first event repeat TTFT unless the model reasons or the server sends an early role chunk: say so once.
  const sameAsTtft = samples ? [] : (['ttfat_ms', 'first_event_ms'] as const).filter((k) => (k === 'first_event_ms' ? firstEventNearTtft(s) : JSON.stringify(s[k]) === JSON.stringify(s.ttft_ms)));
  // TTFT from the schedule only means something when a schedule set the send times (open loop, replay).
  const openLoop = (s.run.executor as { kind?: string } | undefined)?.kind !== 'constant-vus' && (s.run.executor as { kind?: string } | undefined)?.kind !== 'ramping-vus';
  const shown = metricsShownIn('terminal').map((d) => [d.label, d.id] as const).filter(([, k]) => {
    if (k === 'ttft_from_scheduled_ms' && !openLoop) return false;
    const d = distOf(s, { id: k }); // absent from summaries written before the field existed
    return d !== undefined && d.count > 0 && d.max !== 0 && !(sameAsTtft as readonly string[]).includes(k);
  });
  // The columns --percentiles asked for (a summary written before it existed has the four defaults).
  const ps = s.percentiles ?? DEFAULT_PERCENTILES;
  let withCi = false;
  const rows = shown.filter(([, k]) => !samples || k !== 'output_tokens').map(([label, k]) => {
    const d = distOf(s, { id: k })!;
    // The headline latencies' mean, p50 and p99 show their 95% interval (a summary written before ci95 has none).
    const cell = (key: string): string => {
      const v = key === 'mean' ? d.mean : (d[key as `p${number}`] ?? null);
      const pm = CI_ROWS.has(k) && !NO_CI_STATS.has(key) ? plusMinus(v, d.ci95?.[key]) : '';
      if (pm) withCi = true;
      return fmt(v) + pm;
    };
    return [samples && k === 'e2e_ms' ? 'latency (ms)' : label, cell('mean'), fmt(d.stdev), ...ps.map((p) => cell(percentileKey(p))), fmt(d.max)];
  });
  out.push(table(['metric', 'mean', 'stdev', ...ps.map((p) => `p${p}`), 'max'], rows));
  if (withCi) out.push(CI_NOTE);
  if (sameAsTtft.length) out.push(`(${sameAsTtft.map((k) => sameAsTtftReason(k, s)).join('; ')})`);
  out.push(...specDecodeTpotLines(s.server, s.tpot_ms.count ? s.tpot_ms.mean : null));
  // Shown, it needs its meaning: vLLM's client counts TTFT from this event, tokenflood from the first token.
  if (shown.some(([, k]) => k === 'first_event_ms'))
    out.push('(first event: the first SSE event of any kind, such as an empty role chunk, which vLLM\'s benchmark client takes as TTFT; TTFT here waits for the first token)');
  if (r.errors.length) {
    out.push('', 'errors:');
    for (const e of r.errors)
      out.push(`  ${e.count} x ${e.kind}${e.http_status ? ` ${e.http_status}` : ''}${e.example ? `: ${safeTerminalText(e.example)}` : ''}`);
    out.push(...playbookLines(s));
  }
  if (s.client) {
    const h = s.client;
    out.push(
      '',
      `client: event-loop delay p99 ${fmt(h.event_loop_delay_ms.p99)} ms${h.own_delay_ms ? ` (own ${fmt(h.own_delay_ms.p99)} ms${h.idle_floor_ms ? `, idle floor ${fmt(h.idle_floor_ms.p99)} ms` : ''})` : ''}, CPU ${fmt(h.cpu_percent.one_core, 0)}% of one core, send lag p99 ${fmt(h.send_lag_ms.p99)} ms` +
        (h.dropped ? `, ${h.dropped} open-loop sends missed their slot` : ''),
    );
    if (h.client_bound) out.push(`CLIENT-BOUND: the load generator itself was a bottleneck; latencies may include client time: ${h.reasons.join('; ')}`);
  }
  const clientMedia = clientMediaLines(s);
  if (clientMedia.length) out.push(...(s.client ? [] : ['']), ...clientMedia);
  if (s.server) out.push('', ...serverLines(s.server));
  if (s.server_timings) out.push('', serverTimingsLine(s.server_timings));
  const resources = resourceLines(s);
  if (resources.length) out.push('', ...resources);
  const estimated = s.token_source.estimate ?? 0; // absent in summaries written before estimates existed
  if (s.token_source.tokenizer > 0 || estimated > 0)
    out.push(
      '',
      `token counts: ${s.token_source.usage} from server usage, ${s.token_source.tokenizer} counted with ${String(run.tokenizer)}` +
        (estimated ? `, ${estimated} estimated (too long or too slow to count, docs/metrics.md)` : ''),
    );
  const lat = latencyColumns(ps);
  if (s.by_class) {
    out.push('', 'by class:');
    const crow = Object.entries(s.by_class).map(([c, m]) => [c, String(m.requests.ok), ...lat.map((col) => fmt(col.value(m))), fmt(m.output_throughput)]);
    out.push(table(['class', 'ok', ...lat.map((col) => col.head), 'out tok/s'], crow));
  }
  if (s.by_length_band) {
    out.push('', 'by input length (prompt tokens, k = 1024):');
    out.push(labelledText('band', Object.entries(s.by_length_band), lat));
  }
  if (s.by_priority) {
    out.push('', 'by priority (lower runs first):');
    const pcols = priorityColumns(ps);
    out.push(labelledText('priority', priorityEntries(s.by_priority), pcols));
  }
  if (s.by_user) {
    const n = s.by_user.users;
    out.push('', `by user (${n} user${n === 1 ? '' : 's'}; top ${Object.keys(s.by_user.rows).filter((k) => k !== 'others').length} by requests; cached rate = cached / prompt tokens):`);
    const urow = Object.entries(s.by_user.rows).map(([u, r]) => [
      u === 'others' && r.users > 1 ? `others (${r.users})` : safeTerminalText(u, 40),
      String(r.requests),
      pct(r.error_rate),
      fmt(r.ttft_p50_ms),
      r.cached_token_rate === null ? '-' : pct(r.cached_token_rate),
    ]);
    out.push(table(['user', 'requests', 'errors', 'TTFT p50', 'cached rate'], urow));
  }
  out.push(...routingLines(s));
  out.push(...sessionLines(s));
  out.push(...mediaLines(s));
  if (s.by_stage && s.by_stage.length > 1) {
    // Live load changes (--ui): which load each stretch of the run ran under.
    out.push('', 'by stage (live load changes):');
    const load = (st: (typeof s.by_stage)[number]) => (st.rate !== null ? `${st.rate} req/s` : `${st.concurrency ?? '-'} in flight`);
    const slat = latencyColumns(ps, { tpot: false });
    const srow = s.by_stage.map((st) => [String(st.stage), load(st), String(st.metrics.requests.ok), ...slat.map((col) => fmt(col.value(st.metrics))), fmt(st.metrics.output_throughput)]);
    out.push(table(['stage', 'load', 'ok', ...slat.map((col) => col.head), 'out tok/s'], srow));
  }
  out.push(...sliceTableLines(s));
  return out.join('\n');
}

/** One line of the timings the engine reported itself (server_* fields): medians, labelled by what they measure. */
function serverTimingsLine(t: NonNullable<Summary['server_timings']>): string {
  const parts: string[] = [];
  const p50 = (label: string, k: keyof typeof t, unit: string) => {
    const d = t[k];
    if (d && d.count > 0) parts.push(`${label} ${fmt(d.p50)}${unit}`);
  };
  p50('prefill', 'server_prompt_eval_ms', ' ms');
  p50('decode', 'server_eval_ms', ' ms');
  p50('load', 'server_load_ms', ' ms');
  p50('total', 'server_total_ms', ' ms');
  p50('prefill', 'server_prompt_per_s', ' tok/s');
  p50('decode', 'server_predicted_per_s', ' tok/s');
  p50('output', 'server_eval_tokens', ' tokens');
  return `server-reported timings (p50, docs/output-format.md): ${parts.join(', ')}`;
}

/** The practice's other throughput units: samples/s (ok requests/s, or results/s for embeddings) and request/response MB/s. */
function bytesLine(s: Summary): string {
  const mb = (x: number | undefined) => (x === undefined ? '-' : fmt(x));
  const samples = s.samples_per_s ?? (s.sample_throughput ?? s.request_throughput);
  return `data: ${fmt(samples)} samples/s, request bodies ${mb(s.request_mb_per_s)} MB/s, response bodies ${mb(s.response_mb_per_s)} MB/s`;
}
