// A sweep whose server breaks during a level: findings leave out levels above the error threshold, unrun points show "-".
import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { registerSweep } from '../src/cli/sweep.js';
import { startSlotServer } from './fixtures/slot-server.js';
import { renderSweep } from '../src/sweep/terminal.js';
import { renderSweepReport } from '../src/report/html/sweep-report.js';
import { runCli } from './fixtures/cli-harness.js';
import { tmpDir } from './helpers.js';

describe.each(['h1', 'undici'])('sweep findings when a level fails most requests (transport %s)', (transport) => {
  it('keeps the failing level out of knee, stability and Pareto, says so, and shows "-" for the point that never ran', async () => {
    // 8 requests per point: c1 and c2 complete 16 streams, c4 completes about 3 more, then the server dies mid-level.
    const server = await startSlotServer({ slots: 4, tokenMs: 2, dieAfter: 19 });
    const out = join(tmpDir(), 'sweep');
    try {
      const r = await runCli(registerSweep, [
        'sweep', '--no-validate', '--base-url', server.baseUrl, '--concurrency', '1,2,4,8', '--requests', '8', '--input-output', '16x4',
        '--transport', transport, '--out', out, '--json', '--quiet',
      ]);
      expect(r.code, r.err).toBe(1);
      const doc = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8'));
      expect(doc.points.map((p: { load: number; status: string }) => [p.load, p.status])).toEqual([[1, 'done'], [2, 'done'], [4, 'done'], [8, 'failed']]);
      const c4 = doc.points[2];
      expect(c4.error_rate).toBeGreaterThan(0.05);
      const g = doc.insights[0];
      const text = g.statements.join('\n');
      expect(text).toMatch(/Left out of the knee, recommendation, stability and Pareto findings: concurrency 4 \(error rate \d+\.\d%\), above the 5% error threshold/);
      expect(g.pareto).not.toContain(4);
      expect(g.most_stable?.load).not.toBe(4);
      // Only c1 and c2 are usable: too few levels for a knee, and no growth-ratio sentence drawn from c4.
      expect(g.knee).toBeNull();
      expect(text).not.toMatch(/grows \d/);

      // The point that never ran: empty CSV cells and "-" in the terminal table, not a 0% error rate.
      const csv = readFileSync(join(out, 'sweep.csv'), 'utf8').trim().split('\n');
      const head = csv[0].split(',');
      const c8 = csv[4].split(',');
      for (const col of ['error_rate', 'requests', 'output_throughput']) expect(c8[head.indexOf(col)], col).toBe('');
      expect(Number(csv[3].split(',')[head.indexOf('error_rate')])).toBeCloseTo(c4.error_rate, 5);

      const line = renderSweep(doc).split('\n').find((l) => /^8\s/.test(l));
      expect(line).toMatch(/^8\s+16x4\s+FAILED\s+-\s+-\s+-\s/);
      const html = renderSweepReport(out, doc);
      const row = html.slice(html.indexOf('c8-in16-out4 <span class="fail">failed'));
      expect(row.slice(0, row.indexOf('</tr>'))).toMatch(/not run<\/td><td[^>]*>–<\/td>/);
    } finally {
      await server.close();
    }
  });
});
