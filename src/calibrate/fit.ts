// Bounded Nelder–Mead minimisation: the search behind `tokenflood calibrate` (the objective may be async: a re-simulation).

export interface MinimizeOptions {
  /** Lower and upper bound of each coordinate; points outside are clamped. */
  lower: readonly number[];
  upper: readonly number[];
  maxEvaluations?: number;
  /** Stop when the simplex's best and worst values differ by less than this. */
  tolerance?: number;
  /** Initial simplex step per coordinate, as a fraction of its range. */
  step?: number;
}

export interface MinimizeResult {
  x: number[];
  value: number;
  evaluations: number;
}

/** Minimise f from x0 with the Nelder–Mead simplex (reflection 1, expansion 2, contraction 0.5, shrink 0.5). */
export async function minimize(f: (x: number[]) => number | Promise<number>, x0: readonly number[], o: MinimizeOptions): Promise<MinimizeResult> {
  const n = x0.length;
  const maxEval = o.maxEvaluations ?? 200 * n;
  const tol = o.tolerance ?? 1e-7;
  const clamp = (x: number[]): number[] => x.map((v, i) => Math.min(o.upper[i], Math.max(o.lower[i], v)));
  let evaluations = 0;
  const evaluate = async (x: number[]): Promise<{ x: number[]; v: number }> => {
    const c = clamp(x);
    evaluations++;
    const v = await f(c);
    return { x: c, v: Number.isFinite(v) ? v : Number.MAX_VALUE };
  };
  const simplex = [await evaluate([...x0])];
  for (let i = 0; i < n; i++) {
    const x = [...x0];
    const d = (o.upper[i] - o.lower[i]) * (o.step ?? 0.1);
    x[i] = x[i] + d > o.upper[i] ? x[i] - d : x[i] + d;
    simplex.push(await evaluate(x));
  }
  const mix = (a: number[], b: number[], t: number): number[] => a.map((v, i) => v + t * (b[i] - v));
  while (evaluations < maxEval) {
    simplex.sort((a, b) => a.v - b.v);
    if (simplex[n].v - simplex[0].v < tol) break;
    const centroid = Array.from({ length: n }, (_, i) => simplex.slice(0, n).reduce((s, p) => s + p.x[i], 0) / n);
    const worst = simplex[n];
    const r = await evaluate(mix(centroid, worst.x, -1));
    if (r.v < simplex[0].v) {
      const e = await evaluate(mix(centroid, worst.x, -2));
      simplex[n] = e.v < r.v ? e : r;
    } else if (r.v < simplex[n - 1].v) simplex[n] = r;
    else {
      const c = await evaluate(r.v < worst.v ? mix(centroid, r.x, 0.5) : mix(centroid, worst.x, 0.5));
      if (c.v < Math.min(r.v, worst.v)) simplex[n] = c;
      else for (let i = 1; i <= n; i++) simplex[i] = await evaluate(mix(simplex[0].x, simplex[i].x, 0.5));
    }
  }
  simplex.sort((a, b) => a.v - b.v);
  return { x: simplex[0].x, value: simplex[0].v, evaluations };
}
