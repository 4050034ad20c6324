// Engine options that serve, simulate and capacity share beyond the basics: the fitted constants, the capacity features, and --engine-profile.
import { existsSync } from 'node:fs';
import { extname } from 'node:path';
import { z } from 'zod';
import { UsageError } from '../../errors.js';
import { flagName } from '../../util/parse.js';
import { MAX_CONFIG_BYTES, readTextFile } from '../../util/read-file.js';
import { parseYaml } from '../../util/yaml.js';
import { engineOptionsSchema } from './config.js';
import { featureOptionsShape } from './features.js';
import { parallelOptionsShape } from './parallel.js';
import { schedulingOptionsShape, sglangChunkedPrefillSize } from './scheduling.js';
import { resolveGpu } from './resolve-profile.js';
import { DEFAULT_GPU } from './catalog.js';
import { ENGINE_NAMES, enginePresetPath } from './engines.js';

const e = engineOptionsSchema.shape;

/** Constants `tokenflood calibrate` can fit (and a user can set). */
export const constantsShape = {
  mfu: e.mfu,
  bwEfficiency: e.bwEfficiency.describe("achieved fraction of peak HBM bandwidth in decode; unset = the GPU profile's"),
  stepOverheadMs: e.stepOverheadMs,
  layerOverheadMs: e.layerOverheadMs,
  requestOverheadMs: e.requestOverheadMs,
  apiServerMs: e.apiServerMs,
  moeGemmEfficiency: e.moeGemmEfficiency,
  moeSliceHalfMiB: e.moeSliceHalfMiB,
};

/** Precision details beyond --weight-dtype that the engine prices. */
export const precisionShape = {
  fp8Scaling: e.fp8Scaling,
};

export const tuningShape = {
  engineProfile: z.string().min(1).optional().describe('engine profile YAML written by `tokenflood calibrate` (gpu, model profile, tp, fitted constants); flags given override its values'),
  engine: z.enum(ENGINE_NAMES).optional().describe('serving engine whose documented defaults to start from (data/engines/<name>.yaml: chunked-prefill size and policy, max running requests, CUDA-graph batch limit, KV block size, memory fraction); --engine-profile and flags given override them'),
  ...constantsShape,
  ...precisionShape,
  ...featureOptionsShape,
  ...parallelOptionsShape,
  ...schedulingOptionsShape,
};
export type TuningKey = Exclude<keyof typeof tuningShape, 'engineProfile'>;
export const TUNING_KEYS = Object.keys(tuningShape).filter((k) => k !== 'engineProfile') as TuningKey[];

/** Only the fitted constants of resolved options (capacity models no features). */
export function constantOptions(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.keys(constantsShape).filter((k) => o[k] !== undefined).map((k) => [k, o[k]]));
}

/** Keys an engine profile may hold: the tuning keys plus the deployment it was fitted on. */
// An engine preset (data/engines) also sets the scheduler's sizes; a command whose schema lacks one drops it.
const PROFILE_KEYS = ['gpu', 'modelProfile', 'tp', 'weightDtype', 'kvDtype', 'maxNumSeqs', 'maxNumBatchedTokens', 'gpuMemoryUtilization', 'blockSize', 'prefixCaching', 'tokensPerChunk', ...TUNING_KEYS] as const;

/** The tuning values of resolved options, ready for resolveEngine. */
export function tuningOptions(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of TUNING_KEYS) if (o[k] !== undefined) out[k] = o[k];
  return out;
}

const toCamel = (s: string): string => s.replace(/[-_]([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** Read an engine profile (YAML or JSON, flag names as keys; `calibration` is a report and ignored). */
export function readEngineProfile(path: string, flag = '--engine-profile'): Record<string, unknown> {
  if (!existsSync(path)) throw new UsageError([`${flag} ${path}: no such file`]);
  const r = readTextFile(path, MAX_CONFIG_BYTES);
  if ('problem' in r) throw new UsageError([`${flag} ${path}: ${r.problem}`]);
  let raw: unknown;
  try {
    raw = extname(path) === '.json' ? JSON.parse(r.text) : parseYaml(r.text);
  } catch (err) {
    throw new UsageError([`${flag} ${path}: not valid YAML/JSON: ${(err as Error).message.split('\n')[0]}`]);
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new UsageError([`${flag} ${path}: expected a mapping of option names to values`]);
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [k, v] of Object.entries(raw)) {
    if (k === 'calibration') continue;
    // Keys are flag names (kv-offload-gib); the camelCase key and the old kebab form (kv-offload-gi-b) are read too.
    const key = PROFILE_KEYS.find((p) => p === k || flagName(p) === k || p === toCamel(k));
    if (key === undefined) problems.push(`${flag} ${path}: unknown key "${k}" (valid: ${PROFILE_KEYS.map(flagName).join(', ')})`);
    else out[key] = v;
  }
  if (problems.length) throw new UsageError(problems);
  return out;
}

/**
 * Options layered: the --engine preset's values, under the engine profile's, under the ones given (given values win).
 * A profile may name its engine (`engine: sglang`); --engine given on the command line wins over it.
 */
export function withEngineProfile<T extends Record<string, unknown>>(values: T): T {
  const given = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));
  const profile = typeof values.engineProfile === 'string' ? readEngineProfile(values.engineProfile) : {};
  const merged: Record<string, unknown> = { ...enginePreset(given.engine ?? profile.engine), ...profile, ...given };
  // An engine that sizes its prefill chunk by GPU memory (SGLang): the chunk of this GPU, unless a size was given.
  if (merged.chunkedPrefillByMemory === true && merged.maxNumBatchedTokens === undefined) {
    try {
      merged.maxNumBatchedTokens = sglangChunkedPrefillSize(resolveGpu(String(merged.gpu ?? DEFAULT_GPU)).memBytes);
    } catch {
      // An unknown GPU is reported once, by the engine's own resolution.
    }
  }
  return merged as T;
}

/** The options of an engine preset (data/engines/<name>.yaml) by name; {} for no name or one that is not a preset (the schema reports it). */
export function enginePreset(name: unknown): Record<string, unknown> {
  if (typeof name !== 'string' || !(ENGINE_NAMES as readonly string[]).includes(name)) return {};
  return readEngineProfile(enginePresetPath(name), `--engine ${name}:`);
}
