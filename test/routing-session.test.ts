// Session affinity end to end: a multi-turn workload over 4 simulated replicas behind the sim's router (--sim-router
// session, reading --session-header) and over 2 endpoints (--route session), against round-robin.
import { describe, it, expect, afterAll, beforeAll } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../src/run.js';
import { main } from '../src/cli/main.js';
import type { RunConfigInput } from '../src/config/schema.js';
import { startSimServer, type SimServerHandle } from '../src/sim/server.js';
import { capture } from './io-capture.js';
import { tmpDir } from './helpers.js';

const CONVS = 16;
const TURNS = 4;

/** ShareGPT: CONVS conversations of TURNS human turns, each ~200 tokens of its own words. */
function dataset(): string {
  const words = (c: number, t: number) => Array.from({ length: 120 }, (_, i) => `w${(c * 7919 + t * 104729 + i * 31) % 100003}`).join(' ');
  const convs = Array.from({ length: CONVS }, (_, c) => ({
    conversations: Array.from({ length: TURNS }, (_, t) => [{ from: 'human', value: `conversation ${c} turn ${t}: ${words(c, t)}` }, { from: 'gpt', value: 'an answer of some words' }]).flat(),
  }));
  const p = join(tmpDir(), 'convs.json');
  writeFileSync(p, JSON.stringify(convs));
  return p;
}

interface Rec {
  session?: string;
  turn?: number;
  served_by?: string;
  endpoint?: string;
  cached_tokens?: number;
  input_tokens?: number;
  status: string;
}

const records = (out: string): Rec[] =>
  readFileSync(join(out, 'requests.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Rec);

/** Σ cached / Σ input over the later turns (turn ≥ 1), which a session's home replica can serve from cache. */
const laterTurnCacheRate = (rs: Rec[]) => {
  const later = rs.filter((r) => (r.turn ?? 0) >= 1);
  return later.reduce((a, r) => a + (r.cached_tokens ?? 0), 0) / later.reduce((a, r) => a + (r.input_tokens ?? 0), 0);
};
/** The serving units each session reached. */
const homes = (rs: Rec[], key: (r: Rec) => string | undefined) => {
  const m = new Map<string, Set<string>>();
  for (const r of rs) {
    if (r.session === undefined) continue;
    if (!m.has(r.session)) m.set(r.session, new Set());
    m.get(r.session)!.add(key(r) ?? '?');
  }
  return m;
};

const data = dataset();
// 3 users over 4 replicas: round-robin cannot line a user's turns up on one replica by accident (4 users in lockstep would).
const base = { dataset: data, datasetMode: 'once', concurrency: 3, maxTokens: 8, quiet: true } as const;

describe('--sim-router session over 4 replicas', () => {
  const go = async (router: 'session' | 'round-robin') => {
    const out = tmpDir();
    await run({ ...base, simReplicas: 4, simRouter: router, sessionHeader: 'x-session-id', simTimeScale: 50, out } as RunConfigInput);
    return records(out);
  };

  it('keeps each conversation on one replica and caches far more of its later turns than round-robin', async () => {
    const ss = await go('session');
    const rr = await go('round-robin');
    for (const rs of [ss, rr]) {
      expect(rs).toHaveLength(CONVS * TURNS);
      expect(rs.every((r) => r.status === 'ok')).toBe(true);
    }
    // The header reached the router: every turn of a session on its one replica, sessions spread over several.
    const h = homes(ss, (r) => r.served_by);
    expect(h.size).toBe(CONVS);
    for (const units of h.values()) expect(units.size).toBe(1);
    expect(new Set([...h.values()].flatMap((u) => [...u])).size).toBeGreaterThan(1);
    // Round-robin scatters the turns.
    expect([...homes(rr, (r) => r.served_by).values()].some((u) => u.size > 1)).toBe(true);
    const sRate = laterTurnCacheRate(ss);
    const rRate = laterTurnCacheRate(rr);
    console.log(`later-turn cached-token rate: session ${(sRate * 100).toFixed(1)}%, round-robin ${(rRate * 100).toFixed(1)}%`);
    expect(sRate).toBeGreaterThan(0.5);
    expect(sRate).toBeGreaterThan(rRate + 0.2);
  }, 60_000);
});

describe('--route session over 2 endpoints', () => {
  let s1: SimServerHandle;
  let s2: SimServerHandle;
  beforeAll(async () => {
    s1 = await startSimServer({ timeScale: 50 });
    s2 = await startSimServer({ timeScale: 50, seed: 2 });
  });
  afterAll(async () => {
    await s1?.close();
    await s2?.close();
  });

  it('sends every turn of a session to one endpoint', async () => {
    const out = tmpDir();
    await run({ ...base, baseUrl: [s1.baseUrl, s2.baseUrl] as unknown as string, route: 'session', out } as RunConfigInput);
    const rs = records(out);
    expect(rs).toHaveLength(CONVS * TURNS);
    const h = homes(rs, (r) => r.endpoint);
    expect(h.size).toBe(CONVS);
    for (const units of h.values()) expect(units.size).toBe(1);
    expect(new Set([...h.values()].flatMap((u) => [...u]))).toEqual(new Set(['t1', 't2']));
    expect(laterTurnCacheRate(rs)).toBeGreaterThan(0.5);
  }, 60_000);
});

describe('bad session routing input: exit 2, nothing sent', () => {
  const cases: [string, string[], RegExp][] = [
    ['--sim-router session without --session-header', ['--sim-replicas', '2', '--sim-router', 'session'], /--sim-router session: needs --session-header NAME/],
    ['a --session-header that is not a header name', ['--session-header', 'x session'], /--session-header: expected an HTTP header name/],
  ];
  for (const [name, argv, re] of cases)
    it(name, async () => {
      const c = capture();
      const code = await main(['run', ...argv, '--quiet', '--requests', '1', '--out', tmpDir()], c.io);
      expect(code, c.err).toBe(2);
      expect(c.err).toMatch(re);
    });
});
