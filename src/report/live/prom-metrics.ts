// The run's own live figures as prom-client metrics on a private registry, fed by a reporter (docs/live-metrics.md).
import { basename, dirname } from 'node:path';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { RequestRecord } from '../../metrics/record.js';
import type { Reporter } from '../events.js';

/** Seconds. TTFT of LLM services: tens of ms (cached, small) to minutes (long prompts queued). */
export const TTFT_BUCKETS_S = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
/** Seconds. TPOT and ITL: ~1 ms (small models, speculative decoding) to a second (overloaded or preempted). */
export const TOKEN_GAP_BUCKETS_S = [0.001, 0.0025, 0.005, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.25, 0.5, 1];
/** Seconds. E2E: up to the default 600 s request timeout. */
export const E2E_BUCKETS_S = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600];

export interface RunMetrics {
  registry: Registry;
  /** A reporter feeding the metrics; `point` labels every figure of a sweep point (absent for a single run). */
  reporter(point?: string): Reporter;
  /** Mark the figures final (tokenflood_run_finished 1): a run's reporter does it at runEnd, a sweep after its last point. */
  finish(): void;
}

/** Outcome label of a record: ok, error (it failed, `error_kind` says how) or cancelled (the run was stopped). */
export function outcomeOf(r: Pick<RequestRecord, 'status'>): 'ok' | 'error' | 'cancelled' {
  return r.status === 'ok' ? 'ok' : r.status === 'cancelled' ? 'cancelled' : 'error';
}

/**
 * Metrics for one run or sweep, labelled `run`: the results directory's name (for a run, known at runStart; a
 * sweep names its directory). Counters and histograms hold measured records only (warmup left out, as in
 * summary.json); warmup attempts are counted apart.
 */
export function createRunMetrics(run: string | undefined, opts: { sweep?: boolean } = {}): RunMetrics {
  const registry = new Registry();
  if (run !== undefined) registry.setDefaultLabels({ run });
  const base = opts.sweep ? (['point', 'class', 'phase'] as const) : (['class', 'phase'] as const);
  const registers = [registry];
  const requests = new Counter({ name: 'tokenflood_requests_total', help: 'Measured request attempts finished (retries count once each), by outcome (ok, error, cancelled) and error kind (the record status)', labelNames: [...base, 'outcome', 'error_kind'], registers });
  const warmup = new Counter({ name: 'tokenflood_warmup_requests_total', help: 'Warmup request attempts finished (left out of every other figure)', labelNames: [...base], registers });
  const outTok = new Counter({ name: 'tokenflood_output_tokens_total', help: 'Output tokens of measured ok requests (as summary.json counts them)', labelNames: [...base], registers });
  const inTok = new Counter({ name: 'tokenflood_input_tokens_total', help: 'Input tokens of measured ok requests', labelNames: [...base], registers });
  const inFlight = new Gauge({ name: 'tokenflood_requests_in_flight', help: 'Requests sent and not yet finished (warmup included), at the last snapshot', labelNames: opts.sweep ? ['point'] : [], registers });
  const elapsed = new Gauge({ name: 'tokenflood_run_elapsed_seconds', help: 'Seconds on the run clock at the last snapshot', labelNames: opts.sweep ? ['point'] : [], registers });
  const finished = new Gauge({ name: 'tokenflood_run_finished', help: '1 once the run ended and every counter holds its final value (requests.jsonl is complete), else 0', registers });
  const hist = (name: string, help: string, buckets: number[]) => new Histogram({ name, help, buckets, labelNames: [...base], registers });
  const ttft = hist('tokenflood_ttft_seconds', 'Time to first token of measured ok requests (ttft_ms / 1000)', TTFT_BUCKETS_S);
  const tpot = hist('tokenflood_tpot_seconds', 'Time per output token after the first of measured ok requests (tpot_ms / 1000)', TOKEN_GAP_BUCKETS_S);
  const itl = hist('tokenflood_itl_seconds', 'Inter-token latencies of measured ok requests, one observation per gap (itl_ms / 1000)', TOKEN_GAP_BUCKETS_S);
  const e2e = hist('tokenflood_e2e_seconds', 'End-to-end latency of measured ok requests (e2e_ms / 1000)', E2E_BUCKETS_S);
  finished.set(0);

  const reporter = (point?: string): Reporter => {
    const p = opts.sweep ? { point: point ?? '' } : {};
    return {
      name: 'prometheus-metrics',
      snapshotEveryMs: 1000,
      runStart: (e) => {
        // A sweep point's directory is <sweep dir>/points/<name>: the sweep is the run.
        if (run === undefined) registry.setDefaultLabels({ run: basename(opts.sweep ? dirname(dirname(e.outDir)) : e.outDir) });
      },
      record: (r) => {
        const l = { ...p, class: r.class ?? '', phase: r.phase ?? 'steady' };
        if (r.warmup) return void warmup.inc(l);
        const outcome = outcomeOf(r);
        requests.inc({ ...l, outcome, error_kind: outcome === 'ok' ? '' : r.status });
        if (outcome !== 'ok') return;
        outTok.inc(l, r.output_tokens ?? 0);
        inTok.inc(l, r.input_tokens ?? 0);
        if (r.ttft_ms !== null) ttft.observe(l, r.ttft_ms / 1000);
        if (r.tpot_ms !== null) tpot.observe(l, r.tpot_ms / 1000);
        if (r.e2e_ms !== null) e2e.observe(l, r.e2e_ms / 1000);
        if (r.itl_ms.length) {
          // One label lookup per record, not per gap.
          const child = itl.labels(l);
          for (const g of r.itl_ms) child.observe(g / 1000);
        }
      },
      snapshot: (s) => {
        inFlight.set(p, s.inFlight);
        elapsed.set(p, s.elapsedS);
      },
      runEnd: () => {
        inFlight.set(p, 0);
        if (!opts.sweep) finished.set(1);
      },
    };
  };
  return { registry, reporter, finish: () => finished.set(1) };
}
