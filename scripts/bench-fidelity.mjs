// `npm run bench:fidelity`: simulate every published calibration point (data/fidelity/points.json) and print the errors.
// Usage: node scripts/bench-fidelity.mjs [--set points|wide] [--scale 0.25] [--only C1,C7] [--json]
import { loadFidelityPoints, runFidelity } from '../dist/calibrate/fidelity.js';

const args = process.argv.slice(2);
const arg = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const requestScale = Number(arg('--scale') ?? 1);
const only = arg('--only')?.split(',');
const set = arg('--set') ?? 'points';
const points = loadFidelityPoints(set).filter((p) => !only || only.includes(p.id));
const t0 = performance.now();
const report = await runFidelity({ requestScale, points });
if (args.includes('--json')) {
  console.log(JSON.stringify(report, null, 2));
} else {
  const pct = (x) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;
  const w = Math.max(6, ...report.rows.map((r) => r.id.length));
  console.log(`${'point'.padEnd(w)} metric            published   simulated   error`);
  for (const r of report.rows)
    console.log(`${r.id.padEnd(w)} ${r.metric.padEnd(17)} ${r.published.toFixed(2).padStart(9)}   ${r.simulated.toFixed(2).padStart(9)}   ${pct(r.error).padStart(7)}${r.scored ? '' : '   (not scored)'}`);
  const m = report.medianAbsError;
  console.log(`\nmedian |error|: TTFT ${(m.ttft * 100).toFixed(1)}% (target <= 15%), TPOT ${(m.tpot * 100).toFixed(1)}% (<= 8%), throughput ${(m.throughput * 100).toFixed(1)}% (<= 5%); worst TTFT ${(report.maxAbsTtftError * 100).toFixed(1)}% (<= 40%)`);
  for (const [f, x] of Object.entries(report.byFamily))
    console.log(`  ${f.padEnd(9)} median |error|: TTFT ${(x.ttft * 100).toFixed(1)}%, TPOT ${(x.tpot * 100).toFixed(1)}%, throughput ${(x.throughput * 100).toFixed(1)}%`);
  console.log(`request scale ${requestScale}, ${((performance.now() - t0) / 1000).toFixed(1)} s of wall time`);
}
