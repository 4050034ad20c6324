// The process's open-file limit (RLIMIT_NOFILE), which bounds how many requests can be in flight: one socket each.
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

/** Descriptors kept for everything but request sockets: results files, telemetry, the dashboard, DNS, the sim server. */
export const FD_RESERVE = 256;

/**
 * The fewest descriptors a run can live with, before any request socket. Measured on Linux (ls /proc/PID/fd) during
 * a --concurrency 1 run with server telemetry: 28 open without the request's socket (stdio 3, /dev/null 4, an
 * epoll + eventfd per event loop, libuv's pipes, requests.jsonl, server_metrics.jsonl, gpu_metrics.jsonl), one more
 * per scrape connection, about 4 more per --workers thread (its own event loop). Doubled for the files opened at the
 * end (run.json, summary.json, stats.csv, report.html) and DNS: 64. Raised to 96 because the bundled CLI's start-up
 * reads its chunks in parallel (Node's ESM loader): under `ulimit -n 60` module loading itself fails with EMFILE,
 * before any check can run, and 96 leaves that margin. Below this plus one socket a run cannot work at all;
 * FD_RESERVE above is the comfortable margin the planned connections are held to.
 */
export const FD_FLOOR = 96;

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
  /** Connections the prewarm would open before the clock (prewarmCount), all at once: each one a socket too. */
  prewarm?: number;
}

export interface FdCheck {
  /** The run cannot fit: exit 2 before anything is sent. */
  problem?: string;
  /** The run fits but may not, or its prewarm was made smaller: said on stderr, the run goes on. */
  notice?: string;
  /** The connections to prewarm: plan.prewarm, cut to what the budget leaves. */
  prewarm: number;
}

/** The fix, named: raise the soft limit for this shell, up to the hard one (or the system's, as root). */
const FIX = 'raise it before the run with `ulimit -n 65536` (up to the hard limit, `ulimit -Hn`; for a service LimitNOFILE= or /etc/security/limits.conf)';

/**
 * Check the plan against the open-file limit before any request is sent: each request in flight holds one socket,
 * and FD_RESERVE descriptors stay for files, telemetry and DNS, so budget = max(1, limit − FD_RESERVE).
 * A limit below FD_FLOOR + 1: `problem` (exit 2), not even one request fits beside the run's own files.
 * Known peak in flight above the budget: `problem` (exit 2). Prewarm above the budget (an open loop's auto prewarm is
 * up to 1024 connections opened at once): cut to the budget, with a `notice`. Open loop without a cap: by Little's
 * law in flight = rate × latency, so when rate × --timeout could pass the budget, `notice` says at which latency it
 * would, and the cap that prevents it.
 */
export function checkFdLimit(plan: PlannedLoad, limit = openFileLimit()): FdCheck {
  const planned = plan.prewarm ?? 0;
  if (limit === null) return { prewarm: planned };
  if (limit < FD_FLOOR + 1) {
    return {
      problem: `open files: this process may open ${limit} files (ulimit -n), but a run needs about ${FD_FLOOR} for itself (results files, telemetry, its event loops) and one socket per request in flight: ${FIX}`,
      prewarm: 0,
    };
  }
  const budget = Math.max(1, limit - FD_RESERVE);
  if (plan.inFlight !== undefined && plan.inFlight > budget) {
    return {
      problem:
        `${plan.flag ?? '--concurrency'}: ${plan.inFlight} requests in flight need ${plan.inFlight} sockets, but this process may open ${limit} files (ulimit -n) ` +
        `and keeps ${FD_RESERVE} for results files and telemetry, so at most ${budget} requests fit: ${FIX}, lower ${plan.flag ?? '--concurrency'}, or split the load over processes (--shard)`,
      prewarm: 0,
    };
  }
  const notices: string[] = [];
  const prewarm = Math.min(planned, budget);
  if (prewarm < planned) {
    notices.push(
      `open files: prewarming ${prewarm} connections, not the ${planned} planned, since this process may open ${limit} files (ulimit -n) and keeps ${FD_RESERVE} ` +
        `for results files and telemetry (more open on demand if the load needs them): ${FIX}`,
    );
  }
  if (plan.inFlight === undefined && plan.rate !== undefined && plan.timeoutS !== undefined && plan.rate * plan.timeoutS > budget) {
    const latencyS = budget / plan.rate;
    notices.push(
      `open files: at --rate ${plan.rate} more than ${budget} requests would be in flight if requests took over ${+latencyS.toPrecision(3)} s ` +
        `(this process may open ${limit} files, ulimit -n, less ${FD_RESERVE} kept); a slow server would then fail requests with EMFILE: ${FIX}, or cap in-flight requests with --concurrency ${budget}`,
    );
  }
  return notices.length ? { notice: notices.join('\ntokenflood: '), prewarm } : { prewarm };
}
