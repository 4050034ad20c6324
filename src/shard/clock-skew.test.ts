// The Date-header offset formulas.
import { describe, expect, it } from 'vitest';
import { offsetFromProbes } from './clock-skew.js';

describe('offsetFromProbes', () => {
  it('uses one probe with ± half a second', () => {
    const r = offsetFromProbes([{ sentMs: 10_000, receivedMs: 10_010, serverMs: 12_000 }]);
    expect(r).toMatchObject({ method: 'date_header', offset_ms: 12_500 - 10_005, uncertainty_ms: 505 });
  });

  it('pins the offset where the Date header changes second', () => {
    // Server clock 3000 ms ahead: it passes 14 000 at local 11 000, between probe 1's send (10 990) and probe 2's receipt (11 012).
    const r = offsetFromProbes([
      { sentMs: 10_960, receivedMs: 10_970, serverMs: 13_000 },
      { sentMs: 10_990, receivedMs: 10_995, serverMs: 13_000 },
      { sentMs: 11_005, receivedMs: 11_012, serverMs: 14_000 },
    ]);
    expect(r.method).toBe('date_boundary');
    expect(Math.abs(r.offset_ms! - 3000)).toBeLessThanOrEqual(r.uncertainty_ms!);
    expect(r.uncertainty_ms).toBeLessThan(20);
  });

  it('has no estimate without probes', () => {
    expect(offsetFromProbes([]).offset_ms).toBeNull();
  });
});
