// Secret-value redaction: one redactor built from a run's secret values, applied to every stored or printed text.
import { CREDENTIAL_NAME, urlSecrets } from './url.js';

/** Shorter values are not searched for in text: redacting "abc" everywhere would mangle harmless text. */
export const MIN_SECRET_CHARS = 8;

/**
 * Header names whose values are harmless and written as given; every other `--header` value is treated as a
 * secret (custom auth headers have no common naming scheme: X-Auth-Key, Portkey-Key, X-Subscription-Key, ...).
 */
export const HARMLESS_HEADERS: readonly string[] = [
  'accept',
  'accept-encoding',
  'accept-language',
  'cache-control',
  'connection',
  'content-type',
  'user-agent',
  'x-request-id',
  'traceparent',
  'tracestate',
];

export const isSecretHeader = (name: string): boolean => !HARMLESS_HEADERS.includes(name.toLowerCase());

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

/** Secret header values redacted (`Bearer ` and other auth schemes kept out of the shown value). */
export function redactHeaders(h: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) out[k] = isSecretHeader(k) ? (redactKey(stripScheme(v)) ?? '') : v;
  return out;
}

/** A copy of a request-body object with the value of every credential-named field (api_key, token, ...) as `***`. */
export function redactFields(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(redactFields);
  if (v && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, CREDENTIAL_NAME.test(k) && x !== null && typeof x !== 'object' ? '***' : redactFields(x)]));
  return v;
}

/** String values of credential-named fields, at any depth. */
function fieldSecrets(v: unknown, out: string[] = []): string[] {
  if (Array.isArray(v)) for (const x of v) fieldSecrets(x, out);
  else if (v && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) {
      if (CREDENTIAL_NAME.test(k) && (typeof x === 'string' || typeof x === 'number')) out.push(String(x));
      else fieldSecrets(x, out);
    }
  return out;
}

const stripScheme = (v: string): string => v.replace(/^(Bearer|Basic|Token|Key)\s+/i, '');

export interface SecretSources {
  apiKey?: string;
  /** Headers the user added (all but the harmless ones are secret). */
  headers?: Record<string, string>;
  baseUrl?: string;
  extraBody?: unknown;
}

/**
 * Every secret value of a run: the API key, secret header values (without an auth scheme, so an echoed
 * `Bearer abc…` keeps its `Bearer`), URL query and body credentials.
 */
export function secretValues(s: SecretSources): string[] {
  const out: string[] = [];
  if (s.apiKey) out.push(s.apiKey);
  for (const [k, v] of Object.entries(s.headers ?? {})) if (isSecretHeader(k)) out.push(stripScheme(v));
  if (s.baseUrl) out.push(...urlSecrets(s.baseUrl));
  if (s.extraBody !== undefined) out.push(...fieldSecrets(s.extraBody));
  return out;
}

export type Redactor = (text: string) => string;

/** A run of this many characters of a secret is an echo of part of it (a server that truncates what it quotes). */
export const PARTIAL_ECHO_CHARS = 12;

/** The forms a value takes when a server quotes it: as is, URL-encoded, JSON-escaped. */
const echoForms = (v: string): string[] => [v, encodeURIComponent(v), JSON.stringify(v).slice(1, -1)];

/**
 * Replace every occurrence of each secret value (of at least MIN_SECRET_CHARS) by its redacted form (longer values
 * first, so a key inside a longer value leaves nothing behind), then every remaining run of PARTIAL_ECHO_CHARS or
 * more characters of a secret by `***`.
 */
export function createRedactor(values: readonly string[]): Redactor {
  const secrets = [...new Set(values.map((v) => v.trim()).filter((v) => v.length >= MIN_SECRET_CHARS))].sort((a, b) => b.length - a.length);
  if (!secrets.length) return (t) => t;
  const whole = [...new Set(secrets.flatMap((s) => echoForms(s).map((f) => [f, redactKey(s) ?? '***'] as const)))].sort((a, b) => b[0].length - a[0].length);
  const grams = new Set<string>();
  for (const s of secrets) for (let i = 0; i + PARTIAL_ECHO_CHARS <= s.length; i++) grams.add(s.slice(i, i + PARTIAL_ECHO_CHARS));
  return (text) => {
    let out = text;
    for (const [form, shown] of whole) if (out.includes(form)) out = out.split(form).join(shown);
    return grams.size ? redactRuns(out, grams) : out;
  };
}

/** `***` in place of each stretch of text covered by windows found in `grams` (all of one length). */
function redactRuns(text: string, grams: ReadonlySet<string>): string {
  const n = PARTIAL_ECHO_CHARS;
  let out = '';
  let copied = 0;
  let runEnd = -1;
  for (let i = 0; i + n <= text.length; i++) {
    if (!grams.has(text.slice(i, i + n))) continue;
    if (i > runEnd) {
      if (runEnd >= 0) out += '***';
      out += text.slice(copied, i);
    }
    runEnd = i + n;
    copied = runEnd;
  }
  if (runEnd >= 0) out += '***';
  return out + text.slice(copied);
}
