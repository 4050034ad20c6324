import { describe, it, expect } from 'vitest';
import { gridHeatmaps, heatmapAxes, heatmapChart, HEAT_METRICS } from './sweep-heatmaps.js';
import type { SweepRow } from '../sweep-model.js';

const row = (load: number, input: number, output: number, extra: Partial<SweepRow> = {}): SweepRow =>
  ({
    name: `c${load}-in${input}-out${output}`, mode: 'concurrency', load, input_tokens: input, output_tokens: output, status: 'done', ok: 10,
    output_throughput: load * 100, ttft_p99_ms: 10 * load, tpot_p99_ms: 5, goodput_tok_s: load * 90, error_rate: 0, ...extra,
  }) as SweepRow;

type Series = { data: { value: number[]; name: string }[] };
const cells = (o: Record<string, unknown>) => (o.series as Series[])[0].data;

describe('grid heatmaps', () => {
  it('put load on x and the other varied axis on y, named with units', () => {
    const rows = [16, 64, 256].flatMap((i) => [1, 4].map((c) => row(c, i, 32)));
    const a = heatmapAxes(rows)!;
    expect([a.x.name, a.x.values, a.y.name, a.y.values, a.fixed]).toEqual(['concurrency (requests in flight)', ['1', '4'], 'input length (tokens)', ['16', '64', '256'], 'output 32 tokens']);
    const h = gridHeatmaps(rows, false);
    expect(Object.keys(h)).toEqual(HEAT_METRICS.map((m) => `s-heat-${m.key}`));
    expect(cells(h['s-heat-output_throughput'])).toHaveLength(6);
    expect(cells(h['s-heat-error_rate']).map((c) => c.value[2])).toEqual([0, 0, 0, 0, 0, 0]);
    expect((h['s-heat-goodput_tok_s'].title as { text: string }).text).toMatch(/no SLOs/);
  });
  it('input × output at one load; all three varying puts the pair on y; one varied axis is no heatmap', () => {
    const io = [8, 16].flatMap((i) => [4, 8].map((o) => row(2, i, o)));
    expect([heatmapAxes(io)!.x.name, heatmapAxes(io)!.y.name, heatmapAxes(io)!.fixed]).toEqual(['input length (tokens)', 'output length (tokens)', 'concurrency 2']);
    const all = [8, 16].flatMap((i) => [4, 8].flatMap((o) => [1, 2].map((c) => row(c, i, o))));
    expect(heatmapAxes(all)!.y).toEqual({ key: 'pair', name: 'input × output length (tokens)', values: ['8×4', '8×8', '16×4', '16×8'] });
    expect(heatmapAxes([1, 2, 4].map((c) => row(c, 8, 8)))).toBeNull();
    // Lengths left to the run flags (0 and 0) are not an axis.
    expect(heatmapAxes([row(1, 0, 0), row(2, 0, 0)])).toBeNull();
  });
  it('leaves cells of points that did not run blank, shows error rate in %, and keeps the point with more requests in a shared cell', () => {
    const rows = [row(1, 8, 4), row(2, 8, 4, { error_rate: 0.25 }), row(1, 16, 4, { status: 'failed', ttft_p99_ms: null }), row(2, 16, 4), row(2, 16, 4, { name: 'dup', ok: 3, output_throughput: 1 })];
    const a = heatmapAxes(rows)!;
    expect(cells(heatmapChart(rows, a, HEAT_METRICS[0])).map((c) => [c.name, c.value])).toEqual([['c1-in8-out4', [0, 0, 100]], ['c2-in8-out4', [1, 0, 200]], ['c2-in16-out4', [1, 1, 200]]]);
    expect(cells(heatmapChart(rows, a, HEAT_METRICS[4])).map((c) => c.value[2])).toEqual([0, 25, 0]);
  });
});
