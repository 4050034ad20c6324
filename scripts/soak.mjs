// Soak test: a long run at high concurrency against a simulated server in another process; samples client memory.
// Usage: node scripts/soak.mjs [--minutes 10] [--concurrency 256]. Writes results/soak/soak.json and prints a table.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { run } from '../dist/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({ options: { minutes: { type: 'string', default: '10' }, concurrency: { type: 'string', default: '256' } } });
const minutes = Number(values.minutes);
const concurrency = Number(values.concurrency);
const outDir = join(here, '..', 'results', 'soak');
mkdirSync(outDir, { recursive: true });

// The server runs in its own process so its memory does not mix with the client's.
const server = spawn(process.execPath, [join(here, '..', 'dist', 'cli', 'main.js'), 'serve', '--port', '0', '--max-num-seqs', '512'], { stdio: ['ignore', 'pipe', 'inherit'] });
const baseUrl = await new Promise((resolve, reject) => {
  server.stdout.on('data', (c) => {
    const m = /(http:\/\/[^\s]+\/v1)/.exec(String(c));
    if (m) resolve(m[1]);
  });
  server.on('exit', (code) => reject(new Error(`server exited ${code}`)));
});

const samples = [];
const t0 = Date.now();
const sample = () => {
  const m = process.memoryUsage();
  samples.push({ t_s: Math.round((Date.now() - t0) / 1000), rss_mb: +(m.rss / 2 ** 20).toFixed(1), heap_used_mb: +(m.heapUsed / 2 ** 20).toFixed(1), external_mb: +(m.external / 2 ** 20).toFixed(1) });
};
sample();
const timer = setInterval(() => {
  globalThis.gc?.();
  sample();
  const s = samples[samples.length - 1];
  process.stderr.write(`[${s.t_s}s] rss ${s.rss_mb} MB, heap ${s.heap_used_mb} MB\n`);
}, 30_000);

const during = () => samples.slice(1); // samples taken while the run was going
const res = await run({ baseUrl, concurrency, duration: `${minutes}m`, inputTokens: 256, outputTokens: 64, out: join(outDir, 'run'), overwrite: true, quiet: true });
clearInterval(timer);
const runSamples = during();
globalThis.gc?.();
sample(); // after the run: includes the records read back for the summary and returned to the caller
server.kill('SIGTERM');

// During the run nothing is kept per request (records go to disk), so memory must stay flat:
// compare the first and second half of the samples taken while the run was going.
const mid = Math.floor(runSamples.length / 2);
const first = runSamples.slice(0, mid);
const half = runSamples.slice(mid);
const avg = (xs, k) => xs.reduce((a, s) => a + s[k], 0) / Math.max(1, xs.length);
const report = {
  minutes, concurrency, requests: res.summary.requests, output_throughput: res.summary.output_throughput,
  rss_mb_first_half_avg: +avg(first, 'rss_mb').toFixed(1), rss_mb_second_half_avg: +avg(half, 'rss_mb').toFixed(1),
  heap_mb_first_half_avg: +avg(first, 'heap_used_mb').toFixed(1), heap_mb_second_half_avg: +avg(half, 'heap_used_mb').toFixed(1),
  records_returned: res.records.length, samples,
};
writeFileSync(join(outDir, 'soak.json'), JSON.stringify(report, null, 2));
console.log(`soak: ${minutes} min at concurrency ${concurrency}: ${res.summary.requests.total} requests, ${res.summary.requests.failed} failed`);
console.log(`rss MB avg first half ${report.rss_mb_first_half_avg}, second half ${report.rss_mb_second_half_avg}; heap MB ${report.heap_mb_first_half_avg} -> ${report.heap_mb_second_half_avg} during the run; after it, ${res.records.length} records are read back for the summary and returned)`);
console.log('t_s  rss_mb  heap_used_mb');
for (const s of samples) console.log(`${String(s.t_s).padStart(4)}  ${String(s.rss_mb).padStart(6)}  ${String(s.heap_used_mb).padStart(12)}`);
