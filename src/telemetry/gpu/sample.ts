// GPU samples, the GpuSampler interface every GPU source implements, and the pure summary of a run's samples.

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

export type GpuSampleListener = (samples: GpuSample[], tMs: number) => void;

export interface GpuSampler {
  /** Begin sampling; resolves once the source answered (or was started), rejects with a UsageError naming the flag when it cannot. */
  start(onSample: GpuSampleListener): Promise<void>;
  /** Stop sampling and release the source (child process, timers); idempotent. */
  stop(): Promise<void>;
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

export const mean = (xs: number[]): number | undefined => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : undefined);
export const max = (xs: number[]): number | undefined => (xs.length ? Math.max(...xs) : undefined);
const values = (ss: readonly GpuSample[], k: Num): number[] => ss.map((s) => s[k]).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));

/** Summarize sample sets (one array of GPUs per sampling moment): per GPU and over all GPUs. Absent fields stay absent. */
export function summarizeGpuSamples(sets: readonly (readonly GpuSample[])[]): GpuSummary {
  const byGpu = new Map<string, GpuSample[]>();
  for (const set of sets) for (const s of set) byGpu.set(s.gpu, [...(byGpu.get(s.gpu) ?? []), s]);
  const all = [...byGpu.values()].flat();
  const gpus = [...byGpu.entries()].map(([gpu, ss]) => drop({
    gpu,
    model_name: ss.find((s) => s.model_name)?.model_name,
    samples: ss.length,
    util_pct_mean: mean(values(ss, 'util_pct')),
    util_pct_max: max(values(ss, 'util_pct')),
    sm_active_mean: mean(values(ss, 'sm_active')),
    fb_used_mib_max: max(values(ss, 'fb_used_mib')),
    power_w_mean: mean(values(ss, 'power_w')),
    power_w_max: max(values(ss, 'power_w')),
    temp_c_max: max(values(ss, 'temp_c')),
  }));
  return drop({
    util_pct_mean: mean(values(all, 'util_pct')),
    util_pct_max: max(values(all, 'util_pct')),
    fb_used_mib_max: max(values(all, 'fb_used_mib')),
    power_w_mean: mean(values(all, 'power_w')),
    gpus,
  });
}

/** The object without its undefined fields (so JSON and equality checks see only what was measured). */
export function drop<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
