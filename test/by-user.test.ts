// Grouping by user: a `user` field in datasets and traces, --dataset-order by-user, and summary.json by_user with each
// user's cached-token rate (the embedded sim's prefix cache reports usage.prompt_tokens_details.cached_tokens).
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { main } from '../src/cli/main.js';
import { byUserOrder } from '../src/dataset/users-order.js';
import { UserCacheAggregator } from '../src/metrics/user-cache.js';
import type { RequestRecord } from '../src/metrics/record.js';
import { checkPage, hasChromium, launch, NO_CHROMIUM } from './fixtures/browser.js';
import { capture } from './io-capture.js';
import { tmpDir } from './helpers.js';

const EVIL = '<img src=x onerror="window.__pwned=1">bob';

let browser: Browser | undefined;
beforeAll(async () => {
  if (hasChromium) browser = await launch();
  else console.warn(NO_CHROMIUM);
});
afterAll(async () => {
  await browser?.close();
});

const words = (seed: string, n: number) => Array.from({ length: n }, (_, i) => `${seed}${i % 97} word`).join(' ');

describe('by user', () => {
  it('by-user order: each user in file order, users interleaved by first appearance', () => {
    const items = ['a1', 'a2', 'b1', 'a3', 'c1', 'b2'].map((id) => ({ id, user: id[0] }));
    expect(byUserOrder(items, (x) => x.user).map((x) => x.id)).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
  });

  it('top users by requests, the rest pooled as "others"; cached rate = cached / prompt tokens of requests that reported them', () => {
    const agg = new UserCacheAggregator();
    const rec = (user_id: string, cached: number | null, status: RequestRecord['status'] = 'ok') =>
      ({ user_id, warmup: false, status, input_tokens: 100, cached_tokens: cached, ttft_ms: 10 }) as unknown as RequestRecord;
    for (let i = 0; i < 3; i++) agg.add(rec('a', 50));
    agg.add(rec('b', 100));
    agg.add(rec('b', null, 'timeout'));
    agg.add(rec('c', null));
    agg.add(rec('d', 0));
    const s = agg.summary(2)!;
    expect(s.users).toBe(4);
    expect(Object.keys(s.rows)).toEqual(['a', 'b', 'others']);
    expect(s.rows.a.cached_token_rate).toBe(0.5);
    expect(s.rows.b).toMatchObject({ requests: 2, ok: 1, error_rate: 0.5, cached_token_rate: 1 });
    // c reported nothing, d reported 0 of 100: pooled, 0 cached of d's 100.
    expect(s.rows.others).toMatchObject({ users: 2, requests: 2, cached_reported: 1, prompt_tokens: 100, cached_token_rate: 0 });
  });

  it('a dataset with users: each user\'s shared prefix is served from the cache after its first request; terminal and report.html show it', async () => {
    const dir = tmpDir();
    const data = join(dir, 'users.jsonl');
    const lines: string[] = [];
    // Three users, each with a long system prompt of its own and short different questions.
    for (const [u, n] of [['alice', 6], ['carol', 4], [EVIL, 3]] as const)
      for (let i = 0; i < n; i++) lines.push(JSON.stringify({ user: u, messages: [{ role: 'system', content: words(u.slice(-5), 400) }, { role: 'user', content: `question ${i} for ${u.length}` }], max_tokens: 8 }));
    writeFileSync(data, lines.join('\n') + '\n');
    const out = join(dir, 'run');
    const c = capture();
    expect(await main(['run', '--dataset', data, '--dataset-order', 'by-user', '--dataset-mode', 'once', '--concurrency', '1', '--sim-time-scale', '50', '--no-server-metrics', '--out', out], c.io), c.err).toBe(0);
    const recs = readFileSync(join(out, 'requests.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    // Sent round-robin: alice, carol, bob, alice, carol, bob, alice, carol, alice, alice.
    expect(recs.sort((a, b) => a.id - b.id).map((r) => r.user_id.slice(-5))).toEqual(['alice', 'carol', '">bob', 'alice', 'carol', '">bob', 'alice', 'carol', '">bob', 'alice', 'carol', 'alice', 'alice']);
    const s = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(s.by_user.users).toBe(3);
    expect(Object.keys(s.by_user.rows)).toEqual(['alice', 'carol', EVIL]);
    const alice = s.by_user.rows.alice;
    expect(alice.requests).toBe(6);
    expect(alice.cached_reported).toBe(6);
    // Every request after a user's first finds that user's system prompt cached: most of its prompt.
    expect(alice.cached_token_rate).toBeGreaterThan(0.5);
    expect(alice.cached_token_rate).toBeLessThan(1);
    expect(s.by_user.rows.carol.cached_token_rate).toBeLessThan(alice.cached_token_rate);
    expect(c.out).toMatch(/by user \(3 users; top 3 by requests/);
    expect(c.out).toMatch(/\n\s*alice\s+6\s+0\.0%\s+[\d.]+\s+[\d.]+%/);
    expect(c.out).not.toMatch(/\u001b\]/);
    if (!browser) return console.warn(NO_CHROMIUM);
    const page = await checkPage(browser, join(out, 'report.html'));
    expect(page.errors).toEqual([]);
    expect(page.pwned).toBeUndefined();
    expect(page.text).toContain('By user (3 users');
    expect(page.text).toContain(EVIL);
    expect(page.text).toMatch(new RegExp(`\\nalice\\t6\\t0\\.0%\\t`));
  }, 60_000);

  it('a trace line\'s user reaches the record and by_user', async () => {
    const dir = tmpDir();
    const trace = join(dir, 't.jsonl');
    writeFileSync(trace, [0, 10, 20, 30].map((t, i) => JSON.stringify({ timestamp: t, input_tokens: 64, output_tokens: 4, user: i % 2 ? 'u2' : 'u1' })).join('\n') + '\n');
    const out = join(dir, 'run');
    const c = capture();
    expect(await main(['run', '--replay', trace, '--sim-time-scale', '50', '--no-server-metrics', '--out', out], c.io), c.err).toBe(0);
    const s = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(Object.keys(s.by_user.rows).sort()).toEqual(['u1', 'u2']);
    expect(s.by_user.rows.u1.requests).toBe(2);
  }, 60_000);
});
