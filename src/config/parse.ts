// Small value parsers shared by config and flags: durations, header lines, key redaction, did-you-mean.

/** Parse "60s", "2m", "500ms", "1h" or a bare number of seconds into seconds. Returns NaN when invalid. */
export function parseDurationS(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string') return NaN;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(v);
  if (!m) return NaN;
  const n = Number(m[1]);
  const unit = m[2] ?? 's';
  return unit === 'ms' ? n / 1000 : unit === 's' ? n : unit === 'm' ? n * 60 : n * 3600;
}

/** Parse "Name: value" header lines. Invalid lines are returned in `bad`. */
export function parseHeaders(lines: readonly string[]): { headers: Record<string, string>; bad: string[] } {
  const headers: Record<string, string> = {};
  const bad: string[] = [];
  for (const l of lines) {
    const i = l.indexOf(':');
    const k = i > 0 ? l.slice(0, i).trim() : '';
    if (!k || /[^!#$%&'*+.^_`|~0-9A-Za-z-]/.test(k)) bad.push(l);
    else headers[k] = l.slice(i + 1).trim();
  }
  return { headers, bad };
}

/**
 * Redact a secret to `sk-...abcd`: a well-known non-secret prefix (`sk-`) and the last 4 characters, and only for
 * keys long enough (≥ 20 characters) that those reveal nothing useful; `***` otherwise.
 */
export function redactKey(key: string | undefined): string | undefined {
  if (!key) return key;
  if (key.length < 20) return '***';
  const prefix = key.startsWith('sk-') ? 'sk-' : '';
  return `${prefix}...${key.slice(-4)}`;
}

/** Header names whose values are secrets and must never be written anywhere. */
export const SECRET_HEADERS = /^(authorization|proxy-authorization|cookie|x-api-key|api-key|x-goog-api-key|ocp-apim-subscription-key|x-auth-token|x-access-token)$|(^|-)(token|secret|api-?key)$/i;

export function redactHeaders(h: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) out[k] = SECRET_HEADERS.test(k) ? (redactKey(v.replace(/^Bearer\s+/i, '')) ?? '') : v;
  return out;
}

function editDistance(a: string, b: string): number {
  const dp = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) dp[0][j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++)
      dp[i][j] = Math.min(dp[i - 1][j] + 1, dp[i][j - 1] + 1, dp[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
  return dp[a.length][b.length];
}

/** The closest known name, if it is close enough to be a likely typo. */
export function didYouMean(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const k of known) {
    const d = editDistance(name.toLowerCase(), k.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = k;
    }
  }
  return best !== undefined && bestD <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

export const toKebab = (s: string): string => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
export const toCamel = (s: string): string => s.replace(/[-_]([a-z0-9])/g, (_, c: string) => c.toUpperCase());
