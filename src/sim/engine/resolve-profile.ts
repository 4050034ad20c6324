// Resolve a --model/--gpu spec: a built-in catalog id, or a profile YAML/JSON or Hugging Face config.json on disk.
import { readFileSync, existsSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { parseYaml } from '../../util/yaml.js';
import type { z } from 'zod';
import { UsageError } from '../../errors.js';
import { GPUS, MODELS } from './catalog.js';
import { fromHfConfig, gpuProfileSchema, modelProfileSchema, type GpuProfile, type ModelProfile } from './profile.js';

function readStructured(path: string): unknown {
  try {
    const text = readFileSync(path, 'utf8');
    return extname(path) === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (e) {
    throw new UsageError([`${path}: cannot read the profile: ${(e as Error).message.slice(0, 200)}`]);
  }
}

function issues(where: string, e: z.ZodError): string[] {
  return e.issues.map((i) => `${where}: ${i.path.join('.') || '(root)'}: ${i.message}`);
}

/** A model id from the catalog, or a path to a profile YAML/JSON or a Hugging Face config.json. */
export function resolveModel(spec: string): ModelProfile {
  const hit = MODELS[spec];
  if (hit) return hit;
  if (!existsSync(spec))
    throw new UsageError([`unknown model profile "${spec}": use one of ${Object.keys(MODELS).join(', ')} or a path to a profile file / config.json`]);
  const raw = readStructured(spec) as Record<string, unknown>;
  const text = raw && typeof raw === 'object' ? raw.text_config : undefined;
  if (raw && typeof raw === 'object' && ('num_hidden_layers' in raw || (text !== null && typeof text === 'object' && 'num_hidden_layers' in text))) {
    const id = basename(spec) === 'config.json' ? basename(spec.slice(0, -'/config.json'.length)) || 'custom' : basename(spec, extname(spec));
    return fromHfConfig(id, raw);
  }
  const r = modelProfileSchema.safeParse(raw);
  if (!r.success) throw new UsageError(issues(spec, r.error));
  return r.data;
}

/** A GPU id from the catalog, or a path to a GPU profile YAML/JSON (memory may be given as memGiB). */
export function resolveGpu(spec: string): GpuProfile {
  const hit = GPUS[spec];
  if (hit) return hit;
  if (!existsSync(spec)) throw new UsageError([`unknown GPU "${spec}": use one of ${Object.keys(GPUS).join(', ')} or a path to a GPU profile file`]);
  const raw = readStructured(spec) as Record<string, unknown>;
  const withMem = typeof raw?.memGiB === 'number' ? { ...raw, memBytes: (raw.memGiB as number) * 1024 ** 3 } : raw;
  const r = gpuProfileSchema.safeParse(withMem);
  if (!r.success) throw new UsageError(issues(spec, r.error));
  return r.data;
}
