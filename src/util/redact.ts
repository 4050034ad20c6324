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

/**
 * Replace every occurrence of each secret value (of at least MIN_SECRET_CHARS) by its redacted form. Longer values go
 * first, so a key inside a longer header value cannot leave part of the longer one behind.
 */
export function createRedactor(values: readonly string[]): Redactor {
  const secrets = [...new Set(values.map((v) => v.trim()).filter((v) => v.length >= MIN_SECRET_CHARS))].sort((a, b) => b.length - a.length);
  if (!secrets.length) return (t) => t;
  return (text) => {
    let out = text;
    for (const s of secrets) if (out.includes(s)) out = out.split(s).join(redactKey(s) ?? '***');
    return out;
  };
}
