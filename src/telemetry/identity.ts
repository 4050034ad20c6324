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
  /** Engine arguments from an info gauge's labels in /metrics (vLLM `vllm:cache_config_info`). */
  engine_args?: Record<string, string>;
}

/** Labels kept from vLLM's `vllm:cache_config_info` gauge (cache and memory settings; no paths). */
const CACHE_CONFIG_KEYS = ['block_size', 'cache_dtype', 'gpu_memory_utilization', 'num_gpu_blocks', 'num_cpu_blocks', 'enable_prefix_caching', 'prefix_caching_hash_algo', 'sliding_window', 'calculate_kv_scales', 'kv_cache_memory_bytes', 'cpu_offload_gb', 'mamba_cache_dtype'];

/**
 * The kept labels of the first `vllm:cache_config_info{…} 1` line of a /metrics text (label values unescaped for
 * \\, \" and \n, then made inert). Empty when the gauge is absent.
 */
export function cacheConfigArgs(text: string): Record<string, string> {
  const m = /^vllm:cache_config_info\{(.*)\}\s+\S+\s*$/m.exec(text);
  if (!m) return {};
  const out: Record<string, string> = {};
  for (const l of m[1].matchAll(/([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
    if (CACHE_CONFIG_KEYS.includes(l[1])) out[l[1]] = inertText(l[2].replace(/\\(.)/g, (_, c: string) => (c === 'n' ? ' ' : c)));
  return out;
}

/** A /metrics text for the info gauges (capped as a scrape is), or undefined. */
async function text(url: string, o: { client: GetClient; headers: Record<string, string> }): Promise<string | undefined> {
  try {
    const r = await getCapped(url, { ...o, deadlineMs: IDENTITY_DEADLINE_MS, maxBytes: 4 * 1024 * 1024 });
    return r.status >= 200 && r.status < 300 ? r.text : undefined;
  } catch {
    return undefined;
  }
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
  // SGLang renamed /get_server_info to /server_info (the old path stays as an alias in some releases): newer first.
  const sglangInfo = async () => (await json(`${origin}/server_info`, o)) ?? (await json(`${origin}/get_server_info`, o));
  const [version, info, metrics] = await Promise.all([
    engine === 'vllm' ? json(`${origin}/version`, o) : undefined,
    engine === 'sglang' ? sglangInfo() : undefined,
    engine === 'vllm' ? text(`${origin}/metrics`, o) : undefined,
  ]);
  const out: ServerIdentity = {};
  const args = metrics ? cacheConfigArgs(metrics) : {};
  if (Object.keys(args).length) out.engine_args = Object.fromEntries(Object.entries(args).map(([k, v]) => [k, o.redact(v)]));
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
