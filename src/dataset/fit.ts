// Fitting length distributions to a log by maximum likelihood (lognormal, exponential, gamma), with goodness of fit and the spec that reproduces it.
import { gammaCdf, normalCdf } from '../metrics/inference/index.js';

export type FitKind = 'lognormal' | 'exponential' | 'gamma';

export interface Fit {
  kind: FitKind;
  /** The fitted parameters: lognormal mu, sigma (of ln x); exponential mean; gamma shape, scale. */
  params: Record<string, number>;
  /** Σ ln f(x_i) at the fitted parameters. */
  logLikelihood: number;
  /** Akaike: 2·(number of parameters) − 2·logLikelihood; lower is better. */
  aic: number;
  /** Kolmogorov–Smirnov D = sup |F_n(x) − F(x)|, and its asymptotic p-value (parameters estimated from the same data: conservative). */
  ksD: number;
  ksP: number;
  /** The --input-tokens / --output-tokens spec of the fit, clamped to the observed range. */
  spec: string;
}

export interface FitResult {
  /** Positive values fitted (zeros and negatives cannot come from these distributions). */
  n: number;
  dropped: number;
  mean: number;
  sd: number;
  min: number;
  max: number;
  /** Every kind, best (lowest AIC) first. */
  fits: Fit[];
  best: Fit;
}

/** ψ(x), the digamma function: recurrence up to x ≥ 6, then the asymptotic series. */
export function digamma(x: number): number {
  let r = 0;
  while (x < 6) r -= 1 / x++;
  const f = 1 / (x * x);
  return r + Math.log(x) - 0.5 / x - f * (1 / 12 - f * (1 / 120 - f * (1 / 252 - f * (1 / 240 - f / 132))));
}

/** ψ′(x), the trigamma function: recurrence up to x ≥ 6, then the asymptotic series. */
export function trigamma(x: number): number {
  let r = 0;
  while (x < 6) r += 1 / (x * x++);
  const f = 1 / (x * x);
  return r + 1 / x + f / 2 + (f / x) * (1 / 6 - f * (1 / 30 - f * (1 / 42 - f / 30)));
}

/** ln Γ(x) (Lanczos, g = 7), for the gamma log-likelihood. */
function lnGamma(x: number): number {
  const c = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x);
  x -= 1;
  let a = c[0];
  const t = x + 7.5;
  for (let i = 1; i < 9; i++) a += c[i] / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

/**
 * Gamma shape k̂ by Newton on ln k − ψ(k) = s, s = ln(mean) − mean(ln x) (the MLE condition once the scale is
 * profiled out: θ̂ = mean / k̂), from Minka's closed-form start (3 − s + √((s − 3)² + 24 s)) / (12 s).
 */
export function gammaShapeMle(s: number): number {
  let k = (3 - s + Math.sqrt((s - 3) ** 2 + 24 * s)) / (12 * s);
  for (let i = 0; i < 50; i++) {
    const step = (Math.log(k) - digamma(k) - s) / (1 / k - trigamma(k));
    const next = k - step;
    k = next > 0 ? next : k / 2;
    if (Math.abs(step) < 1e-10 * k) break;
  }
  return k;
}

/**
 * Kolmogorov's asymptotic p-value P(D > d) = 2 Σ (−1)^(j−1) exp(−2 j² λ²), λ = (√n + 0.12 + 0.11/√n)·d
 * (Stephens' small-sample correction).
 */
export function ksPValue(d: number, n: number): number {
  const sn = Math.sqrt(n);
  const lambda = (sn + 0.12 + 0.11 / sn) * d;
  if (lambda < 1e-3) return 1;
  let sum = 0;
  for (let j = 1; j <= 100; j++) {
    const term = Math.exp(-2 * j * j * lambda * lambda);
    sum += (j % 2 ? 1 : -1) * term;
    if (term < 1e-12) break;
  }
  return Math.min(1, Math.max(0, 2 * sum));
}

/** D = sup_x |F_n(x) − F(x)| over sorted samples (both sides of each step of the empirical CDF). */
export function ksStatistic(sorted: readonly number[], cdf: (x: number) => number): number {
  const n = sorted.length;
  let d = 0;
  for (let i = 0; i < n; i++) {
    const f = cdf(sorted[i]);
    d = Math.max(d, (i + 1) / n - f, f - i / n);
  }
  return d;
}

const round = (x: number, digits = 4): number => +x.toPrecision(digits);

/** Fit the three kinds to `values` by maximum likelihood; the best is the lowest AIC. Throws when fewer than 2 positive values. */
export function fitLengths(values: readonly number[]): FitResult {
  const xs = values.filter((v) => Number.isFinite(v) && v > 0).sort((a, b) => a - b);
  const n = xs.length;
  if (n < 2) throw new Error(`needs at least 2 positive lengths, got ${n}`);
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  const sd = Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (n - 1));
  const logs = xs.map(Math.log);
  const sumLog = logs.reduce((a, b) => a + b, 0);
  const meanLog = sumLog / n;
  const clamp = `,min=${xs[0]},max=${xs[n - 1]}`;
  const fit = (kind: FitKind, params: Record<string, number>, ll: number, k: number, cdf: (x: number) => number, spec: string): Fit => {
    const ksD = ksStatistic(xs, cdf);
    return { kind, params, logLikelihood: ll, aic: 2 * k - 2 * ll, ksD, ksP: ksPValue(ksD, n), spec: spec + clamp };
  };
  // Lognormal: μ̂ = mean(ln x), σ̂² = mean((ln x − μ̂)²); ln L = −Σ ln x − n ln σ̂ − n/2 ln 2π − n/2.
  const sigma = Math.sqrt(logs.reduce((a, l) => a + (l - meanLog) ** 2, 0) / n) || 1e-9;
  const llLog = -sumLog - n * Math.log(sigma) - (n / 2) * Math.log(2 * Math.PI) - n / 2;
  const lognormal = fit('lognormal', { mu: meanLog, sigma }, llLog, 2, (x) => normalCdf((Math.log(x) - meanLog) / sigma), `lognormal:mu=${round(meanLog, 6)},sigma=${round(sigma)}`);
  // Exponential: mean̂ = x̄; ln L = −n ln x̄ − n.
  const exponential = fit('exponential', { mean }, -n * Math.log(mean) - n, 1, (x) => 1 - Math.exp(-x / mean), `exponential:${round(mean, 6)}`);
  // Gamma: k̂ by Newton, θ̂ = x̄ / k̂; ln L = (k − 1) Σ ln x − n x̄/θ − n k ln θ − n ln Γ(k).
  const s = Math.log(mean) - meanLog;
  const shape = s > 1e-12 ? gammaShapeMle(s) : 1e6;
  const scale = mean / shape;
  const llGamma = (shape - 1) * sumLog - (n * mean) / scale - n * shape * Math.log(scale) - n * lnGamma(shape);
  const gamma = fit('gamma', { shape, scale }, llGamma, 2, (x) => gammaCdf(x, shape, scale), `gamma:shape=${round(shape)},scale=${round(scale)}`);
  const fits = [lognormal, exponential, gamma].sort((a, b) => a.aic - b.aic);
  return { n, dropped: values.length - n, mean, sd, min: xs[0], max: xs[n - 1], fits, best: fits[0] };
}
