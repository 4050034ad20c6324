// Issue 31: docs/sim.md's wide fidelity table says what the simulate commands produce, and its family medians are the
// medians of its own rows. Three quick points are re-simulated (deterministic); `npm run bench:fidelity -- --set wide`
// runs all fifteen (minutes).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadFidelityPoints, median, runFidelity } from '../src/calibrate/fidelity.js';

const doc = readFileSync(new URL('../docs/sim.md', import.meta.url), 'utf8');
const points = loadFidelityPoints('wide');
/** "published → simulated (±x%)" cells of one table row: [ttft, tpot, throughput]. */
function cells(id: string): ({ published: number; simulated: number; error: number } | undefined)[] {
  const line = doc.split('\n').find((l) => l.startsWith(`| ${id} |`));
  expect(line, `docs/sim.md row for ${id}`).toBeDefined();
  return line!.split(' | ').slice(3, 6).map((c) => {
    const m = /([\d.]+) → ([\d.]+) \(([+−])([\d.]+)%\)/.exec(c);
    return m ? { published: Number(m[1]), simulated: Number(m[2]), error: (m[3] === '−' ? -1 : 1) * Number(m[4]) / 100 } : undefined;
  });
}

describe('wide fidelity table (docs/sim.md#fidelity)', () => {
  it('every wide point has a row with its simulate command (on its --engine), and the family medians are those of the rows', () => {
    const families = new Map<string, number[][]>();
    for (const p of points) {
      const line = doc.split('\n').find((l) => l.startsWith(`| ${p.id} |`))!;
      expect(line).toContain(`--model-profile ${p.runs[0].modelProfile}`);
      // Each point runs on the engine it was measured on, and the command says so.
      expect(['vllm', 'sglang', 'trtllm']).toContain(p.runs[0].engine);
      expect(line).toContain(`tokenflood simulate --engine ${p.runs[0].engine} `);
      const errs = cells(p.id).map((c) => (c ? [Math.abs(c.error)] : []));
      const f = families.get(p.family!) ?? [[], [], []];
      errs.forEach((e, i) => f[i].push(...e));
      families.set(p.family!, f);
    }
    for (const [fam, [ttft, tpot, tput]] of families) {
      const row = doc.split('\n').find((l) => l.startsWith(`| ${fam} | `))!;
      expect(row, `median row for ${fam}`).toBeDefined();
      const stated = [...row.matchAll(/([\d.]+)%/g)].map((m) => Number(m[1]) / 100);
      [ttft, tpot, tput].forEach((xs, i) => {
        if (xs.length) expect(Math.abs(stated[i] - median(xs)), `${fam} column ${i}`).toBeLessThan(0.0011);
      });
    }
  });

  it('re-simulating three points gives the table\'s figures', async () => {
    // MiniMax-M2.5 on H100: an FP8 MoE checkpoint on a GPU without block-scaled MMA (experts and dense layers at the BF16 rate).
    const ids = ['gs-gptoss120b-mxfp4-h100x2-vllm-tp2-sharegpt-c4', 'llmd-llama33-70b-fp8-mi355xx8-vllm-tp8-4k4k-c32', 'sg-minimaxm25-fp8-h100x8-sglang-tp8ep8-1k1k-c100'];
    const report = await runFidelity({ points: points.filter((p) => ids.includes(p.id)) });
    for (const id of ids) {
      const c = cells(id);
      const rows = report.rows.filter((r) => r.id === id);
      const byFamily = (prefix: string) => rows.find((r) => r.metric.startsWith(prefix));
      ['ttft', 'tpot', 'output'].forEach((prefix, i) => {
        const r = byFamily(prefix);
        if (!r || !c[i]) return;
        expect(r.published).toBe(c[i]!.published);
        expect(Math.abs(r.simulated - c[i]!.simulated) / c[i]!.simulated, `${id} ${r.metric}: ${r.simulated} vs table ${c[i]!.simulated}`).toBeLessThan(0.005);
      });
    }
  }, 120_000);
});
