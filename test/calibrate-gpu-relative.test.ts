// `tokenflood calibrate` on a non-H100 GPU fits an H100-relative --mfu: used on the same GPU, the profile gives the
// measured compute rate once, not scaled twice by the GPU's matmul efficiency (issue 31).
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { simulate } from '../src/simulate.js';
import { calibrate } from '../src/calibrate/calibrate.js';
import { CALIBRATED_PARAMS } from '../src/calibrate/params.js';
import { profileDocument } from '../src/calibrate/profile-file.js';
import { readCalibrationPoints } from '../src/calibrate/runs.js';
import { resolveEngine } from '../src/sim/engine/config.js';
import { matmulScale } from '../src/sim/engine/dtypes.js';
import { GPUS } from '../src/sim/engine/catalog.js';
import { tmpDir } from './helpers.js';

describe('calibrate on MI300X', () => {
  it('recovers the hidden --mfu itself (not mfu x matmul scale), and the fitted profile reproduces the measured TTFT', async () => {
    // MI300X reaches 51.4% of its BF16 peak against the H100's 80.3%: a double-scaled fit would be off by 0.64x.
    expect(matmulScale(GPUS.mi300x)).toBeLessThan(0.7);
    const root = tmpDir();
    const hidden = join(root, 'hidden.yaml');
    writeFileSync(hidden, 'mfu: 0.4\n');
    // Compute-bound prefills (4,096-token prompts of an 8B model): TTFT is set by the FLOP rate, so by mfu.
    const dirs: string[] = [];
    for (const c of [1, 2]) {
      const dir = join(root, `c${c}`);
      await simulate({ gpu: 'mi300x', modelProfile: 'llama-3.1-8b', inputTokens: 4096, outputTokens: 16, concurrency: c, requests: 8, engineProfile: hidden, out: dir });
      dirs.push(dir);
    }
    const points = readCalibrationPoints(dirs);
    const mfuOnly = CALIBRATED_PARAMS.filter((p) => p.option === 'mfu');
    const r = await calibrate(points, { params: mfuOnly, maxRequests: 8 });
    expect(Math.abs(r.constants.mfu - 0.4) / 0.4).toBeLessThan(0.03);
    expect(r.medianFitError.ttft).toBeLessThan(0.03);
    // The profile written holds that mfu; on the same GPU it gives the hidden engine's FLOP rate.
    const doc = profileDocument(r);
    expect(doc.gpu).toBe('mi300x');
    const fitted = resolveEngine({ gpu: 'mi300x', model: 'llama-3.1-8b', mfu: doc.mfu as number });
    const truth = resolveEngine({ gpu: 'mi300x', model: 'llama-3.1-8b', mfu: 0.4 });
    expect(Math.abs(fitted.flopsPerSec - truth.flopsPerSec) / truth.flopsPerSec).toBeLessThan(0.03);
  }, 120_000);
});
