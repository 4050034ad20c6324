// Whether a --replay runs as trace sessions (the config leaves --concurrency unset for them: no in-flight cap unless given).
import { detectTraceKind, openTrace } from '../registry.js';

/**
 * A --replay trace in a format other than tokenflood's own whose first request has a session id, or any with
 * --sessions N. A file that cannot be read or told apart answers false: the workload names its problem later.
 */
export function replaysTraceSessions(c: { replay?: string; replayFormat: string; sessions?: number; traceBlockSize?: number }): boolean {
  if (c.replay === undefined) return false;
  try {
    const kind = c.replayFormat === 'auto' ? detectTraceKind(c.replay).kind : c.replayFormat;
    if (kind === 'tokenflood') return false;
    if (c.sessions !== undefined) return true;
    const it = openTrace(c.replay, kind, { blockSize: c.traceBlockSize, skipBadLines: true }).requests[Symbol.iterator]();
    const first = it.next();
    it.return?.();
    return !first.done && first.value.session !== undefined;
  } catch {
    return false;
  }
}
