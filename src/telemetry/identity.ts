// What a server says about itself (vLLM /version, SGLang /get_server_info, max_model_len), capped and made inert for run.json.
import type { GetClient } from '../backends/http-get.js';
import { stripControls } from '../util/terminal-text.js';
import { getCapped } from './fetch-capped.js';

/** Longest string kept from a server's self-description; longer ones are cut. */
const MAX_TEXT = 200;
/** Fields kept from /get_server_info (the rest is configuration noise, some of it paths and tokens). */
const SERVER_INFO_KEYS = ['model_path', 'served_model_name', 'tp_size', 'dp_size', 'context_length', 'max_running_requests', 'max_total_num_tokens', 'chunked_prefill_size', 'mem_fraction_static', 'kv_cache_dtype', 'version'];
/** An identity probe that has not answered in this long is given up (it runs beside the first scrape, before any request). */
export const IDENTITY_DEADLINE_MS = 1000;

/** Untrusted text as stored: controls stripped, at most MAX_TEXT characters. */
export const inertText = (s: string): string => stripControls(s).slice(0, MAX_TEXT);

function inertValue(v: unknown): string | number | boolean | null {
  if (typeof v === 'number' || typeof v === 'boolean') return Number.isFinite(v as number) || typeof v === 'boolean' ? v : null;
  if (typeof v === 'string') return inertText(v);
  return null;
}

export interface ServerIdentity {
  version?: string | number | boolean | null;
  max_model_len?: number | null;
  server_info?: Record<string, string | number | boolean | null>;
}

async function json(url: string, o: { client: GetClient; headers: Record<string, string> }): Promise<unknown> {
  try {
    const r = await getCapped(url, { ...o, deadlineMs: IDENTITY_DEADLINE_MS, maxBytes: 256 * 1024 });
    return r.status >= 200 && r.status < 300 ? (JSON.parse(r.text) as unknown) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Ask `origin` what it is, by the engine its /metrics named: vLLM's /version, SGLang's /get_server_info (other
 * engines are not asked). Every probe is optional and has its own deadline. `redact` removes the run's secrets.
 */
export async function probeIdentity(origin: string, engine: string | null, o: { client: GetClient; headers: Record<string, string>; redact: (s: string) => string }): Promise<ServerIdentity> {
  const [version, info] = await Promise.all([engine === 'vllm' ? json(`${origin}/version`, o) : undefined, engine === 'sglang' ? json(`${origin}/get_server_info`, o) : undefined]);
  const out: ServerIdentity = {};
  if (version && typeof version === 'object' && 'version' in version) {
    const v = inertValue((version as { version: unknown }).version);
    out.version = typeof v === 'string' ? o.redact(v) : v;
  }
  if (info && typeof info === 'object' && !Array.isArray(info)) {
    const kept: Record<string, string | number | boolean | null> = {};
    for (const k of SERVER_INFO_KEYS)
      if (k in info) {
        const v = inertValue((info as Record<string, unknown>)[k]);
        kept[k] = typeof v === 'string' ? o.redact(v) : v;
      }
    if (Object.keys(kept).length) out.server_info = kept;
  }
  return out;
}
