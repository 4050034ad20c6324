// Which percentiles the breakdown tables show for a --percentiles list.
import { describe, it, expect } from 'vitest';
import { latencyColumns, tailPercentiles, ttftPercentiles } from './breakdown-columns.js';

describe('breakdown columns', () => {
  it('TTFT at the lowest and the tail (p99 and up), E2E at the tail; a list without p99 and up ends at its highest', () => {
    expect(latencyColumns().map((c) => c.head)).toEqual(['TTFT p50', 'TTFT p99', 'TPOT p50', 'E2E p99']);
    expect(latencyColumns([50, 90, 95, 99, 99.9]).map((c) => c.head)).toEqual(['TTFT p50', 'TTFT p99', 'TTFT p99.9', 'TPOT p50', 'E2E p99', 'E2E p99.9']);
    expect(latencyColumns([50, 99.9], { tpot: false }).map((c) => c.head)).toEqual(['TTFT p50', 'TTFT p99.9', 'E2E p99.9']);
    expect([tailPercentiles([75, 90]), ttftPercentiles([75, 90])]).toEqual([[90], [75, 90]]);
    expect(ttftPercentiles([99.99])).toEqual([99.99]);
  });
});
