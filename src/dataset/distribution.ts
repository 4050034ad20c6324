// Length distributions (`fixed:N`, `uniform:A,B`, `normal:M,SD`, `lognormal:…`, `exponential:M`, `empirical:FILE`): parse and sample.
import type { Rng } from '../util/rng.js';
import { minOf } from '../util/min-max.js';

/** A token-length distribution. Samples are rounded to integers and clamped to [min, max]. */
export type LengthDist = (
  | { kind: 'fixed'; value: number }
  | { kind: 'uniform'; lo: number; hi: number }
  | { kind: 'normal'; mean: number; sd: number }
  | { kind: 'lognormal'; mu: number; sigma: number }
  | { kind: 'exponential'; mean: number }
  | { kind: 'gamma'; shape: number; scale: number }
  | { kind: 'empirical'; file: string; values: number[]; cumulative: number[] }
) & { min: number; max: number; spec: string };

export const DIST_KINDS = ['fixed', 'uniform', 'normal', 'lognormal', 'exponential', 'gamma', 'empirical'] as const;

/** Histogram or list behind `empirical:FILE`, loaded by the caller (see empirical.ts). */
export type EmpiricalLoader = (file: string) => { values: number[]; weights: number[] };

interface Args {
  positional: string[];
  named: Record<string, string>;
}

function splitArgs(s: string): Args {
  const out: Args = { positional: [], named: {} };
  for (const part of s.split(',').map((p) => p.trim()).filter((p) => p !== '')) {
    const eq = part.indexOf('=');
    if (eq > 0) out.named[part.slice(0, eq).trim().toLowerCase()] = part.slice(eq + 1).trim();
    else out.positional.push(part);
  }
  return out;
}

/**
 * Parse a length spec. Throws Error with a one-line reason (callers prefix the flag name).
 * Lognormal takes the mean and standard deviation of the lengths (`lognormal:mean=1000,sd=500`, or
 * positionally `lognormal:1000,500`) or the parameters of the underlying normal (`lognormal:mu=6.5,sigma=0.5`).
 * Any kind takes optional `min=`/`max=` clamps, e.g. `normal:1000,300,min=16,max=4096`.
 */
export function parseLengthDist(spec: string | number, loadEmpirical?: EmpiricalLoader): LengthDist {
  const text = String(spec).trim();
  if (/^\d+$/.test(text)) return withClamp({ kind: 'fixed', value: positive(Number(text), text) }, {}, text);
  const colon = text.indexOf(':');
  if (colon < 0) throw new Error(`"${text}" is neither a number nor KIND:ARGS (kinds: ${DIST_KINDS.join(', ')})`);
  const kind = text.slice(0, colon).trim().toLowerCase();
  const rest = text.slice(colon + 1);
  if (kind === 'empirical') {
    const [file, ...more] = rest.split(',');
    if (!file.trim()) throw new Error(`empirical needs a file: empirical:FILE`);
    const a = splitArgs(more.join(','));
    if (a.positional.length) throw new Error(`empirical takes only min=/max= after the file, got "${a.positional.join(',')}"`);
    const { values, weights } = loadEmpirical ? loadEmpirical(file.trim()) : { values: [1], weights: [1] };
    const cumulative: number[] = [];
    let acc = 0;
    for (const w of weights) cumulative.push((acc += w));
    return withClamp({ kind: 'empirical', file: file.trim(), values, cumulative }, a.named, text);
  }
  const a = splitArgs(rest);
  const num = (v: string | undefined, what: string): number => {
    const n = Number(v);
    if (v === undefined || v === '' || !Number.isFinite(n)) throw new Error(`${kind} needs a number for ${what} in "${text}"`);
    return n;
  };
  const pos = (i: number, name: string): number => num(a.named[name] ?? a.positional[i], name);
  const arity = (n: number, form: string) => {
    if (a.positional.length > n) throw new Error(`too many values in "${text}": expected ${kind}:${form}`);
  };
  switch (kind) {
    case 'fixed':
      arity(1, 'N');
      return withClamp({ kind, value: positive(pos(0, 'n'), text) }, a.named, text);
    case 'uniform': {
      arity(2, 'MIN,MAX');
      const lo = pos(0, 'min');
      const hi = pos(1, 'max');
      if (lo > hi || lo < 1) throw new Error(`uniform needs 1 <= MIN <= MAX in "${text}"`);
      // min/max are the bounds themselves here, so no separate clamp keys.
      return { kind, lo, hi, min: lo, max: hi, spec: text };
    }
    case 'normal': {
      arity(2, 'MEAN,SD');
      const sd = pos(1, 'sd');
      if (sd < 0) throw new Error(`normal needs SD >= 0 in "${text}"`);
      return withClamp({ kind, mean: positive(pos(0, 'mean'), text), sd }, a.named, text);
    }
    case 'lognormal': {
      arity(2, 'MEAN,SD');
      if (a.named.mu !== undefined || a.named.sigma !== undefined) {
        const sigma = num(a.named.sigma, 'sigma');
        if (sigma < 0) throw new Error(`lognormal needs sigma >= 0 in "${text}"`);
        return withClamp({ kind, mu: num(a.named.mu, 'mu'), sigma }, a.named, text);
      }
      const mean = positive(pos(0, 'mean'), text);
      const sd = pos(1, 'sd');
      if (sd < 0) throw new Error(`lognormal needs SD >= 0 in "${text}"`);
      // Moments of a lognormal: mean = exp(mu + sigma²/2), var = (exp(sigma²) - 1) mean².
      const sigma2 = Math.log(1 + (sd * sd) / (mean * mean));
      return withClamp({ kind, mu: Math.log(mean) - sigma2 / 2, sigma: Math.sqrt(sigma2) }, a.named, text);
    }
    case 'exponential':
      arity(1, 'MEAN');
      return withClamp({ kind, mean: positive(pos(0, 'mean'), text) }, a.named, text);
    case 'gamma': {
      // gamma:shape=K,scale=S, or by its moments gamma:mean=M,sd=S (shape = M²/S², scale = S²/M).
      arity(2, 'MEAN,SD');
      if (a.named.shape !== undefined || a.named.scale !== undefined)
        return withClamp({ kind, shape: positive(num(a.named.shape, 'shape'), text), scale: positive(num(a.named.scale, 'scale'), text) }, a.named, text);
      const mean = positive(pos(0, 'mean'), text);
      const sd = positive(pos(1, 'sd'), text);
      return withClamp({ kind, shape: (mean * mean) / (sd * sd), scale: (sd * sd) / mean }, a.named, text);
    }
    default:
      throw new Error(`unknown distribution "${kind}" in "${text}" (kinds: ${DIST_KINDS.join(', ')})`);
  }
}

