// The process's open-file limit (RLIMIT_NOFILE), which bounds how many requests can be in flight: one socket each.
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

/** Descriptors kept for everything but request sockets: results files, telemetry, the dashboard, DNS, the sim server. */
export const FD_RESERVE = 256;

let cached: number | null | undefined;

/**
 * The soft limit on open files of this process, or null when unknown or unlimited. Linux: /proc/self/limits (Node
 * raises its soft limit to the hard one at start, and this reads the raised value); elsewhere `ulimit -n` in a
 * child shell, which inherits this process's limit. Read once.
 */
export function openFileLimit(): number | null {
  if (cached !== undefined) return cached;
  cached = null;
  try {
    const m = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    if (m) return (cached = m[1] === 'unlimited' ? null : Number(m[1]));
  } catch {
    /* not Linux: ask a shell */
  }
  try {
    const r = spawnSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8', timeout: 2000 });
    const v = r.stdout?.trim();
    if (v && /^\d+$/.test(v)) cached = Number(v);
  } catch {
    /* unknown */
  }
  return cached;
}

/** The most requests a live change may keep in flight: the open-file limit less FD_RESERVE (undefined: no limit known). */
export function maxInFlightByFds(limit = openFileLimit()): number | undefined {
  return limit === null ? undefined : Math.max(1, limit - FD_RESERVE);
}
