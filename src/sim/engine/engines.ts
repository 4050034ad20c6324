// The serving engines tokenflood has default profiles for: data/engines/<name>.yaml, in the engine-profile format
// `tokenflood calibrate` writes (flag names as keys), so a fitted profile can start from one and override it.
import { join } from 'node:path';
import { packagePath } from '../../package-root.js';

export const ENGINE_NAMES = ['vllm', 'sglang', 'trtllm'] as const;
export type EngineName = (typeof ENGINE_NAMES)[number];

const enginesDir = packagePath('data', 'engines');

export function enginePresetPath(name: string): string {
  return join(enginesDir, `${name}.yaml`);
}
