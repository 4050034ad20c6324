// Bench helpers: percentiles of a sample, sleeping, whole-machine CPU from /proc/stat.
import { readFileSync } from 'node:fs';

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** p50/p99/max/mean of a sample (nearest-rank on the sorted values), ms in, ms out. */
export function summarize(xs) {
  if (xs.length === 0) return { n: 0, p50: null, p99: null, max: null, mean: null };
  const a = Float64Array.from(xs).sort();
  const q = (p) => a[Math.min(a.length - 1, Math.floor(p * a.length))];
  let sum = 0;
  for (const x of a) sum += x;
  return { n: a.length, p50: q(0.5), p99: q(0.99), max: a[a.length - 1], mean: sum / a.length };
}

/** Busy and total jiffies of the whole machine (Linux); null elsewhere. */
export function machineTicks() {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const idle = f[3] + (f[4] ?? 0);
    const total = f.reduce((a, b) => a + b, 0);
    return { busy: total - idle, total };
  } catch {
    return null;
  }
}

/** Machine CPU busy % (all cores = 100) between two machineTicks() readings. */
export function machineBusyPct(a, b) {
  if (!a || !b || b.total === a.total) return null;
  return ((b.busy - a.busy) / (b.total - a.total)) * 100;
}

/**
 * Measure one window of `windowMs`: sets `win.start`/`win.end` (read by the event handlers to keep only events
 * inside it) and returns the process CPU, the machine's busy % and the client health sampled over it.
 */
export async function measureWindow(now, windowMs, win, startHealthMonitor) {
  win.start = now();
  const health = startHealthMonitor(now);
  const cpu0 = process.cpuUsage();
  const m0 = machineTicks();
  await sleep(windowMs);
  const cpu = process.cpuUsage(cpu0);
  const machineBusy = machineBusyPct(m0, machineTicks());
  win.end = now();
  return { cpu, machineBusy, h: health.stop() };
}
