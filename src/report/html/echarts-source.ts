// The ECharts browser bundle, inlined into every report so it opens offline: from dist/vendor (copied there by the
// build, so an installed package needs no echarts dependency), else from node_modules (running from src/ in development).
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { scriptSafe } from './escape.js';
import { packagePath } from '../../package-root.js';

let cached: string | undefined;

/** dist/vendor/echarts/echarts.min.js (written by scripts/vendor-assets.mjs). */
export const VENDORED_ECHARTS = packagePath('dist', 'vendor', 'echarts', 'echarts.min.js');

/** Where echarts.min.js is read from: the vendored copy when the build wrote one, else the echarts package. */
export function echartsPath(): string {
  if (existsSync(VENDORED_ECHARTS)) return VENDORED_ECHARTS;
  try {
    return createRequire(import.meta.url).resolve('echarts/dist/echarts.min.js');
  } catch {
    throw new Error(`echarts.min.js not found at ${VENDORED_ECHARTS} nor in node_modules: run \`npm run build\` (it copies it into dist/vendor)`);
  }
}

/** echarts.min.js, made safe to inline in a <script> element (read once per process). */
export function echartsSource(): string {
  if (cached !== undefined) return cached;
  cached = scriptSafe(readFileSync(echartsPath(), 'utf8'));
  return cached;
}
