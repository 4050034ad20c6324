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

/** RFC 7230 token: the characters a header name may hold. */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** What an HTTP/1.1 header value may hold (RFC 7230 field-content: tab, visible ASCII, obs-text); CR, LF, NUL never. */
const BAD_VALUE_CHAR = /[^\t\x20-\x7e\x80-\xff]/;

/**
 * Parse "Name: value" header lines. Each invalid line gives one problem in `bad`, naming the header but never
 * quoting its value (it is usually a credential).
 */
export function parseHeaders(lines: readonly string[]): { headers: Record<string, string>; bad: string[] } {
  const headers: Record<string, string> = {};
  const bad: string[] = [];
  for (const l of lines) {
    const i = l.indexOf(':');
    const k = i > 0 ? l.slice(0, i).trim() : '';
    const v = i > 0 ? l.slice(i + 1).trim() : '';
    const shown = JSON.stringify(k.slice(0, 60));
    // A line without ":" is quoted only when it is short and looks like a name: a longer one may be a pasted key.
    if (!k) bad.push(`expected "Name: value", got ${i < 0 && l.length <= 32 && HEADER_NAME.test(l) ? JSON.stringify(l) : 'a line without a header name before ":"'}`);
    else if (!HEADER_NAME.test(k)) bad.push(`header name ${shown} is not a valid HTTP token (letters, digits and !#$%&'*+.^_\`|~- only)`);
    else if (badValueChar(v)) bad.push(`the value of header ${shown} contains ${badValueChar(v)}, which HTTP does not allow`);
    else headers[k] = v;
  }
  return { headers, bad };
}

/** Why an API key cannot be sent in an Authorization header (CR, LF, NUL, other controls), without quoting it; null if it can. */
export function apiKeyProblem(key: string): string | null {
  const what = badValueChar(key);
  return what ? `the key contains ${what}, which an HTTP header does not allow` : null;
}

/** The first character HTTP forbids in a header value, described ("CR (U+000D)"); null when there is none. */
function badValueChar(v: string): string | null {
  const at = v.search(BAD_VALUE_CHAR);
  if (at < 0) return null;
  const c = v.charCodeAt(at);
  const what = c === 13 ? 'CR' : c === 10 ? 'LF' : c === 0 ? 'NUL' : c < 0x20 || c === 0x7f ? 'a control character' : 'a character outside Latin-1';
  return `${what} (U+${c.toString(16).toUpperCase().padStart(4, '0')})`;
}

export { redactKey, redactHeaders } from './redact.js';

/**
 * Header names that look like credentials, for scrubbing "Name: value" lines out of metadata a second time (the
 * config writer already treats every header but a few harmless ones as secret: src/util/redact.ts).
 */
export const SECRET_HEADERS = /^(authorization|proxy-authorization|cookie|x-api-key|api-key|x-goog-api-key|ocp-apim-subscription-key|x-auth-token|x-access-token)$|(^|-)(token|secret|api-?key|key|auth|signature|password)$/i;

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
/** Units spelled as one word in flag names: kvOffloadGiB is --kv-offload-gib (not --kv-offload-gi-b), pcieGBps is --pcie-gbps. */
const UNIT_WORDS = /GiB|GBps|MiB|MBps/g;

/** Flag name (without dashes) of a camelCase key, as docs/commands/*.md spell it. */
export const flagName = (key: string): string => toKebab(key.replace(UNIT_WORDS, (u) => u[0] + u.slice(1).toLowerCase()));
export const toCamel = (s: string): string => s.replace(/[-_]([a-z0-9])/g, (_, c: string) => c.toUpperCase());
