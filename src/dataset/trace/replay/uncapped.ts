// Whether a --replay is a trace of another format than tokenflood's own: the config leaves --concurrency unset for
// those (no in-flight cap unless given), so requests leave at their recorded times and sessions overlap as recorded.
import { detectTraceKind } from '../registry.js';

/**
 * A --replay trace in a format other than tokenflood's own (open loop or sessions). A file that cannot be read or told
 * apart answers false: the workload names its problem later.
 */
export function replaysUncappedTrace(c: { replay?: string; replayFormat: string }): boolean {
  if (c.replay === undefined) return false;
  try {
    const kind = c.replayFormat === 'auto' ? detectTraceKind(c.replay).kind : c.replayFormat;
    return kind !== 'tokenflood';
  } catch {
    return false;
  }
}
