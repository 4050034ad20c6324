// GPU samples from `nvidia-smi --query-gpu ... --format=csv,noheader,nounits -lms N`, run as a child process for the run's length.
import { spawn, type ChildProcess } from 'node:child_process';
import { stripControls } from '../../util/terminal-text.js';
import { UsageError } from '../../errors.js';
import type { GpuSample, GpuSampler, GpuSampleListener } from './sample.js';

/** Query fields in the order the CSV columns come back. */
export const NVIDIA_SMI_FIELDS = ['index', 'uuid', 'name', 'utilization.gpu', 'memory.used', 'memory.total', 'power.draw', 'temperature.gpu', 'clocks.sm', 'clocks.mem'] as const;

export function nvidiaSmiArgs(intervalMs: number): string[] {
  return [`--query-gpu=${NVIDIA_SMI_FIELDS.join(',')}`, '--format=csv,noheader,nounits', '-lms', String(Math.max(1, Math.round(intervalMs)))];
}

/** "[N/A]", "[Not Supported]", "" and other non-numbers read as absent. */
const num = (s: string | undefined): number | undefined => {
  if (s === undefined) return undefined;
  const t = s.trim();
  const v = t === '' ? NaN : Number(t);
  return Number.isFinite(v) ? v : undefined;
};

/** One CSV line → one GPU, or undefined for anything that is not a well-formed line (a header, a warning, garbage). */
export function parseNvidiaSmiLine(line: string): GpuSample | undefined {
  const cols = line.split(',').map((c) => c.trim());
  if (cols.length !== NVIDIA_SMI_FIELDS.length || !/^\d+$/.test(cols[0])) return undefined;
  const used = num(cols[4]);
  const total = num(cols[5]);
  const s: GpuSample = {
    gpu: cols[0],
    uuid: cols[1] || undefined,
    model_name: cols[2] || undefined,
    util_pct: num(cols[3]),
    fb_used_mib: used,
    fb_free_mib: used !== undefined && total !== undefined ? total - used : undefined,
    power_w: num(cols[6]),
    temp_c: num(cols[7]),
    sm_clock_mhz: num(cols[8]),
    mem_clock_mhz: num(cols[9]),
  };
  return Object.fromEntries(Object.entries(s).filter(([, v]) => v !== undefined)) as unknown as GpuSample;
}

export interface NvidiaSmiSamplerOptions {
  intervalMs: number;
  /** The program to run (default `nvidia-smi`, looked up on PATH). */
  command?: string;
  onProblem?: (message: string) => void;
  now?: () => number;
  /** Longest stdout line kept (default NVIDIA_SMI_LIMITS.maxLineChars); longer ones are dropped and counted. */
  maxLineChars?: number;
  /** Time without a GPU line after which one warning says so (default max(5 s, 3 intervals)). */
  silentMs?: number;
}

/** Bounds on what nvidia-smi (or a wrapper) may make tokenflood hold: a line is ~150 characters, a host has ≤ 16 GPUs. */
export const NVIDIA_SMI_LIMITS = { maxLineChars: 4096, maxGpusPerSet: 64, stopWaitMs: 2000 } as const;

/**
 * nvidia-smi prints one line per GPU each period. Lines are grouped into one sample set per period: a set ends when a
 * GPU index comes round again, when it holds maxGpusPerSet GPUs, or when no line came for half a period. The child
 * runs in its own process group, killed whole at stop; stop waits for its exit (bounded), never for its stdout to
 * close (a grandchild may hold it open). Lines past maxLineChars are dropped and counted, stderr is made inert.
 */
