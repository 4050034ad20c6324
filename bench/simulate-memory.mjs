// Bench: peak RSS of `simulate` at 10,000 and 100,000 requests (each in a fresh process), and whether each summary equals what `report` recomputes.
// Run with `npm run bench:simulate` (builds first). Writes bench/simulate-memory.json; the target (issue 11): the
// 100,000-request run's peak RSS within 50 MB of the 10,000-request one. Reported met or not, never asserted in a test.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = (f) => fileURLToPath(new URL(f, import.meta.url));
const cli = here('../dist/bin/tokenflood.js');
const sizes = (process.env.BENCH_SIM_SIZES ?? '10000,100000').split(',').map(Number);
const load = ['--concurrency', '64', '--input-tokens', '512', '--output-tokens', '128'];
const TARGET_MB = 50;

/** One simulate in its own process: wall time, peak RSS (the kernel's high-water mark), and summary vs report. */
function measure(n) {
  const out = mkdtempSync(join(tmpdir(), 'tf-simmem-'));
  try {
    // Peak RSS read by the process itself at exit (process.resourceUsage().maxRSS, KiB), so no /usr/bin/time is needed.
    const script = `process.on('exit', () => process.stderr.write('\\nMAXRSS ' + process.resourceUsage().maxRSS + '\\n')); await import(${JSON.stringify(cli)});`;
    const t0 = performance.now();
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script, cli, 'simulate', '--requests', String(n), ...load, '--out', out, '--overwrite', '--json'], { encoding: 'utf8', maxBuffer: 1 << 26 });
    const wallS = (performance.now() - t0) / 1000;
    if (r.status !== 0) throw new Error(`simulate ${n} exited ${r.status}: ${r.stderr.slice(-500)}`);
    const maxRssMb = Number(/MAXRSS (\d+)/.exec(r.stderr)[1]) / 1024;
    const rep = spawnSync(process.execPath, [cli, 'report', out, '--json'], { encoding: 'utf8', maxBuffer: 1 << 26 });
    if (rep.status !== 0) throw new Error(`report exited ${rep.status}: ${rep.stderr.slice(-500)}`);
    const onDisk = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    const recomputed = JSON.parse(rep.stdout);
    const equal = JSON.stringify(onDisk) === JSON.stringify(recomputed);
    return { requests: n, wall_s: Number(wallS.toFixed(2)), peak_rss_mb: Number(maxRssMb.toFixed(1)), summary_equals_report: equal, ttft_p50_ms: onDisk.ttft_ms.p50 };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

const rows = [];
for (const n of sizes) {
  process.stderr.write(`simulate ${n} requests ... `);
  const row = measure(n);
  rows.push(row);
  process.stderr.write(`${row.wall_s} s, peak RSS ${row.peak_rss_mb} MB, summary ${row.summary_equals_report ? '=' : '≠'} report\n`);
}
const small = rows.find((r) => r.requests === Math.min(...sizes));
const big = rows.find((r) => r.requests === Math.max(...sizes));
const growth = big.peak_rss_mb - small.peak_rss_mb;
const result = {
  date: new Date().toISOString(),
  node: process.version,
  load: load.join(' '),
  rows,
  target: { rule: `peak RSS at ${big.requests} within ${TARGET_MB} MB of ${small.requests}`, growth_mb: Number(growth.toFixed(1)), met: growth <= TARGET_MB && rows.every((r) => r.summary_equals_report) },
};
writeFileSync(here('./simulate-memory.json'), JSON.stringify(result, null, 2) + '\n');
console.log(`peak RSS growth ${growth.toFixed(1)} MB from ${small.requests} to ${big.requests} requests: target (≤ ${TARGET_MB} MB, summaries equal to report) ${result.target.met ? 'met' : 'NOT met'}`);
