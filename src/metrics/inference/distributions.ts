// Quantiles and CDFs of the normal, Student t and binomial distributions (jstat, loaded on first use: 25 ms at start-up otherwise).
import { createRequire } from 'node:module';
import type { jStat as JStat } from 'jstat';

const require = createRequire(import.meta.url);
let lib: typeof JStat | undefined;
const j = (): typeof JStat => (lib ??= (require('jstat') as { jStat: typeof JStat }).jStat);

/** Φ⁻¹(p): the standard normal quantile. */
export const normalQuantile = (p: number): number => j().normal.inv(p, 0, 1);
/** Φ(x): the standard normal CDF. */
export const normalCdf = (x: number): number => j().normal.cdf(x, 0, 1);
/** The Student t quantile with `df` degrees of freedom (df may be fractional, as Welch's is). */
export const tQuantile = (p: number, df: number): number => j().studentt.inv(p, df);
/** The Student t CDF with `df` degrees of freedom. */
export const tCdf = (x: number, df: number): number => j().studentt.cdf(x, df);
/** P(X ≤ k) for X ~ Binomial(n, p). */
export const binomialCdf = (k: number, n: number, p: number): number => j().binomial.cdf(k, n, p);
/** P(X ≤ x) for X ~ Gamma(shape k, scale θ). */
export const gammaCdf = (x: number, shape: number, scale: number): number => j().gamma.cdf(x, shape, scale);
