// The run's own live figures on a private prom-client registry, fed by a reporter (docs/live-metrics.md).
import { basename, dirname } from 'node:path';
import { Gauge, Registry } from 'prom-client';
import type { RequestRecord } from '../../metrics/record.js';
import type { Reporter } from '../events.js';
import { metricDefs, shownIn, type MetricDef } from '../../metrics/registry/index.js';

export { E2E_BUCKETS_S, TOKEN_GAP_BUCKETS_S, TTFT_BUCKETS_S } from '../../metrics/registry/buckets.js';

type PromMetric = MetricDef & { prometheus: NonNullable<MetricDef['prometheus']> };
/** The registry's metrics with a live histogram (TTFT, TPOT, ITL, E2E and any registered), in its order. */
const promMetrics = (): PromMetric[] => metricDefs().filter((d): d is PromMetric => shownIn(d, 'prometheus') && d.prometheus !== undefined);

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

/** Bucket counts of one series; `le` is inclusive, as in Prometheus: a value goes to the first bound ≥ it. */
class Buckets {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  constructor(readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length + 1);
  }
  observe(v: number): void {
    let i = 0;
    while (i < this.bounds.length && v > this.bounds[i]) i++;
    this.counts[i]++;
    this.sum += v;
    this.count++;
  }
}

/** Everything counted for one label set (point, class, phase). */
interface Series {
  labels: Record<string, string>;
  /** Attempts by `outcome\0error_kind`. */
  requests: Map<string, number>;
  warmup: number;
  outTok: number;
  inTok: number;
  /** One histogram per promMetrics() entry, in its order. */
  hists: Buckets[];
}

type Value = { labels: Record<string, string | number>; value: number; metricName?: string };

/**
 * Metrics for one run or sweep, labelled `run`: the results directory's name (for a run, known at runStart; for a
 * sweep, the sweep directory's). Counters and histograms hold measured records only (warmup left out, as in
 * summary.json); warmup attempts are counted apart.
 *
 * Counters and histograms are plain numbers bumped on the measuring thread and turned into prom-client metric
 * values only when scraped or pushed: prom-client's own Histogram.observe hashes its labels on every call, which
 * costs microseconds per inter-token gap.
 */
export function createRunMetrics(run: string | undefined, opts: { sweep?: boolean } = {}): RunMetrics {
  const registry = new Registry();
  if (run !== undefined) registry.setDefaultLabels({ run });
  const series = new Map<string, Series>();
  const defs = promMetrics();
  const seriesOf = (point: string | undefined, cls: string, phase: string): Series => {
    const key = `${point ?? ''}\0${cls}\0${phase}`;
    let s = series.get(key);
    if (!s) {
      s = {
        labels: { ...(opts.sweep ? { point: point ?? '' } : {}), class: cls, phase },
        requests: new Map(),
        warmup: 0,
        outTok: 0,
        inTok: 0,
        hists: defs.map((d) => new Buckets(d.prometheus.buckets)),
      };
      series.set(key, s);
    }
    return s;
  };
  // A metric as the registry reads it: name, help, type and `get()` giving the values at scrape time.
  const custom = (name: string, help: string, type: 'counter' | 'histogram', values: () => Value[]) =>
    registry.registerMetric({ name, help, type, get: async () => ({ name, help, type, aggregator: 'sum', values: values() }) } as unknown as Parameters<Registry['registerMetric']>[0]);
  const counter = (name: string, help: string, f: (s: Series) => number) => custom(name, help, 'counter', () => [...series.values()].map((s) => ({ labels: { ...s.labels }, value: f(s) })));
  custom('tokenflood_requests_total', 'Measured request attempts finished (retries count once each), by outcome (ok, error, cancelled) and error kind (the record status)', 'counter', () =>
    [...series.values()].flatMap((s) =>
      [...s.requests].map(([k, value]) => {
        const [outcome, error_kind] = k.split('\0');
        return { labels: { ...s.labels, outcome, error_kind }, value };
      }),
    ),
  );
  counter('tokenflood_warmup_requests_total', 'Warmup request attempts finished (left out of every other figure)', (s) => s.warmup);
  counter('tokenflood_output_tokens_total', 'Output tokens of measured ok requests (as summary.json counts them)', (s) => s.outTok);
  counter('tokenflood_input_tokens_total', 'Input tokens of measured ok requests', (s) => s.inTok);
  const hist = (name: string, help: string, pick: (s: Series) => Buckets) =>
    custom(name, help, 'histogram', () =>
      [...series.values()].flatMap((s) => {
        const b = pick(s);
        let acc = 0;
        const out: Value[] = b.bounds.map((le, i) => ({ labels: { ...s.labels, le }, value: (acc += b.counts[i]), metricName: `${name}_bucket` }));
        out.push({ labels: { ...s.labels, le: '+Inf' }, value: b.count, metricName: `${name}_bucket` });
        out.push({ labels: { ...s.labels }, value: b.sum, metricName: `${name}_sum` }, { labels: { ...s.labels }, value: b.count, metricName: `${name}_count` });
        return out;
      }),
    );
  defs.forEach((d, i) => hist(d.prometheus.name, d.prometheus.help, (s) => s.hists[i]));
  const registers = [registry];
  const inFlight = new Gauge({ name: 'tokenflood_requests_in_flight', help: 'Requests sent and not yet finished (warmup included), at the last snapshot', labelNames: opts.sweep ? ['point'] : [], registers });
  const elapsed = new Gauge({ name: 'tokenflood_run_elapsed_seconds', help: 'Seconds on the run clock at the last snapshot', labelNames: opts.sweep ? ['point'] : [], registers });
  const finished = new Gauge({ name: 'tokenflood_run_finished', help: '1 once the run ended and every counter holds its final value (requests.jsonl is complete), else 0', registers });
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
        const s = seriesOf(point, r.class ?? '', r.phase ?? 'steady');
        if (r.warmup) return void s.warmup++;
        const outcome = outcomeOf(r);
        const k = outcome === 'ok' ? 'ok\0' : `${outcome}\0${r.status}`;
        s.requests.set(k, (s.requests.get(k) ?? 0) + 1);
        if (outcome !== 'ok') return;
        s.outTok += r.output_tokens ?? 0;
        s.inTok += r.input_tokens ?? 0;
        for (let i = 0; i < defs.length; i++) {
          const v = defs[i].of(r);
          const div = defs[i].prometheus.divisor;
          if (typeof v === 'number') s.hists[i].observe(v / div);
          else if (v !== null) for (const x of v) s.hists[i].observe(x / div);
        }
      },
      snapshot: (snap) => {
        inFlight.set(p, snap.inFlight);
        elapsed.set(p, snap.elapsedS);
      },
      runEnd: () => {
        inFlight.set(p, 0);
        if (!opts.sweep) finished.set(1);
      },
    };
  };
  return { registry, reporter, finish: () => finished.set(1) };
}
