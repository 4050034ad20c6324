// run.json `start_sync` of a sharded or --start-at run: the start time asked for, when the clock did start, and the clock-skew check.
import { getClient } from '../backends/http-get.js';
import { measureClockOffset } from './clock-skew.js';
import { startAtMs } from './plan.js';

/** Whether the run records `start_sync` (and the driver its clock origin): with --shard or --start-at. */
export const wantsStartSync = (c: { shard?: string; startAt?: string }): boolean => c.shard !== undefined || c.startAt !== undefined;

/**
 * Before the senders start: the clock-skew check against the target (its origin, no credentials sent) and a warning
 * when --start-at has already passed. `baseUrl` is undefined on the virtual driver (no server clock to compare).
 */
export async function beginStartSync(c: { startAt?: string }, baseUrl: string | undefined, notice: (line: string) => void, signal?: AbortSignal): Promise<Record<string, unknown>> {
  const at = startAtMs(c);
  let clockSkew: unknown = null;
  if (baseUrl) {
    const get = getClient({ transport: 'h1', proxy: null, connections: 1 });
    try {
      clockSkew = await measureClockOffset(new URL(baseUrl).origin + '/', get, { signal });
    } finally {
      await get.close().catch(() => {});
    }
  }
  if (at !== undefined && at < Date.now())
    notice(`WARNING: --start-at ${new Date(at).toISOString()} has passed (${((Date.now() - at) / 1000).toFixed(1)} s ago): starting at once, not together with the other shards`);
  return { start_at: at !== undefined ? new Date(at).toISOString() : null, clock_skew: clockSkew };
}
