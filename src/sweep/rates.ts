// Request rates as an --auto sweep chooses them: rounded to a few significant digits, and the open-loop profile's evenly spaced rates.

/** x rounded to `digits` significant digits (12.345 → 12.3 with 3), so rates make readable point names. */
export function roundSig(x: number, digits = 3): number {
  if (!Number.isFinite(x) || x === 0) return x;
  return Number(x.toPrecision(digits));
}

/**
 * The rates of the open-loop profile between the synchronous rate `lo` and the maximal rate `hi` (GuideLLM's sweep):
 * r_i = lo + i · (hi − lo) / (n + 1) for i = 1..n, each rounded to 3 significant digits (more when rounding would make two
 * equal or touch a bound), in increasing order. Empty when hi ≤ lo: the throughput run found no rate above one stream's.
 */
export function profileRates(lo: number, hi: number, n: number): number[] {
  if (!(hi > lo) || n < 1) return [];
  const out: number[] = [];
  for (let i = 1; i <= n; i++) {
    const exact = lo + (i * (hi - lo)) / (n + 1);
    const prev = out.length ? out[out.length - 1] : lo;
    let r = exact;
    for (let d = 3; d <= 15; d++) {
      r = roundSig(exact, d);
      if (r > prev && r < hi) break;
    }
    if (r > prev && r < hi) out.push(r);
  }
  return out;
}
