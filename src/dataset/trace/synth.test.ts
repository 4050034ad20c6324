// trace synth: the drawn trace's shape (cumulative hash ids, shared system prompt, subagents), read back with the Weka loader.
import { describe, it, expect } from 'vitest';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { synthSpec, SYNTH_DEFAULTS, type SynthFlags } from './synth-options.js';
import { synthTrace, type SynthSpec, type WekaRequest, type WekaSession, type WekaSubagent } from './synth.js';
import { writeSynthTrace } from './synth-write.js';
import { loadTrace } from './registry.js';
import { traceStats } from './stats.js';
import { parseBuckets, DEFAULT_BUCKETS } from '../stats.js';

const spec = (f: Partial<SynthFlags>): SynthSpec => {
  const r = synthSpec({ ...SYNTH_DEFAULTS, ...f });
  expect(r.problems).toEqual([]);
  return r.spec as SynthSpec;
};
const mains = (s: WekaSession): WekaRequest[] => s.requests.filter((r): r is WekaRequest => r.type !== 'subagent');
const subs = (s: WekaSession): WekaSubagent[] => s.requests.filter((r): r is WekaSubagent => r.type === 'subagent');
const dir = (): string => join(mkdtempSync(join(tmpdir(), 'tf-synth-')), 'trace');
const B = 64;

describe('synthTrace', () => {
  it('each turn carries the previous prompt and answer plus new tokens, and its hash ids extend the previous full blocks', () => {
    const { sessions } = synthTrace(spec({ sessions: '6', turns: 'uniform:3,12', subagentProbability: '0.3', systemTokens: '1000' }));
    let checked = 0;
    for (const s of sessions) {
      const m = mains(s);
      m.forEach((r, k) => {
        expect(r.hash_ids.length).toBe(Math.ceil(r.in / B));
        expect(r.hash_ids.slice(0, 15)).toEqual([...Array(15).keys()]); // floor(1000 / 64) shared system-prompt blocks
        if (k === 0) return;
        const p = m[k - 1];
        expect(r.in).toBeGreaterThan(p.in + p.out);
        const full = Math.floor(p.in / B);
        expect(r.hash_ids.slice(0, full)).toEqual(p.hash_ids.slice(0, full));
        // The previous partial block has new content now: a new id, seen nowhere before.
        if (p.in % B) expect(r.hash_ids[full]).not.toBe(p.hash_ids[full]);
        checked++;
      });
      for (const a of subs(s)) expect(a.requests[0].hash_ids.slice(0, 15)).toEqual([...Array(15).keys()]);
    }
    expect(checked).toBeGreaterThan(20);
  });

  it('is deterministic in the seed', () => {
    const a = JSON.stringify(synthTrace(spec({ sessions: '4', subagentProbability: '0.5' })));
    expect(JSON.stringify(synthTrace(spec({ sessions: '4', subagentProbability: '0.5' })))).toBe(a);
    expect(JSON.stringify(synthTrace(spec({ sessions: '4', subagentProbability: '0.5', seed: '2' })))).not.toBe(a);
  });

  it('names every bad flag value at once', () => {
    const r = synthSpec({ ...SYNTH_DEFAULTS, sessions: '0', turns: 'bogus', subagentProbability: '1.5', thinkMs: 'exponential:-3', traceBlockSize: '6.4' });
    expect(r.spec).toBeUndefined();
    expect(r.problems.map((p) => p.split(':')[0])).toEqual(['--sessions', '--turns', '--think-ms', '--subagent-probability', '--trace-block-size']);
    expect(r.problems[0]).toBe('--sessions: expected an integer >= 1, got "0"');
  });
});

describe('a synthetic trace read back with the Weka loader', () => {
  const edges = parseBuckets(DEFAULT_BUCKETS);

  it('loads without problems; sessions, turn range and the cache ceiling are what was asked', () => {
    const out = dir();
    const { sessions, summary } = synthTrace(spec({ sessions: '7', turns: 'uniform:4,9', systemTokens: '2000', subagentProbability: '0', rate: '0.5' }));
    writeSynthTrace(out, sessions, sessions.length, false);
    expect(readdirSync(out)).toHaveLength(7);
    const t = loadTrace(out);
    expect(t.summary).toMatchObject({ kind: 'weka', blockSize: B, skippedBadRecords: 0, droppedSubagents: 0, warnings: [] });
    const s = traceStats(t.requests, t.summary, edges);
    expect(s.sessions).toBe(7);
    expect(s.requests).toBe(summary.requests);
    expect(s.turns_per_session.min).toBeGreaterThanOrEqual(4);
    expect(s.turns_per_session.max).toBeLessThanOrEqual(9);
    expect(s.subagents.count).toBe(0);
    // Turn 0: every session after the first finds the 31 full system-prompt blocks; turn k: the previous turn's full blocks.
    const c = s.cache_ceiling!;
    expect(c.by_turn[0].cached_tokens).toBe(6 * 31 * B);
    let later = 0;
    for (const x of sessions) mains(x).forEach((r, k, m) => (later += k ? Math.floor(m[k - 1].in / B) * B : 0));
    expect(c.cached_tokens).toBe(6 * 31 * B + later);
    expect(c.ratio).toBeGreaterThan(0.5);
  });

  it('without hash_id_scope "trace" the loader keeps each file its own namespace: no system prompt shared', () => {
    const out = dir();
    const { sessions } = synthTrace(spec({ sessions: '3', turns: '2', subagentProbability: '0' }));
    writeSynthTrace(out, sessions, sessions.length, false);
    for (const f of readdirSync(out)) {
      const o = JSON.parse(readFileSync(join(out, f), 'utf8'));
      delete o.hash_id_scope;
      writeFileSync(join(out, f), JSON.stringify(o));
    }
    const t = loadTrace(out);
    expect(traceStats(t.requests, t.summary, edges).cache_ceiling!.by_turn[0].cached_tokens).toBe(0);
  });

  it('subagents at probability 1: every main turn spawns them, each after its parent turn and before the turn that joins it', () => {
    const out = dir();
    const { sessions, summary } = synthTrace(spec({ sessions: '3', turns: 'uniform:2,4', subagentProbability: '1', subagentFanout: '2', subagentTurns: 'uniform:1,3' }));
    writeSynthTrace(out, sessions, sessions.length, false);
    const t = loadTrace(out);
    const s = traceStats(t.requests, t.summary, edges);
    const turns = sessions.reduce((n, x) => n + mains(x).length, 0);
    expect(s.subagents.count).toBe(2 * turns);
    expect(summary.subagents).toBe(2 * turns);
    expect(s.subagents.background).toBe(2 * sessions.length); // the last turn's subagents have no turn to join
    expect(s.subagents.fan_out.max).toBe(2);
    for (const r of t.requests.filter((x) => x.agent !== undefined)) {
      const main = t.requests.filter((x) => x.session === r.session && x.agent === undefined);
      expect(r.atMs).toBeGreaterThanOrEqual(main[r.spawn!.afterTurn].atMs!);
      if (r.spawn!.joinTurn !== undefined) expect(r.atMs).toBeLessThan(main[r.spawn!.joinTurn].atMs!);
    }
    const none = synthTrace(spec({ sessions: '3', subagentProbability: '0' }));
    expect(none.summary.subagents).toBe(0);
    expect(none.sessions.every((x) => subs(x).length === 0)).toBe(true);
  });
});
