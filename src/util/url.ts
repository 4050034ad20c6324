// Base URL handling: join an endpoint path before the query string, and hide credentials carried in a query.

/** Query parameters and body fields whose values are credentials (`api-key`, `key`, `sig`, `access_token`, ...). */
export const CREDENTIAL_NAME = /(^|[-_.])(apikey|key|token|secret|password|passwd|pwd|sig|signature|credential|credentials|auth)$/i;

/**
 * `{base path}{path}{base query}`: the endpoint path goes before the query, so an Azure-style
 * `.../deployments/x?api-version=2024-06-01` posts to `.../deployments/x/chat/completions?api-version=...`.
 * Trailing slashes of the base path are dropped; a fragment is never sent (the config refuses one).
 */
export function joinUrl(base: string, path: string): string {
  const cut = base.search(/[?#]/);
  const head = cut < 0 ? base : base.slice(0, cut);
  const query = cut < 0 ? '' : base.slice(cut).replace(/#.*$/s, '');
  return `${head.replace(/\/+$/, '')}${path}${query === '?' ? '' : query}`;
}

/** Values of credential parameters in a URL's query string (raw and decoded), for the run's redactor. */
export function urlSecrets(url: string): string[] {
  const q = url.indexOf('?');
  if (q < 0) return [];
  const out: string[] = [];
  for (const part of url.slice(q + 1).replace(/#.*$/s, '').split('&')) {
    const eq = part.indexOf('=');
    if (eq < 0 || !CREDENTIAL_NAME.test(safeDecode(part.slice(0, eq)))) continue;
    const raw = part.slice(eq + 1);
    out.push(raw, safeDecode(raw));
  }
  return out.filter((v) => v.length > 0);
}

/** The URL with the value of every credential query parameter replaced by `***` (everything else kept as written). */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const hash = url.indexOf('#', q);
  const query = url.slice(q + 1, hash < 0 ? undefined : hash);
  const parts = query.split('&').map((part) => {
    const eq = part.indexOf('=');
    return eq >= 0 && CREDENTIAL_NAME.test(safeDecode(part.slice(0, eq))) ? `${part.slice(0, eq)}=***` : part;
  });
  return `${url.slice(0, q + 1)}${parts.join('&')}${hash < 0 ? '' : url.slice(hash)}`;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}
