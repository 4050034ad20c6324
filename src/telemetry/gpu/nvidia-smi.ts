// GPU samples from `nvidia-smi --query-gpu ... --format=csv,noheader,nounits -lms N`, run as a child process for the run's length.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
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
}

/**
 * nvidia-smi prints one line per GPU each period. Lines are grouped into one sample set per period: a set ends when a
 * GPU index comes round again, or when no line came for half a period.
 */
export function createNvidiaSmiSampler(o: NvidiaSmiSamplerOptions): GpuSampler {
  const command = o.command ?? 'nvidia-smi';
  const now = o.now ?? (() => Date.now());
  let child: ChildProcess | undefined;
  let exited: Promise<void> | undefined;
  let stopping = false;
  return {
    start(onSample: GpuSampleListener) {
      return new Promise<void>((resolve, reject) => {
        const c = spawn(command, nvidiaSmiArgs(o.intervalMs), { stdio: ['ignore', 'pipe', 'pipe'] });
        child = c;
        exited = new Promise((r) => c.once('close', () => r()));
        let group: GpuSample[] = [];
        let groupT = 0;
        let flushTimer: NodeJS.Timeout | undefined;
        const flush = (): void => {
          if (flushTimer) clearTimeout(flushTimer);
          flushTimer = undefined;
          if (group.length && !stopping) onSample(group, groupT);
          group = [];
        };
        let stderr = '';
        c.stderr!.on('data', (d: Buffer) => {
          if (stderr.length < 4096) stderr += d.toString('utf8');
        });
        createInterface({ input: c.stdout! }).on('line', (line) => {
          const s = parseNvidiaSmiLine(line);
          if (!s) return;
          if (group.some((g) => g.gpu === s.gpu)) flush();
          if (!group.length) groupT = now();
          group.push(s);
          if (flushTimer) clearTimeout(flushTimer);
          flushTimer = setTimeout(flush, Math.max(5, o.intervalMs / 2));
        });
        c.once('spawn', () => resolve());
        c.once('error', (e: NodeJS.ErrnoException) => {
          reject(new UsageError([e.code === 'ENOENT'
            ? `--gpu-metrics nvidia-smi: "${command}" was not found on PATH (it comes with the NVIDIA driver; on a host without one use --gpu-metrics dcgm:URL)`
            : `--gpu-metrics nvidia-smi: cannot run "${command}": ${e.message}`]));
        });
        c.once('close', (code, signal) => {
          flush();
          if (!stopping) o.onProblem?.(`nvidia-smi exited (${signal ?? `code ${code}`})${stderr.trim() ? `: ${stderr.trim().split('\n')[0].slice(0, 200)}` : ''}; GPU sampling stopped`);
        });
      });
    },
    async stop() {
      stopping = true;
      const c = child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return void (await exited);
      c.kill('SIGTERM');
      const killer = setTimeout(() => c.kill('SIGKILL'), 2000);
      await exited;
      clearTimeout(killer);
    },
  };
}
