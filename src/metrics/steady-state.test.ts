// MSER-5: the truncation on a series with a known transient (checked against a brute force of White's formula), and the cut it makes in a run's records.
import { describe, it, expect } from 'vitest';
import { batchMeans, mser5, mserTruncation, MSER_BATCH, steadyStateCut, trimmedRecord } from './steady-state.js';
import { SliceColumns } from './slices.js';
import { createRng } from '../util/rng.js';
import type { RequestRecord } from './record.js';

/** MSER(d) straight from the definition, every d in 0..⌊m/2⌋, no shortcuts: the independent check of mserTruncation. */
function bruteForce(z: number[]): number {
  const m = z.length;
  let best = -1;
  let bestV = Infinity;
  for (let d = 0; d <= Math.floor(m / 2); d++) {
    const tail = z.slice(d);
    const mean = tail.reduce((s, v) => s + v, 0) / tail.length;
    const v = tail.reduce((s, x) => s + (x - mean) ** 2, 0) / tail.length ** 2;
    if (v < bestV) [best, bestV] = [d, v];
  }
  return best;
}

/** 30 batches of 5 observations: the first 8 batches decay from 5× to the steady level 100, then noise (sd 8) around it. */
function transientSeries(seed: number): number[] {
  const rng = createRng(seed);
  const noise = () => (rng.next() + rng.next() + rng.next() - 1.5) * 2 * 8; // mean 0, sd 8
  return Array.from({ length: 30 * MSER_BATCH }, (_, i) => {
    const batch = Math.floor(i / MSER_BATCH);
    const excess = batch < 8 ? 400 * (1 - batch / 8) ** 2 : 0;
    return 100 + excess + noise();
  });
}

describe('MSER-5 (White 1997)', () => {
  it('trims a known transient where the formula says: the brute-force d, and within a batch of the 8 it was built with', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const x = transientSeries(seed);
      const z = batchMeans(x);
      expect(z).toHaveLength(30);
      const { d } = mser5(x);
      expect(d).toBe(bruteForce(z));
      expect(mserTruncation(z).d).toBe(d);
      // Batch 7 is 400·(1/8)² = 6 above the level, inside the noise of a batch mean (sd 8/√5 ≈ 3.6): d is 7 or 8, maybe 9.
      expect(d).toBeGreaterThanOrEqual(7);
      expect(d).toBeLessThanOrEqual(9);
    }
  });

  it('trims nothing from a stationary series, and never searches past the first half', () => {
    const rng = createRng(9);
    const flat = Array.from({ length: 200 }, () => 50 + rng.next());
    expect(mser5(flat).d).toBeLessThanOrEqual(4);
    // A series rising to the end (no steady state): the minimum sits at the edge of the search, ⌊m/2⌋.
    const rising = Array.from({ length: 100 }, (_, i) => i);
    const r = mser5(rising);
    expect(r.d).toBe(Math.floor(r.batches / 2));
  });

  it('gives the MSER statistic of the formula at each d', () => {
    const z = [9, 5, 1, 1, 2, 1];
    const { mser } = mserTruncation(z);
    // d = 1: tail 5,1,1,2,1 has mean 2, Σ(z − 2)² = 9+1+1+0+1 = 12, ÷ 5² = 0.48.
    expect(mser[1]).toBeCloseTo(0.48, 12);
    expect(mser).toHaveLength(4);
  });
});

/** A measured ok record sent at `sent` ms with this TTFT (the fields the columns read). */
const rec = (id: number, sent: number, ttft: number, status: RequestRecord['status'] = 'ok'): RequestRecord =>
  ({ id, attempt: 1, warmup: false, status, sent_at_ms: sent, end_ms: ttft + 50, ttft_ms: status === 'ok' ? ttft : null, tpot_ms: 5, e2e_ms: ttft + 50, input_tokens: 10, output_tokens: 10 }) as RequestRecord;

describe('the cut in a run', () => {
  it('trims the requests sent before the (5d + 1)-th ok request, failed ones included', () => {
    const x = transientSeries(2);
    const cols = new SliceColumns();
    const records = x.map((v, i) => rec(i, i * 100, v));
    // A failed request sent early is trimmed with the ok ones around it.
    records.push(rec(999, 150, 0, 'timeout'));
    for (const r of records) cols.add(r);
    const { d } = mser5(x);
    const cut = steadyStateCut(cols);
    expect(cut.summary.truncated_batches).toBe(d);
    expect(cut.cutMs).toBe(d * MSER_BATCH * 100);
    expect(cut.summary.trimmed_s).toBe(cut.cutMs / 1000);
    expect(cut.summary.trimmed_requests).toBe(d * MSER_BATCH + 1);
    expect(cut.summary.series).toContain('ttft_ms');
    expect(trimmedRecord(records[0], cut.cutMs).warmup).toBe(true);
    expect(trimmedRecord(records[d * MSER_BATCH], cut.cutMs).warmup).toBe(false);
  });

  it('says why it trimmed nothing when there are fewer than 10 batches', () => {
    const cols = new SliceColumns();
    for (let i = 0; i < 40; i++) cols.add(rec(i, i * 10, i < 10 ? 500 : 100));
    const cut = steadyStateCut(cols);
    expect(cut.summary.truncated_batches).toBe(0);
    expect(cut.summary.trimmed_requests).toBe(0);
    expect(cut.summary.note).toMatch(/too few/);
  });
});
