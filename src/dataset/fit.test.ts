// Distribution fitting: known parameters recovered from generated samples, the special functions, KS, and the gamma spec kind.
import { describe, it, expect } from 'vitest';
import { createRng } from '../util/rng.js';
import { digamma, fitLengths, gammaShapeMle, ksPValue, trigamma } from './fit.js';
import { distMean, parseLengthDist, sampleLength } from './distribution.js';

const draw = (n: number, f: () => number) => Array.from({ length: n }, f);

describe('dataset fit', () => {
  it('digamma, trigamma and the Kolmogorov p-value match their known values', () => {
    expect(digamma(1)).toBeCloseTo(-0.5772156649, 9);
    expect(digamma(0.5)).toBeCloseTo(-1.9635100260, 9);
    expect(trigamma(1)).toBeCloseTo(Math.PI ** 2 / 6, 9);
    // Stephens' λ for D = 0.05, n = 1000 is 1.587: Q(λ) ≈ 0.013.
    expect(ksPValue(0.05, 1000)).toBeCloseTo(0.013, 3);
    expect(ksPValue(0.001, 1000)).toBeCloseTo(1, 6);
    // The Newton root satisfies ln k − ψ(k) = s.
    const k = gammaShapeMle(0.2);
    expect(Math.log(k) - digamma(k)).toBeCloseTo(0.2, 10);
  });

  it('recovers the parameters of generated samples and picks the kind they came from', () => {
    const rng = createRng(7);
    const n = 5000;
    const logn = fitLengths(draw(n, () => Math.exp(6 + 0.5 * rng.normal())));
    expect(logn.best.kind).toBe('lognormal');
    expect(logn.best.params.mu).toBeCloseTo(6, 1);
    expect(Math.abs(logn.best.params.sigma - 0.5)).toBeLessThan(0.02);
    expect(logn.best.ksP).toBeGreaterThan(0.01);

    const gam = fitLengths(draw(n, () => rng.gamma(2.5, 400)));
    expect(gam.best.kind).toBe('gamma');
    expect(Math.abs(gam.best.params.shape / 2.5 - 1)).toBeLessThan(0.06);
    expect(Math.abs(gam.best.params.scale / 400 - 1)).toBeLessThan(0.06);

    const exp = fitLengths(draw(n, () => rng.exponential(300)));
    // An exponential is a gamma of shape 1: the one-parameter fit wins on AIC unless the data say otherwise.
    expect(exp.best.kind).toBe('exponential');
    expect(Math.abs(exp.best.params.mean / 300 - 1)).toBeLessThan(0.05);
    expect(exp.fits.find((f) => f.kind === 'gamma')!.params.shape).toBeCloseTo(1, 1);
    // A wrong kind fits visibly worse: KS rejects the exponential for lognormal data.
    expect(logn.fits.find((f) => f.kind === 'exponential')!.ksP).toBeLessThan(1e-6);
  });

  it('prints specs that reproduce the fit: parsed, sampled, the same mean; zeros are left out and counted', () => {
    const rng = createRng(3);
    const r = fitLengths([0, 0, ...draw(4000, () => Math.round(rng.gamma(3, 200)))]);
    expect(r.dropped).toBe(2);
    expect(r.best.spec).toMatch(/^gamma:shape=[\d.]+,scale=[\d.]+,min=\d+,max=\d+$/);
    const d = parseLengthDist(r.best.spec);
    const again = draw(4000, () => sampleLength(d, rng));
    const mean = again.reduce((a, b) => a + b, 0) / again.length;
    expect(Math.abs(mean / r.mean - 1)).toBeLessThan(0.05);
    expect(() => fitLengths([5])).toThrow(/at least 2/);
  });

  it('gamma is a length spec kind: by shape and scale, or by mean and sd', () => {
    const a = parseLengthDist('gamma:shape=4,scale=250');
    const b = parseLengthDist('gamma:mean=1000,sd=500');
    expect(a).toMatchObject({ kind: 'gamma', shape: 4, scale: 250 });
    expect(b).toMatchObject({ kind: 'gamma', shape: 4, scale: 250 });
    expect(distMean(a)).toBe(1000);
    expect(() => parseLengthDist('gamma:shape=-1,scale=2')).toThrow(/positive/);
  });
});
