// The target server: the user's URL, or the embedded simulated server; plus the preflight that finds the model.
import { request, type Dispatcher } from 'undici';
import { TokenfloodError, UsageError } from './errors.js';
import { startEmbeddedServer, type EmbeddedSimOptions } from './config/embedded-sim.js';

export interface Target {
  baseUrl: string;
  embedded: boolean;
  close(): Promise<void>;
}

/** The user's server, or the embedded simulated server counting tokens with the run's tokenizer (so usage matches). */
export async function openTarget(baseUrl: string | undefined, tokenizer?: string, sim: Partial<EmbeddedSimOptions> = {}): Promise<Target> {
  if (baseUrl) return { baseUrl: baseUrl.replace(/\/+$/, ''), embedded: false, close: async () => {} };
  const server = await startEmbeddedServer(sim, { tokenizer });
  return { baseUrl: server.baseUrl, embedded: true, close: () => server.close() };
}

export interface Preflight {
  model: string;
  models: string[];
  /** x-tokenflood-time-scale of a simulated server, when the target is one. */
  simTimeScale: number | undefined;
}

/**
 * GET {base}/models before anything is sent: proves the server is reachable and names the default model.
 * Unreachable servers and rejected credentials are errors (exit 2); a missing /models is fine when --model is given.
 */
export async function preflight(baseUrl: string, headers: Record<string, string>, model: string | undefined, dispatcher: Dispatcher): Promise<Preflight> {
  let res: Dispatcher.ResponseData;
  try {
    res = await request(`${baseUrl}/models`, { method: 'GET', headers, dispatcher, headersTimeout: 15_000, bodyTimeout: 15_000 });
  } catch (e) {
    const err = e as { code?: string; message?: string };
    throw new TokenfloodError('E_UNREACHABLE', `cannot reach the server at ${baseUrl}: ${err.code ?? ''} ${err.message ?? String(e)}`.replace(/\s+/g, ' ').trim());
  }
  const scaleHeader = res.headers['x-tokenflood-time-scale'];
  const simTimeScale = scaleHeader !== undefined ? Number(scaleHeader) : undefined;
  const text = await res.body.text();
  if (res.statusCode === 401 || res.statusCode === 403)
    throw new UsageError([`--api-key: the server at ${baseUrl} rejected the credentials (HTTP ${res.statusCode})`]);
  let models: string[] = [];
  if (res.statusCode >= 200 && res.statusCode < 300) {
    try {
      const data = (JSON.parse(text) as { data?: { id?: unknown }[] }).data ?? [];
      models = data.map((m) => m.id).filter((x): x is string => typeof x === 'string');
    } catch {
      models = [];
    }
  }
  const chosen = model ?? models[0];
  if (!chosen)
    throw new UsageError([
      `--model: not given, and GET ${baseUrl}/models ${res.statusCode >= 300 ? `failed with HTTP ${res.statusCode}` : 'listed no model'}; pass --model NAME`,
    ]);
  return { model: chosen, models, simTimeScale };
}
