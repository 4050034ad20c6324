// The over-saturation test: a growing queue is flagged, a steady one is not, and the slope bound is the textbook one.
import { describe, it, expect } from 'vitest';
import { saturationTest, slopeTest, SATURATION_MIN_SLICES, type SaturationPoint } from './saturation.js';
import { tQuantile } from './inference/index.js';
import { createRng } from '../util/rng.js';

const points = (n: number, inFlight: (t: number) => number, ttft: (t: number) => number | null): SaturationPoint[] =>
  Array.from({ length: n }, (_, k) => ({ t: k + 0.5, inFlight: inFlight(k + 0.5), ttftMs: ttft(k + 0.5) }));

describe('slopeTest', () => {
  it('is least squares with the 95% lower bound b − t(0.975, n−2)·se', () => {
    const t = [0, 1, 2, 3, 4];
    const y = [1, 3, 2, 5, 4];
    const r = slopeTest(t, y)!;
    // t̄ = 2, ȳ = 3, Sxx = 10, Sxy = 8 → b = 0.8, a = 1.4; residuals −0.4, 0.8, −1, 1.2, −0.6 → SSE = 3.6.
    expect(r.slope_per_s).toBeCloseTo(0.8, 12);
    expect(r.slope_low).toBeCloseTo(0.8 - tQuantile(0.975, 3) * Math.sqrt(3.6 / 3 / 10), 12);
    // Thirds of ⌈5/3⌉ = 2 values: (5 + 4)/2 ÷ (1 + 3)/2.
    expect(r.growth).toBeCloseTo(2.25, 12);
  });
});

describe('saturationTest', () => {
  const rng = createRng(3);
  const noise = (sd: number) => (rng.next() - 0.5) * sd * Math.sqrt(12);

  it('flags a queue that keeps growing (in-flight and TTFT rise linearly)', () => {
    const v = saturationTest(points(12, (t) => 5 + 8 * t + noise(2), (t) => 100 + 300 * t + noise(20)), 1)!;
    expect(v.saturated).toBe(true);
    expect(v.growing).toEqual(['in_flight', 'ttft']);
    expect(v.stopped).toBe(false);
    expect(v.detail).toMatch(/^over-saturated: in-flight requests and TTFT growing/);
    expect(v.tests.in_flight!.slope_low).toBeGreaterThan(0);
  });

  it('does not flag a steady run, nor one that rose and then levelled off', () => {
    const steady = saturationTest(points(20, () => 12 + noise(1.5), () => 200 + noise(30)), 10)!;
    expect(steady.saturated).toBe(false);
    expect(steady.detail).toMatch(/^not saturated/);
    // Rose over the first half (a ramp filling the server), flat over the last half: the window is the last half.
    const levelled = saturationTest(points(16, (t) => Math.min(t, 8) * 4 + noise(1), (t) => 100 + Math.min(t, 8) * 20 + noise(5)), 1)!;
    expect(levelled.saturated).toBe(false);
  });

  it('ignores a significant but small drift (growth below 1.2×) and a near-empty in-flight series', () => {
    const drift = saturationTest(points(20, (t) => 50 + 0.1 * t, (t) => 1000 + t), 1)!;
    expect(drift.saturated).toBe(false);
    expect(drift.tests.in_flight!.slope_low).toBeGreaterThan(0);
    const tiny = saturationTest(points(10, (t) => 0.01 * t, () => null), 1)!;
    expect(tiny.saturated).toBe(false);
    expect(tiny.tests.ttft_ms).toBeNull();
  });

  it('needs 8 slices', () => {
    expect(saturationTest(points(SATURATION_MIN_SLICES - 1, (t) => t * 100, (t) => t * 100), 1)).toBeNull();
  });
});
