// Input-length bands (--length-bands): which band a request's prompt falls in, for the summary's `by_length_band`.

/** One band: [lo, hi) prompt tokens, hi null = open-ended; `label` as the user wrote it (e.g. "4k-16k", "32k+"). */
export interface LengthBand {
  label: string;
  lo: number;
  hi: number | null;
}

/**
 * The practice's token-size groups. Applied to every run; the summary shows `by_length_band` only when the measured
 * requests fall in two or more bands, so a run of one length class gets no extra section.
 */
export const DEFAULT_LENGTH_BANDS = '0-4k,4k-16k,16k-32k,32k+';

/** A token count such as 512, 4k or 1m (k = 1024, m = 1024²); throws an Error naming `spec` when bad. */
export const parseTokenCount = (s: string): number => tokens(s, s);

/** k = 1024 and m = 1024² tokens, as `dataset stats --buckets` counts them. */
function tokens(s: string, spec: string): number {
  const m = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(s.trim());
  if (!m) throw new Error(`bad bound "${s}" in "${spec}": expected a number of tokens such as 512, 4k or 1m`);
  const mult = m[2].toLowerCase() === 'k' ? 1024 : m[2].toLowerCase() === 'm' ? 1024 * 1024 : 1;
  return Math.round(Number(m[1]) * mult);
}

/**
 * Parse `0-4k,4k-16k,16k-32k,32k+` (each band LO-HI or LO+, ascending, no overlap; gaps allowed: a request in a gap is
 * in no band). "none" or "off" gives no bands. Throws an Error naming the bad band.
 */
export function parseLengthBands(spec: string): LengthBand[] {
  const t = spec.trim();
  if (t === 'none' || t === 'off') return [];
  const bands = t.split(',').map((raw) => {
    const s = raw.trim();
    if (!s) throw new Error(`empty band in "${spec}"`);
    if (s.endsWith('+')) return { label: s, lo: tokens(s.slice(0, -1), spec), hi: null };
    const parts = s.split('-');
    if (parts.length !== 2) throw new Error(`bad band "${s}": expected LO-HI such as 4k-16k, or LO+ such as 32k+`);
    const [lo, hi] = [tokens(parts[0], spec), tokens(parts[1], spec)];
    if (hi <= lo) throw new Error(`bad band "${s}": its upper bound must be above its lower bound`);
    return { label: s, lo, hi };
  });
  for (let i = 1; i < bands.length; i++) {
    const prev = bands[i - 1];
    if (prev.hi === null) throw new Error(`band "${prev.label}" is open-ended, so it must be the last`);
    if (bands[i].lo < prev.hi) throw new Error(`bands "${prev.label}" and "${bands[i].label}" overlap or are out of order`);
  }
  return bands;
}

/** The band of a prompt of `n` tokens (lo ≤ n < hi), or undefined when it falls in none. */
export function bandOf(bands: readonly LengthBand[], n: number): LengthBand | undefined {
  for (const b of bands) if (n >= b.lo && (b.hi === null || n < b.hi)) return b;
  return undefined;
}

/** The --length-bands text of a RunConfig (`lengthBands`) or of run.json's config (`length_bands`); undefined when not given. */
export function askedLengthBands(config: unknown): string | undefined {
  const c = config as { lengthBands?: unknown; length_bands?: unknown } | undefined;
  const v = c?.lengthBands ?? c?.length_bands;
  return typeof v === 'string' ? v : undefined;
}

/** The bands a run used: its config's --length-bands, else the default. A bad stored value falls back too. */
export function runLengthBands(config: unknown): LengthBand[] {
  const spec = askedLengthBands(config);
  try {
    return parseLengthBands(typeof spec === 'string' ? spec : DEFAULT_LENGTH_BANDS);
  } catch {
    return parseLengthBands(DEFAULT_LENGTH_BANDS);
  }
}
