// The serving engines tokenflood has default profiles for: data/engines/<name>.yaml, in the engine-profile format
// `tokenflood calibrate` writes (flag names as keys), so a fitted profile can start from one and override it.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ENGINE_NAMES = ['vllm', 'sglang', 'trtllm'] as const;
export type EngineName = (typeof ENGINE_NAMES)[number];

const enginesDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'data', 'engines');

export function enginePresetPath(name: string): string {
  return join(enginesDir, `${name}.yaml`);
}
