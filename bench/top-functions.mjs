// Summarize a V8 .cpuprofile (from `node --cpu-prof`): the functions with the most self time, in % of samples.
// Usage: node bench/top-functions.mjs <file.cpuprofile> [count]
import { readFileSync } from 'node:fs';

export function topFunctions(profile, count = 15) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  let total = 0;
  for (const id of profile.samples) {
    const f = byId.get(id).callFrame;
    const key = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(node_modules|dist|bench)\//, '$1/').replace(/^node:/, '')}:${f.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + 1);
    total++;
  }
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([fn, n]) => ({ fn, pct: Math.round((n / total) * 1000) / 10 }));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const prof = JSON.parse(readFileSync(process.argv[2], 'utf8'));
  for (const r of topFunctions(prof, Number(process.argv[3] ?? 20))) console.log(`${String(r.pct).padStart(5)}%  ${r.fn}`);
}
