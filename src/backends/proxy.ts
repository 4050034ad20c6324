// HTTP_PROXY / HTTPS_PROXY / NO_PROXY: which proxy, if any, carries the run's requests to the target.
//
// The rules are those of undici's EnvHttpProxyAgent (lowercase names win; https falls back to the http proxy;
// NO_PROXY entries are host or host:port, a leading "." or "*." matches subdomains, "*" disables proxying), plus
// one of our own: a loopback target (localhost, 127.0.0.0/8, ::1) is never proxied, as curl and most clients do.
import { UsageError } from '../errors.js';

export interface ProxyChoice {
  /** The proxy URL, as given (may hold credentials: never write it, see redactProxyUrl). */
  uri: string;
  /** The environment variable it came from, for messages. */
  source: string;
}

type Env = Record<string, string | undefined>;

const PROXY_PROTOCOLS = new Set(['http:', 'https:', 'socks:', 'socks5:']);

/** Whether a host name or address is this machine. */
export function isLoopback(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || h === '::ffff:127.0.0.1';
}

function first(env: Env, ...names: string[]): { value: string; name: string } | null {
  for (const name of names) {
    const value = env[name];
    if (value) return { value, name };
  }
  return null;
}

/** NO_PROXY excludes `host` (lowercase, no brackets) on `port`. */
function excluded(noProxy: string, host: string, port: number): boolean {
  if (noProxy.trim() === '*') return true;
  for (const entry of noProxy.split(/[,\s]/)) {
    if (!entry) continue;
    const m = /^(.+):(\d+)$/.exec(entry);
    const name = (m ? m[1] : entry).replace(/^\*?\./, '').toLowerCase().replace(/^\[|\]$/g, '');
    if (m && Number(m[2]) !== port) continue;
    if (host === name || host.endsWith(`.${name}`)) return true;
  }
  return false;
}

/**
 * The proxy for requests to `targetUrl`, or null for a direct connection. Throws an Error naming the variable
 * when its value is not a proxy URL.
 */
export function proxyFor(targetUrl: string, env: Env = process.env): ProxyChoice | null {
  const u = new URL(targetUrl);
  const host = u.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (isLoopback(host)) return null;
  const http = first(env, 'http_proxy', 'HTTP_PROXY');
  const chosen = u.protocol === 'https:' ? (first(env, 'https_proxy', 'HTTPS_PROXY') ?? http) : http;
  if (!chosen) return null;
  const port = Number(u.port) || (u.protocol === 'https:' ? 443 : 80);
  if (excluded(first(env, 'no_proxy', 'NO_PROXY')?.value ?? '', host, port)) return null;
  let p: URL;
  try {
    p = new URL(chosen.value);
  } catch {
    throw new Error(`${chosen.name}: "${redactProxyUrl(chosen.value)}" is not a URL (expected e.g. http://proxy.example:3128)`);
  }
  if (!PROXY_PROTOCOLS.has(p.protocol)) throw new Error(`${chosen.name}: unsupported proxy protocol ${p.protocol} (use http://, https:// or socks5://)`);
  return { uri: chosen.value, source: chosen.name };
}

/** The proxy URL with any user name and password replaced by ***, safe to write and print. */
export function redactProxyUrl(uri: string): string {
  try {
    const u = new URL(uri);
    if (u.username) u.username = '***';
    if (u.password) u.password = '***';
    return u.href;
  } catch {
    return uri.replace(/\/\/[^@/]*@/, '//***@');
  }
}

/** The proxy for a run's target (null: direct); bad input (exit 2) for a bad proxy URL, or --transport h1 with a proxy. */
export function proxyForRun(baseUrl: string, transport: 'auto' | 'h1' | 'undici', env: Env = process.env): ProxyChoice | null {
  let proxy: ProxyChoice | null;
  try {
    proxy = proxyFor(baseUrl, env);
  } catch (e) {
    throw new UsageError([(e as Error).message]);
  }
  if (proxy && transport === 'h1')
    throw new UsageError([
      `--transport h1: tokenflood's HTTP/1.1 pool cannot go through a proxy, and ${proxy.source} applies to ${new URL(baseUrl).host} (use --transport undici or auto, or add the host to NO_PROXY)`,
    ]);
  return proxy;
}
