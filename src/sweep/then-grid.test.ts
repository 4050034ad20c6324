import { describe, it, expect } from 'vitest';
import { gridLoads, kneeOf, THEN_GRID_FACTORS } from './then-grid.js';
import type { SweepRow } from '../report/sweep-model.js';
import type { SloSearchReport } from '../report/auto-search-model.js';

const row = (load: number, tput: number, ok = 10): SweepRow => ({ load, output_throughput: tput, ok, error_rate: 0, ttft_p99_ms: 10, tpot_p99_ms: 5, e2e_p99_ms: 100 }) as SweepRow;
const ok = (r: SweepRow) => r.ok > 0;

describe('--then-grid', () => {
  it('grids the knee × 0.5 … 1.5, rounded per mode and capped', () => {
    expect(THEN_GRID_FACTORS).toEqual([0.5, 0.75, 1, 1.25, 1.5]);
    expect(gridLoads(8, 'concurrency', 256)).toEqual([4, 6, 8, 10, 12]);
    expect(gridLoads(2, 'concurrency', 256)).toEqual([1, 2, 3]); // 1, 1.5→2, 2, 2.5→3, 3: distinct
    expect(gridLoads(8, 'concurrency', 9)).toEqual([4, 6, 8, 9]);
    expect(gridLoads(3.3, 'rate', Infinity)).toEqual([1.65, 2.47, 3.3, 4.13, 4.95]);
  });

  it('takes the knee from the SLO search, else the throughput knee, else the highest acceptable load', () => {
    const slo = { goal: 'slo', bracket: [6, 7] } as unknown as SloSearchReport;
    expect(kneeOf([], slo, ok)).toEqual({ knee: 6, knee_from: 'slo_search' });
    expect(kneeOf([], { goal: 'slo', bracket: [null, 1] } as unknown as SloSearchReport, ok)).toEqual({ knee: null, knee_from: null });
    const plateau = [row(1, 100), row(2, 200), row(4, 390), row(8, 410), row(16, 415)];
    expect(kneeOf(plateau, null, ok)).toEqual({ knee: 4, knee_from: 'output_throughput' });
    expect(kneeOf([row(1, 100), row(2, 200, 0)], null, ok)).toEqual({ knee: 1, knee_from: 'highest_acceptable' });
  });
});
