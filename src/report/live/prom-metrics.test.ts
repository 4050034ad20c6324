// The run's metrics: histograms render exactly as prom-client's own Histogram would for the same values; counters split by outcome.
import { describe, it, expect } from 'vitest';
import { Histogram, Registry } from 'prom-client';
import type { RequestRecord } from '../../metrics/record.js';
import { createRunMetrics, TTFT_BUCKETS_S } from './prom-metrics.js';

const rec = (o: Partial<RequestRecord>): RequestRecord =>
  ({ warmup: false, status: 'ok', class: undefined, phase: 'steady', output_tokens: 10, input_tokens: 100, ttft_ms: 100, tpot_ms: 20, e2e_ms: 300, itl_ms: [20, 20], ...o }) as RequestRecord;

const lines = (text: string, prefix: string) => text.split('\n').filter((l) => l.startsWith(prefix));
/** A sample line with its labels in name order (label order carries no meaning in the text format). */
const sorted = (line: string) => line.replace(/\{(.*)\}/, (_, l: string) => `{${l.split(/,(?=[a-z_]+=)/).sort().join(',')}}`);

describe('createRunMetrics', () => {
  it('TTFT buckets equal prom-client Histogram output for the same observations (inclusive le, cumulative, sum, count)', async () => {
    // Values on bucket bounds, between them, below the first and above the last.
    const ttftsMs = [5, 10, 10.0001, 100, 250, 999, 1000, 119_999, 120_000, 500_000];
    const m = createRunMetrics('r1');
    const rep = m.reporter();
    for (const t of ttftsMs) rep.record!(rec({ ttft_ms: t }));
    const ref = new Registry();
    ref.setDefaultLabels({ run: 'r1' });
    const h = new Histogram({ name: 'tokenflood_ttft_seconds', help: 'x', buckets: TTFT_BUCKETS_S, labelNames: ['class', 'phase'], registers: [ref] });
    for (const t of ttftsMs) h.observe({ class: '', phase: 'steady' }, t / 1000);
    const ours = lines(await m.registry.metrics(), 'tokenflood_ttft_seconds').map(sorted);
    expect(ours).toEqual(lines(await ref.metrics(), 'tokenflood_ttft_seconds').map(sorted));
    expect(ours).toContain('tokenflood_ttft_seconds_bucket{class="",le="0.01",phase="steady",run="r1"} 2');
  });

  it('counts measured attempts by outcome and kind, warmup apart, tokens of ok requests only; finished at runEnd', async () => {
    const m = createRunMetrics('r2');
    const rep = m.reporter();
    rep.record!(rec({}));
    rep.record!(rec({ class: 'chat', phase: 'ramp-up' }));
    rep.record!(rec({ status: 'http_error', output_tokens: 5 }));
    rep.record!(rec({ status: 'cancelled' }));
    rep.record!(rec({ warmup: true }));
    const text = await m.registry.metrics();
    expect(lines(text, 'tokenflood_requests_total').sort()).toEqual([
      'tokenflood_requests_total{class="",phase="steady",outcome="cancelled",error_kind="cancelled",run="r2"} 1',
      'tokenflood_requests_total{class="",phase="steady",outcome="error",error_kind="http_error",run="r2"} 1',
      'tokenflood_requests_total{class="",phase="steady",outcome="ok",error_kind="",run="r2"} 1',
      'tokenflood_requests_total{class="chat",phase="ramp-up",outcome="ok",error_kind="",run="r2"} 1',
    ]);
    expect(lines(text, 'tokenflood_warmup_requests_total{class="",phase="steady"')).toEqual(['tokenflood_warmup_requests_total{class="",phase="steady",run="r2"} 1']);
    expect(lines(text, 'tokenflood_output_tokens_total{class="",phase="steady"')).toEqual(['tokenflood_output_tokens_total{class="",phase="steady",run="r2"} 10']);
    expect(lines(text, 'tokenflood_itl_seconds_count{class="",phase="steady"')).toEqual(['tokenflood_itl_seconds_count{class="",phase="steady",run="r2"} 2']);
    expect(lines(text, 'tokenflood_run_finished')).toEqual(['tokenflood_run_finished{run="r2"} 0']);
    rep.runEnd!({} as never);
    expect(lines(await m.registry.metrics(), 'tokenflood_run_finished')).toEqual(['tokenflood_run_finished{run="r2"} 1']);
  });
});
