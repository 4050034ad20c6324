import { describe, it, expect } from 'vitest';
import { parseRetryAfter, MAX_RETRY_AFTER_MS } from './execute.js';

describe('parseRetryAfter', () => {
  it('reads delay-seconds and HTTP dates as finite, non-negative ms', () => {
    expect(parseRetryAfter('2')).toBe(2000);
    expect(parseRetryAfter(' 0.25 ')).toBe(250);
    expect(parseRetryAfter(['3', '9'])).toBe(3000);
    expect(parseRetryAfter(new Date(Date.now() - 60_000).toUTCString())).toBe(0);
    const future = parseRetryAfter(new Date(Date.now() + 30_000).toUTCString())!;
    expect(future).toBeGreaterThan(25_000);
    expect(future).toBeLessThanOrEqual(30_000);
  });

  it('never returns more than a timer can wait, NaN or a negative delay', () => {
    expect(parseRetryAfter('99999999')).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfter('9'.repeat(400))).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfter('Fri, 31 Dec 9999 23:59:59 GMT')).toBe(MAX_RETRY_AFTER_MS);
    for (const v of ['-5', '1e400', 'soon', '', '   ', 'NaN', 'Infinity', '5 s', undefined]) expect(parseRetryAfter(v), String(v)).toBeNull();
  });
});
