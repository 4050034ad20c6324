// Session affinity and trace-aware prefix keys: --route session, prefix-hash on hash_ids, --session-header.
import { describe, it, expect } from 'vitest';
import { createRouter } from './route-policies.js';
import { prefixKey, sessionHeaders, PREFIX_HASH_IDS } from '../drivers/real.js';
import type { RequestSpec } from '../dataset/types.js';

const members = (...w: number[]) => w.map((weight, i) => ({ name: `t${i + 1}`, weight }));
const spec = (over: Partial<RequestSpec>): RequestSpec => ({ messages: [{ role: 'user', content: 'hello there' }], prompt: 'hello there', inputTokens: 2, maxTokens: 4, ...over }) as RequestSpec;

describe('--route session', () => {
  it('keeps every turn of a session on one endpoint, and spreads sessions over all of them', () => {
    const r = createRouter('session', members(1, 1, 1, 1));
    const home = new Map<string, number>();
    for (let turn = 0; turn < 5; turn++)
      for (let s = 0; s < 200; s++) {
        const i = r.pick({ prefixKey: 'same', sessionKey: `s${s}` });
        if (turn === 0) home.set(`s${s}`, i);
        else expect(i).toBe(home.get(`s${s}`));
      }
    const per = [0, 0, 0, 0];
    for (const i of home.values()) per[i]++;
    // 200 sessions over 4 endpoints: each gets some, none most (a consistent hash, 160 points per endpoint).
    for (const n of per) expect(n).toBeGreaterThan(20);
    for (const n of per) expect(n).toBeLessThan(100);
  });

  it('a request without a session goes round-robin', () => {
    const r = createRouter('session', members(1, 1, 1));
    expect(Array.from({ length: 6 }, () => r.pick({ prefixKey: 'x' }))).toEqual([0, 1, 2, 0, 1, 2]);
  });

  it('honours weights: a heavier endpoint holds more sessions', () => {
    const r = createRouter('session', members(3, 1));
    const per = [0, 0];
    for (let s = 0; s < 2000; s++) per[r.pick({ prefixKey: '', sessionKey: String(s) })]++;
    expect(per[0] / 2000).toBeGreaterThan(0.65);
    expect(per[0] / 2000).toBeLessThan(0.85);
  });
});

describe('prefix-hash keys', () => {
  it('a trace request keys on its first hash ids, not on text shared by every request', () => {
    expect(PREFIX_HASH_IDS).toBe(2);
    expect(prefixKey(spec({ hashIds: [0, 14, 15, 16] }))).toBe('hash:0,14');
    expect(prefixKey(spec({ hashIds: [7] }))).toBe('hash:7');
    // Same first two ids, different tails: one key (one endpoint holds the shared blocks).
    expect(prefixKey(spec({ hashIds: [0, 14, 99] }))).toBe(prefixKey(spec({ hashIds: [0, 14, 15, 16] })));
    // A trace whose first block is shared by all (Mooncake's id 0) still spreads over the endpoints.
    const r = createRouter('prefix-hash', members(1, 1, 1, 1));
    const used = new Set(Array.from({ length: 100 }, (_, i) => r.pick({ prefixKey: prefixKey(spec({ hashIds: [0, 100 + i, 500 + i] })) })));
    expect(used.size).toBe(4);
  });

  it('a prefix group wins over hash ids; without either, the first 256 characters', () => {
    expect(prefixKey(spec({ prefixGroup: 3, hashIds: [1, 2] }))).toBe('group:3');
    const long = 'a'.repeat(300);
    expect(prefixKey(spec({ messages: [{ role: 'system', content: long }], prompt: long }))).toBe('a'.repeat(256));
  });
});

describe('--session-header', () => {
  it('adds the session id under the header name to the endpoint headers, only when both are set', () => {
    const base = { authorization: 'Bearer k' };
    expect(sessionHeaders(base, 'x-session-id', 'conv-7')).toEqual({ authorization: 'Bearer k', 'x-session-id': 'conv-7' });
    expect(sessionHeaders(base, undefined, 'conv-7')).toBe(base);
    expect(sessionHeaders(base, 'x-session-id', undefined)).toBe(base);
  });
});
