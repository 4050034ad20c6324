// waitUntilUnixMs: never early, a past time at once, a stop ends the wait.
import { describe, expect, it } from 'vitest';
import { waitUntilUnixMs } from './start-at.js';

describe('waitUntilUnixMs', () => {
  it('waits until the time, never before it', async () => {
    const at = Date.now() + 60;
    const late = await waitUntilUnixMs(at);
    expect(Date.now()).toBeGreaterThanOrEqual(at);
    expect(late).toBeGreaterThanOrEqual(0);
  });

  it('returns at once, with the age, for a past time', async () => {
    const t0 = Date.now();
    const late = await waitUntilUnixMs(t0 - 5000);
    expect(late).toBeGreaterThanOrEqual(5000);
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it('ends the wait when the signal aborts', async () => {
    const ac = new AbortController();
    const t0 = Date.now();
    const p = waitUntilUnixMs(t0 + 3_600_000, ac.signal);
    setTimeout(() => ac.abort(), 20);
    await p;
    expect(Date.now() - t0).toBeLessThan(60_000);
  });
});
