// Seeded pseudo-random numbers (mulberry32) so schedules, lengths and prompts are repeatable.

export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer uniform in [min, max] inclusive. */
  int(min: number, max: number): number;
  /** Standard normal N(0,1) via Box-Muller. */
  normal(): number;
  /** Exponential with the given mean. */
  exponential(mean: number): number;
  /** Gamma(shape k, scale theta) via Marsaglia-Tsang. */
  gamma(shape: number, scale: number): number;
  /** A new independent generator derived from this one. */
  fork(): Rng;
  /** A generator in exactly this one's current state: it repeats the draws this one will make next. */
  clone(): Rng;
}

export function createRng(seed: number): Rng {
  return fromState(seed >>> 0 || 0x9e3779b9);
}

function fromState(state: number): Rng {
  let a = state;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const normal = (): number => {
    let u = 0;
    while (u === 0) u = next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next());
  };
  const gamma = (shape: number, scale: number): number => {
    if (shape < 1) return gamma(shape + 1, scale) * Math.pow(next() || 1e-12, 1 / shape);
    const d = shape - 1 / 3;
    const c = 1 / Math.sqrt(9 * d);
    for (;;) {
      let x: number;
      let v: number;
      do {
        x = normal();
        v = 1 + c * x;
      } while (v <= 0);
      v = v * v * v;
      const u = next();
      if (u < 1 - 0.0331 * x ** 4 || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v * scale;
    }
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    normal,
    exponential: (mean) => -Math.log(1 - next()) * mean,
    gamma,
    fork: () => createRng(Math.floor(next() * 4294967296)),
    clone: () => fromState(a),
  };
}
