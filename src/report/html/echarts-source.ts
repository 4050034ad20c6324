// The ECharts browser bundle, read from node_modules at report time so every report opens offline.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { scriptSafe } from './escape.js';

let cached: string | undefined;

/** echarts.min.js, made safe to inline in a <script> element (read once per process). */
export function echartsSource(): string {
  if (cached !== undefined) return cached;
  const require = createRequire(import.meta.url);
  let path: string;
  try {
    path = require.resolve('echarts/dist/echarts.min.js');
  } catch {
    path = join(dirname(require.resolve('echarts')), 'echarts.min.js');
  }
  cached = scriptSafe(readFileSync(path, 'utf8'));
  return cached;
}
