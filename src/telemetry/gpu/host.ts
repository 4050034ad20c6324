// Host metrics of the client machine (CPU %, memory, network bytes) and, with --server-pid, of a local server process.
import { cpus, freemem, totalmem } from 'node:os';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { UsageError } from '../../errors.js';

/** One sampling moment; JSON names as written to disk. Network figures are bytes since the previous sample. */
export interface HostSample {
  /** Busy share of all cores since the previous sample, 0..100. */
  cpu_pct: number;
  /** The user (user + nice) and system (sys + irq) shares of all cores since the previous sample, 0..100. */
  cpu_user_pct?: number;
  cpu_sys_pct?: number;
  mem_used_mib: number;
  mem_total_mib: number;
  /** Linux only (/proc/net/dev), all interfaces but loopback. */
  net_rx_bytes?: number;
  net_tx_bytes?: number;
  /** With --server-pid: that process's CPU (100 = one core) and resident memory. */
  server_cpu_pct?: number;
  server_rss_mib?: number;
  /** With --server-pid on Linux: that process's user and system CPU (100 = one core), from /proc/PID/stat. */
  server_cpu_user_pct?: number;
  server_cpu_sys_pct?: number;
}

interface PidStatus {
  cpu: number;
  memory: number;
}
type PidUsage = ((pid: number) => Promise<PidStatus>) & { clear(): void };
// pidusage (no bundled types): reads /proc/<pid>/stat on Linux, ps or wmic elsewhere; loaded only with --server-pid,
// since every measured run samples the host.
let pidusageModule: PidUsage | undefined;
const pidusage = (): PidUsage => (pidusageModule ??= createRequire(import.meta.url)('pidusage') as PidUsage);

const MiB = 1024 * 1024;

/** Σ idle, user (user + nice), system (sys + irq) and total CPU ms over all cores (os.cpus()). */
function cpuTimes(): { idle: number; user: number; sys: number; total: number } {
  let idle = 0;
  let user = 0;
  let sys = 0;
  let total = 0;
  for (const c of cpus()) {
    idle += c.times.idle;
    user += c.times.user + c.times.nice;
    sys += c.times.sys + c.times.irq;
    total += c.times.user + c.times.nice + c.times.sys + c.times.idle + c.times.irq;
  }
  return { idle, user, sys, total };
}

/** user % and system % = 100 · Δuser / Δtotal, 100 · Δsys / Δtotal between two readings. */
export function cpuSplit(a: { user: number; sys: number; total: number }, b: { user: number; sys: number; total: number }): { user: number; sys: number } {
  const dt = b.total - a.total;
  const pct = (x: number) => (dt > 0 ? Math.min(100, Math.max(0, (100 * x) / dt)) : 0);
  return { user: pct(b.user - a.user), sys: pct(b.sys - a.sys) };
}

/** Linux clock ticks per second of /proc/PID/stat (USER_HZ, 100 on every mainstream kernel). */
const USER_HZ = 100;

/** utime and stime of /proc/PID/stat text, in seconds (fields 14 and 15, counted after the `(comm)` field). */
export function parseProcStat(text: string): { user: number; sys: number } | undefined {
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const u = Number(f[11]);
  const s = Number(f[12]);
  return Number.isFinite(u) && Number.isFinite(s) ? { user: u / USER_HZ, sys: s / USER_HZ } : undefined;
}

function readProcStat(pid: number): { user: number; sys: number } | undefined {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

/** cpu % = 100 · (1 − Δidle / Δtotal) between two readings. */
export function cpuPct(a: { idle: number; total: number }, b: { idle: number; total: number }): number {
  const dt = b.total - a.total;
  return dt > 0 ? Math.min(100, Math.max(0, 100 * (1 - (b.idle - a.idle) / dt))) : 0;
}

/** Receive and transmit bytes summed over the interfaces of /proc/net/dev text, loopback excluded. */
export function parseProcNetDev(text: string): { rx: number; tx: number } {
  let rx = 0;
  let tx = 0;
  for (const line of text.split('\n').slice(2)) {
    const [name, rest] = line.split(':');
    if (rest === undefined || name.trim() === 'lo') continue;
    const f = rest.trim().split(/\s+/).map(Number);
    if (f.length >= 9 && Number.isFinite(f[0]) && Number.isFinite(f[8])) {
      rx += f[0];
      tx += f[8];
    }
  }
  return { rx, tx };
}

function readNet(): { rx: number; tx: number } | undefined {
  try {
    return parseProcNetDev(readFileSync('/proc/net/dev', 'utf8'));
  } catch {
    return undefined;
  }
}

export interface HostSamplerOptions {
  intervalMs: number;
  serverPid?: number;
  onProblem?: (message: string) => void;
  now?: () => number;
}

export interface HostSampler {
  /** Rejects with a UsageError naming --server-pid when that process does not exist. */
  start(onSample: (s: HostSample, tMs: number) => void): Promise<void>;
  stop(): Promise<void>;
}

export function createHostSampler(o: HostSamplerOptions): HostSampler {
  const now = o.now ?? (() => Date.now());
  let timer: NodeJS.Timeout | undefined;
  let busy: Promise<unknown> | undefined;
  let serverGone = false;
  return {
    async start(onSample) {
      if (o.serverPid !== undefined) {
        try {
          await pidusage()(o.serverPid);
        } catch {
          throw new UsageError([`--server-pid ${o.serverPid}: no such process on this machine`]);
        }
      }
      let cpu = cpuTimes();
      let net = readNet();
      let proc = o.serverPid !== undefined ? readProcStat(o.serverPid) : undefined;
      let last = now();
      const tick = async (): Promise<void> => {
        const t = now();
        const c = cpuTimes();
        const n = readNet();
        const split = cpuSplit(cpu, c);
        const s: HostSample = { cpu_pct: cpuPct(cpu, c), cpu_user_pct: split.user, cpu_sys_pct: split.sys, mem_used_mib: (totalmem() - freemem()) / MiB, mem_total_mib: totalmem() / MiB };
        if (o.serverPid !== undefined) {
          const p = readProcStat(o.serverPid);
          const dtS = (t - last) / 1000;
          if (p && proc && dtS > 0) {
            s.server_cpu_user_pct = (100 * Math.max(0, p.user - proc.user)) / dtS;
            s.server_cpu_sys_pct = (100 * Math.max(0, p.sys - proc.sys)) / dtS;
          }
          proc = p;
        }
        last = t;
        if (n && net) {
          s.net_rx_bytes = Math.max(0, n.rx - net.rx);
          s.net_tx_bytes = Math.max(0, n.tx - net.tx);
        }
        [cpu, net] = [c, n];
        if (o.serverPid !== undefined && !serverGone) {
          try {
            const p = await pidusage()(o.serverPid);
            s.server_cpu_pct = p.cpu;
            s.server_rss_mib = p.memory / MiB;
          } catch {
            serverGone = true;
            o.onProblem?.(`--server-pid ${o.serverPid}: the process ended; server host metrics stopped`);
          }
        }
        onSample(s, t);
      };
      timer = setInterval(() => {
        if (!busy) busy = tick().finally(() => (busy = undefined));
      }, o.intervalMs);
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await busy;
      if (o.serverPid !== undefined) pidusage().clear();
    },
  };
}
