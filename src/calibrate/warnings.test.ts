// calibrate says when a fit has fewer measured figures than constants.
import { describe, it, expect } from 'vitest';
import { calibrationWarnings } from './calibrate.js';
import { CALIBRATED_PARAMS } from './params.js';

describe('calibration warnings', () => {
  it('warn while the runs give fewer figures (TTFT and TPOT each) than constants, and not after', () => {
    const n = CALIBRATED_PARAMS.length;
    const enough = Math.ceil(n / 2);
    expect(calibrationWarnings(1, n)).toEqual([expect.stringMatching(new RegExp(`^1 run gives 2 measured figures \\(TTFT and TPOT\\) for ${n} constants: the fit is underdetermined`))]);
    expect(calibrationWarnings(enough - 1, n)).toHaveLength(enough - 1 >= 1 && 2 * (enough - 1) < n ? 1 : 0);
    expect(calibrationWarnings(enough, n)).toEqual([]);
  });
});
