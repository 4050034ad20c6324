// Checks of the backend-specific options (--backend-config, --batch-size) against the chosen backend, before anything is sent.
import { loadWebSocketConfig } from './ws/config.js';

/** Backends whose requests carry --batch-size inputs. */
export const BATCH_BACKENDS: readonly string[] = ['embeddings', 'embeddings-tei', 'rerank', 'rerank-tei'];

/** The problems of --backend-config and --batch-size for the run's backend, each naming its flag (and file and key). */
export function backendConfigProblems(c: { backend?: string; backendConfig?: string; batchSize: number }): string[] {
  const out: string[] = [];
  if (c.backend === 'websocket') {
    const r = loadWebSocketConfig(c.backendConfig);
    if ('problems' in r) out.push(...r.problems);
  }
  if (c.batchSize !== 1 && !BATCH_BACKENDS.includes(c.backend ?? '')) out.push(`--batch-size: only applies with --backend ${BATCH_BACKENDS.join(', ')}`);
  return out;
}
