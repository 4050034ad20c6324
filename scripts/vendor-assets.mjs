// Build step: copies the browser assets the HTML reports inline (ECharts' minified bundle and its licenses) into
// dist/vendor, so an installed tokenflood needs no echarts package at run time (docs/install.md).
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL('..', import.meta.url));
const out = join(root, 'dist', 'vendor', 'echarts');
mkdirSync(out, { recursive: true });
const echarts = dirname(require.resolve('echarts/package.json'));
// zrender is resolved from echarts' own folder: it is echarts' dependency, bundled into echarts.min.js.
const zrender = dirname(createRequire(join(echarts, 'package.json')).resolve('zrender/package.json'));
const files = [
  [join(echarts, 'dist', 'echarts.min.js'), 'echarts.min.js'],
  [join(echarts, 'LICENSE'), 'LICENSE'],
  [join(echarts, 'NOTICE'), 'NOTICE'],
  [join(echarts, 'licenses', 'LICENSE-d3'), 'LICENSE-d3'],
  [join(zrender, 'LICENSE'), 'LICENSE-zrender'],
];
for (const [from, to] of files) copyFileSync(from, join(out, to));
