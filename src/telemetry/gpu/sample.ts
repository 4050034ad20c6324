// GPU samples, the GpuSampler interface every GPU source implements, and the pure summary of a run's samples.
import { saneNumber, type ServerNumberKind } from '../../util/server-number.js';

/** One GPU at one moment. Fields a source does not report (or reports as N/A) are absent. JSON names as written to disk. */
export interface GpuSample {
  /** GPU index as the source numbers it ("0", "1", ...). */
  gpu: string;
  uuid?: string;
  model_name?: string;
  /** Percent of the last sample period a kernel was running (DCGM_FI_DEV_GPU_UTIL, nvidia-smi utilization.gpu). */
  util_pct?: number;
  /** Fraction 0..1 of cycles an SM had a warp resident (DCGM_FI_PROF_SM_ACTIVE; not in nvidia-smi). */
  sm_active?: number;
  fb_used_mib?: number;
  fb_free_mib?: number;
  power_w?: number;
  temp_c?: number;
  sm_clock_mhz?: number;
  mem_clock_mhz?: number;
}

/** The range each GPU reading must be in (src/util/server-number.ts); a reading outside it is dropped. */
const GPU_KIND: Record<Num, ServerNumberKind> = {
  util_pct: 'percent', sm_active: 'ratio', fb_used_mib: 'mib', fb_free_mib: 'mib', power_w: 'watts', temp_c: 'celsius', sm_clock_mhz: 'mhz', mem_clock_mhz: 'mhz',
};

/** `s` without its readings out of range (utilization 1e308 or −5, a negative memory); `rejected` lists them as `gpu N field=value`. */
export function saneGpuSample(s: GpuSample, rejected: string[]): GpuSample {
  const out: GpuSample = { ...s };
  for (const k of Object.keys(GPU_KIND) as Num[]) {
    const v = out[k];
    if (v !== undefined && !saneNumber(GPU_KIND[k], v)) {
      rejected.push(`gpu ${s.gpu} ${k}=${v}`);
      delete out[k];
    }
  }
  return out;
}

export type GpuSampleListener = (samples: GpuSample[], tMs: number) => void;

export interface GpuSampler {
  /** Begin sampling; resolves once the source answered (or was started), rejects with a UsageError naming the flag when it cannot. */
  start(onSample: GpuSampleListener): Promise<void>;
  /** Stop sampling and release the source (child process, timers); idempotent. */
  stop(): Promise<void>;
  /** What was dropped or failed, for run.json (failed_scrapes, dropped_lines). */
  stats?(): Record<string, number>;
}

export interface GpuSummaryEntry {
  gpu: string;
  model_name?: string;
  samples: number;
  util_pct_mean?: number;
  util_pct_max?: number;
  sm_active_mean?: number;
  fb_used_mib_max?: number;
  power_w_mean?: number;
  power_w_max?: number;
  temp_c_max?: number;
}

export interface GpuSummary {
  /** Over every GPU and sample: mean of util_pct, max of util_pct, max fb_used_mib on any one GPU, mean power_w per GPU. */
  util_pct_mean?: number;
  util_pct_max?: number;
  fb_used_mib_max?: number;
  power_w_mean?: number;
  gpus: GpuSummaryEntry[];
}

type Num = keyof { [K in keyof GpuSample as GpuSample[K] extends number | undefined ? K : never]: true };

/** Distinct GPUs kept per run: a source inventing a new index every line would otherwise grow without end. */
export const MAX_GPUS = 256;

export const mean = (xs: readonly number[]): number | undefined => {
  if (!xs.length) return undefined;
  let t = 0;
  for (const x of xs) t += x;
  return t / xs.length;
};
/** A loop, not Math.max(...xs): a spread of 100,000s of values overflows the stack. */
export const max = (xs: readonly number[]): number | undefined => {
  if (!xs.length) return undefined;
  let m = -Infinity;
  for (const x of xs) if (x > m) m = x;
  return m;
};

/** Count, sum and max of one field, fed one value at a time. */
export class Running {
  n = 0;
  sum = 0;
  top = -Infinity;
  add(v: unknown): void {
    if (typeof v !== 'number' || !Number.isFinite(v)) return;
    this.n++;
    this.sum += v;
    if (v > this.top) this.top = v;
  }
  get mean(): number | undefined {
    return this.n ? this.sum / this.n : undefined;
  }
  get max(): number | undefined {
    return this.n ? this.top : undefined;
  }
}

const FIELDS = ['util_pct', 'sm_active', 'fb_used_mib', 'power_w', 'temp_c'] as const satisfies readonly Num[];
type Stats = Record<(typeof FIELDS)[number], Running>;
const stats = (): Stats => Object.fromEntries(FIELDS.map((f) => [f, new Running()])) as Stats;

/** The GPU summary built one sample set at a time (gpu_metrics.jsonl is streamed): per GPU (at most MAX_GPUS) and over all. */
export class GpuSummaryBuilder {
  private byGpu = new Map<string, { samples: number; model?: string; s: Stats }>();
  private all = stats();
  /** Readings of GPUs past MAX_GPUS, not summarized. */
  dropped = 0;
  add(set: readonly GpuSample[]): void {
    for (const g of set) {
      let e = this.byGpu.get(g.gpu);
      if (!e) {
        if (this.byGpu.size >= MAX_GPUS) {
          this.dropped++;
          continue;
        }
        this.byGpu.set(g.gpu, (e = { samples: 0, s: stats() }));
      }
      e.samples++;
      e.model ??= g.model_name || undefined;
      for (const f of FIELDS) {
        e.s[f].add(g[f]);
        this.all[f].add(g[f]);
      }
    }
  }
  summary(): GpuSummary {
    const gpus = [...this.byGpu.entries()].map(([gpu, e]) => drop({
      gpu,
      model_name: e.model,
      samples: e.samples,
      util_pct_mean: e.s.util_pct.mean,
      util_pct_max: e.s.util_pct.max,
      sm_active_mean: e.s.sm_active.mean,
      fb_used_mib_max: e.s.fb_used_mib.max,
      power_w_mean: e.s.power_w.mean,
      power_w_max: e.s.power_w.max,
      temp_c_max: e.s.temp_c.max,
    }));
    return drop({
      util_pct_mean: this.all.util_pct.mean,
      util_pct_max: this.all.util_pct.max,
      fb_used_mib_max: this.all.fb_used_mib.max,
      power_w_mean: this.all.power_w.mean,
      gpus,
    });
  }
}

/** Summarize sample sets (one array of GPUs per sampling moment): per GPU and over all GPUs. Absent fields stay absent. */
export function summarizeGpuSamples(sets: Iterable<readonly GpuSample[]>): GpuSummary {
  const b = new GpuSummaryBuilder();
  for (const set of sets) b.add(set);
  return b.summary();
}

/** The object without its undefined fields (so JSON and equality checks see only what was measured). */
export function drop<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