export function createNvidiaSmiSampler(o: NvidiaSmiSamplerOptions): GpuSampler {
  const command = o.command ?? 'nvidia-smi';
  const now = o.now ?? (() => Date.now());
  const maxLine = o.maxLineChars ?? NVIDIA_SMI_LIMITS.maxLineChars;
  const silentMs = o.silentMs ?? Math.max(5000, 3 * o.intervalMs);
  let child: ChildProcess | undefined;
  let exited: Promise<void> | undefined;
  let stopping = false;
  let sets = 0;
  let tooLong = 0;
  let silentWarned = false;
  let silentTimer: NodeJS.Timeout | undefined;
  const warnSilent = (): void => {
    if (silentWarned || sets > 0) return;
    silentWarned = true;
    o.onProblem?.(`nvidia-smi printed no GPU line${tooLong ? ` (${tooLong} overlong lines dropped)` : ''}; no GPU samples`);
  };
  const killGroup = (sig: NodeJS.Signals): void => {
    const pid = child?.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, sig);
    } catch {
      try {
        child!.kill(sig);
      } catch {
        // already gone
      }
    }
  };
  const onExit = (): void => killGroup('SIGKILL');
  return {
    start(onSample: GpuSampleListener) {
      return new Promise<void>((resolve, reject) => {
        // detached: its own process group, so a wrapper's children are killed with it.
        const c = spawn(command, nvidiaSmiArgs(o.intervalMs), { stdio: ['ignore', 'pipe', 'pipe'], detached: process.platform !== 'win32' });
        child = c;
        exited = new Promise((r) => c.once('exit', () => r()).once('error', () => r()));
        let group: GpuSample[] = [];
        const ids = new Set<string>();
        let groupT = 0;
        let flushTimer: NodeJS.Timeout | undefined;
        const flush = (): void => {
          if (flushTimer) clearTimeout(flushTimer);
          flushTimer = undefined;
          if (group.length && !stopping) {
            sets++;
            onSample(group, groupT);
          }
          group = [];
          ids.clear();
        };
        let stderr = '';
        c.stderr!.on('data', (d: Buffer) => {
          if (stderr.length < 4096) stderr += d.toString('utf8');
        });
        const dropLine = (): void => {
          tooLong++;
          if (tooLong === 1) o.onProblem?.(`nvidia-smi printed a line longer than ${maxLine} characters: dropped (such lines are counted in run.json gpu_metrics.dropped_lines)`);
        };
        const onLine = (line: string): void => {
          const s = parseNvidiaSmiLine(line);
          if (!s) return;
          if (ids.has(s.gpu) || group.length >= NVIDIA_SMI_LIMITS.maxGpusPerSet) flush();
          if (!group.length) groupT = now();
          group.push(s);
          ids.add(s.gpu);
          if (flushTimer) clearTimeout(flushTimer);
          flushTimer = setTimeout(flush, Math.max(5, o.intervalMs / 2));
        };
        // Lines split here, not by readline: bytes without a newline must not grow a buffer without end.
        let part = '';
        let skipping = false;
        c.stdout!.setEncoding('utf8');
        c.stdout!.on('data', (text: string) => {
          let at = 0;
          for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', at)) {
            const piece = text.slice(at, nl);
            at = nl + 1;
            if (skipping || part.length + piece.length > maxLine) {
              if (!skipping) dropLine();
              skipping = false;
              part = '';
              continue;
            }
            const line = part + piece;
            part = '';
            onLine(line.endsWith('\r') ? line.slice(0, -1) : line);
          }
          const rest = text.slice(at);
          if (skipping) return;
          if (part.length + rest.length > maxLine) {
            dropLine();
            part = '';
            skipping = true;
          } else part += rest;
        });
        silentTimer = setTimeout(warnSilent, silentMs);
        silentTimer.unref();
        c.once('spawn', () => {
          // Its own process group does not get the terminal's Ctrl-C: it is killed when tokenflood exits, however it exits.
          process.once('exit', onExit);
          resolve();
        });
        c.once('error', (e: NodeJS.ErrnoException) => {
          reject(new UsageError([e.code === 'ENOENT'
            ? `--gpu-metrics nvidia-smi: "${command}" was not found on PATH (it comes with the NVIDIA driver; on a host without one use --gpu-metrics dcgm:URL)`
            : `--gpu-metrics nvidia-smi: cannot run "${command}": ${e.message}`]));
        });
        c.once('exit', (code, signal) => {
          flush();
          const why = stripControls(stderr.trim().split('\n')[0] ?? '').slice(0, 200);
          if (!stopping && c.pid !== undefined) o.onProblem?.(`nvidia-smi exited (${signal ?? `code ${code}`})${why ? `: ${why}` : ''}; GPU sampling stopped`);
        });
      });
    },
    async stop() {
      stopping = true;
      if (silentTimer) clearTimeout(silentTimer);
      const c = child;
      if (c && c.pid !== undefined) {
        if (c.exitCode === null && c.signalCode === null) killGroup('SIGTERM');
        // Whatever the child left behind (a grandchild holding stdout) goes with the group.
        const killer = setTimeout(() => killGroup('SIGKILL'), NVIDIA_SMI_LIMITS.stopWaitMs);
        let bound: NodeJS.Timeout | undefined;
        await Promise.race([exited, new Promise<void>((r) => (bound = setTimeout(r, NVIDIA_SMI_LIMITS.stopWaitMs + 500)))]);
        clearTimeout(killer);
        clearTimeout(bound);
        killGroup('SIGKILL');
        process.removeListener('exit', onExit);
        c.stdout?.destroy();
        c.stderr?.destroy();
      }
      if (c?.pid !== undefined) warnSilent();
    },
    stats: () => ({ dropped_lines: tooLong }),
  };
}
