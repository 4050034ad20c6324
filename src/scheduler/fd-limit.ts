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

/** What the run plans to keep in flight, one socket each: a known number, or an open-loop rate with no cap. */
export interface PlannedLoad {
  /** Most requests in flight at once (closed loop, its stages' peak, or --concurrency as the cap of an open loop). */
  inFlight?: number;
  /** The flag that sets it, for the message (--concurrency, --stages). */
  flag?: string;
  /** Open loop without a cap: the peak request rate (req/s) and the longest a request may take (--timeout, s). */
  rate?: number;
  timeoutS?: number;
}

/** The fix, named: raise the soft limit for this shell, up to the hard one (or the system's, as root). */
const FIX = 'raise it before the run with `ulimit -n 65536` (up to the hard limit, `ulimit -Hn`; for a service LimitNOFILE= or /etc/security/limits.conf)';

/**
 * Check the plan against the open-file limit before any request is sent: each request in flight holds one socket,
 * and FD_RESERVE descriptors stay for files, telemetry and DNS. Known peak in flight above limit − FD_RESERVE:
 * `problem` (exit 2). Open loop without a cap: by Little's law in flight = rate × latency, so when rate × --timeout
 * could pass the budget, `notice` says at which latency it would, and the cap that prevents it.
 */
export function checkFdLimit(plan: PlannedLoad, limit = openFileLimit()): { problem?: string; notice?: string } {
  if (limit === null) return {};
  const budget = Math.max(1, limit - FD_RESERVE);
  if (plan.inFlight !== undefined) {
    if (plan.inFlight <= budget) return {};
    return {
      problem:
        `${plan.flag ?? '--concurrency'}: ${plan.inFlight} requests in flight need ${plan.inFlight} sockets, but this process may open ${limit} files (ulimit -n) ` +
        `and keeps ${FD_RESERVE} for results files and telemetry, so at most ${budget} requests fit: ${FIX}, lower ${plan.flag ?? '--concurrency'}, or split the load over processes (--shard)`,
    };
  }
  if (plan.rate !== undefined && plan.timeoutS !== undefined && plan.rate * plan.timeoutS > budget) {
    const latencyS = budget / plan.rate;
    return {
      notice:
        `open files: at --rate ${plan.rate} more than ${budget} requests would be in flight if requests took over ${+latencyS.toPrecision(3)} s ` +
        `(this process may open ${limit} files, ulimit -n, less ${FD_RESERVE} kept); a slow server would then fail requests with EMFILE: ${FIX}, or cap in-flight requests with --concurrency ${budget}`,
    };
  }
  return {};
}