function positive(n: number, text: string): number {
  if (!(n > 0)) throw new Error(`expected a positive value in "${text}"`);
  return n;
}

const CLAMP_KEYS = new Set(['min', 'max', 'mean', 'sd', 'mu', 'sigma', 'n', 'shape', 'scale']);

function withClamp<T extends object>(d: T, named: Record<string, string>, spec: string): T & { min: number; max: number; spec: string } {
  for (const k of Object.keys(named)) if (!CLAMP_KEYS.has(k)) throw new Error(`unknown key "${k}" in "${spec}" (use min=, max=)`);
  const min = named.min !== undefined ? Number(named.min) : 1;
  const max = named.max !== undefined ? Number(named.max) : Number.POSITIVE_INFINITY;
  if (!Number.isFinite(min) || min < 1 || Number.isNaN(max) || max < min) throw new Error(`expected 1 <= min <= max in "${spec}"`);
  return { ...d, min: Math.round(min), max: Number.isFinite(max) ? Math.round(max) : max, spec };
}

/** One integer sample from the distribution, clamped to [min, max]. */
export function sampleLength(d: LengthDist, rng: Rng): number {
  let x: number;
  switch (d.kind) {
    case 'fixed':
      x = d.value;
      break;
    case 'uniform':
      x = rng.int(Math.round(d.lo), Math.round(d.hi));
      break;
    case 'normal':
      x = d.mean + d.sd * rng.normal();
      break;
    case 'lognormal':
      x = Math.exp(d.mu + d.sigma * rng.normal());
      break;
    case 'exponential':
      x = rng.exponential(d.mean);
      break;
    case 'gamma':
      x = rng.gamma(d.shape, d.scale);
      break;
    case 'empirical': {
      const total = d.cumulative[d.cumulative.length - 1];
      const u = rng.next() * total;
      let lo = 0;
      let hi = d.cumulative.length - 1;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (d.cumulative[mid] > u) hi = mid;
        else lo = mid + 1;
      }
      x = d.values[lo];
      break;
    }
  }
  return Math.min(d.max, Math.max(d.min, Math.round(x)));
}

/** Expected value before clamping, for describe() and docs; undefined for empirical lists. */
export function distMean(d: LengthDist): number {
  switch (d.kind) {
    case 'fixed':
      return d.value;
    case 'uniform':
      return (d.lo + d.hi) / 2;
    case 'normal':
      return d.mean;
    case 'lognormal':
      return Math.exp(d.mu + (d.sigma * d.sigma) / 2);
    case 'exponential':
      return d.mean;
    case 'gamma':
      return d.shape * d.scale;
    case 'empirical': {
      let s = 0;
      let prev = 0;
      d.cumulative.forEach((c, i) => {
        s += d.values[i] * (c - prev);
        prev = c;
      });
      return s / (prev || 1);
    }
  }
}

/** The smallest length the distribution can produce (after clamping). */
export function distLowest(d: LengthDist): number {
  const clamp = (x: number) => Math.min(d.max, Math.max(d.min, Math.round(x)));
  if (d.kind === 'fixed') return clamp(d.value);
  if (d.kind === 'uniform') return clamp(d.lo);
  if (d.kind === 'empirical') return clamp(minOf(d.values));
  return d.min;
}

/** The largest length the distribution can produce (after clamping): Infinity for an unbounded kind without max=. */
export function distHighest(d: LengthDist): number {
  const clamp = (x: number) => Math.min(d.max, Math.max(d.min, Math.round(x)));
  if (d.kind === 'fixed') return clamp(d.value);
  if (d.kind === 'uniform') return clamp(d.hi);
  if (d.kind === 'empirical') return clamp(Math.max(...d.values));
  return d.max;
}
