// The engine model against published vLLM measurements (data/fidelity/points.json): the acceptance thresholds.
import { describe, expect, it } from 'vitest';
import { runFidelity } from '../src/calibrate/fidelity.js';

// Open-loop points at a tenth of their published request counts (at least 300) (same rates, so the same steady state) keep the test
// fast; `npm run bench:fidelity` runs the full counts. These are deterministic simulation outputs, not timings.
const REQUEST_SCALE = 0.1;

describe('fidelity to published vLLM measurements', () => {
  it('median |error|: mean TTFT <= 15%, TPOT <= 8%, throughput <= 5%; no TTFT off by more than 40%', async () => {
    const report = await runFidelity({ requestScale: REQUEST_SCALE });
    const table = report.rows.map((r) => `${r.id} ${r.metric}: published ${r.published} simulated ${r.simulated.toFixed(2)} (${(r.error * 100).toFixed(1)}%)`).join('\n');
    console.log(table);
    expect(report.rows.length).toBeGreaterThanOrEqual(19);
    expect(report.rows.every((r) => Number.isFinite(r.simulated) && r.simulated > 0), table).toBe(true);
    expect(report.medianAbsError.ttft, table).toBeLessThanOrEqual(0.15);
    expect(report.medianAbsError.tpot, table).toBeLessThanOrEqual(0.08);
    expect(report.medianAbsError.throughput, table).toBeLessThanOrEqual(0.05);
    expect(report.maxAbsTtftError, table).toBeLessThanOrEqual(0.4);
    // Batch-1 decode stays where it was calibrated (C7 on A100-40GB, C8 on H100).
    for (const id of ['C7', 'C8']) {
      const tpot = report.rows.find((r) => r.id === id && r.metric.startsWith('tpot'))!;
      expect(Math.abs(tpot.error), table).toBeLessThan(0.05);
    }
  }, 300_000);
});
