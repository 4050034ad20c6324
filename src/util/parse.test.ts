// parseHeaders: valid lines parsed; invalid names and values reported without quoting the value.
import { describe, it, expect } from 'vitest';
import { parseHeaders } from './parse.js';

describe('parseHeaders', () => {
  it('parses valid lines, trimming around the colon', () =>
    expect(parseHeaders(['X-A: 1', 'Authorization:Bearer t:k', 'X-Latin: caf\u00e9\tok'])).toEqual({ headers: { 'X-A': '1', Authorization: 'Bearer t:k', 'X-Latin': 'caf\u00e9\tok' }, bad: [] }));
  it.each([
    ['X-K: sec\rret', /header "X-K" contains CR \(U\+000D\)/],
    ['X-K: sec\nret', /header "X-K" contains LF \(U\+000A\)/],
    ['X-K: sec\0ret', /header "X-K" contains NUL \(U\+0000\)/],
    ['X-K: sec\u0007ret', /header "X-K" contains a control character \(U\+0007\)/],
    ['X-K: sec\u2028ret', /header "X-K" contains a character outside Latin-1 \(U\+2028\)/],
    ['X K: secret', /header name "X K" is not a valid HTTP token/],
    [': secret', /without a header name/],
    ['NoColon', /expected "Name: value", got "NoColon"/],
    ['sk-proj-0123456789abcdefghijklmnopqrstuvwxyz', /expected "Name: value", got a line without a header name/],
  ])('%j is rejected', (line, re) => {
    const { headers, bad } = parseHeaders([line]);
    expect(headers).toEqual({});
    expect(bad).toHaveLength(1);
    expect(bad[0]).toMatch(re);
    expect(bad[0]).not.toMatch(/secret|ret|0123456789/);
  });
});
