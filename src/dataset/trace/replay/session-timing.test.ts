// turnWait: tool then think, each capped by --max-idle-gap; recorded think time vs the recorded spacing of sends (gap).
import { describe, it, expect } from 'vitest';
import { turnWait } from './session-timing.js';
import { planSessions } from './session-plan.js';
import type { TraceRequest } from '../model.js';

const req = (o: Partial<TraceRequest>): TraceRequest => ({ index: 0, inputLength: 10, outputLength: 1, turn: 0, source: 'x:1', ...o });

describe('turnWait', () => {
  const prev = req({ atMs: 1000, toolMs: 400 });
  const next = req({ atMs: 5000, gapMs: 2000, turn: 1 });
  it('recorded: the recorded think time / speed; without one the gap; tool time first', () => {
    // prev took 600 ms (sent 0, ended 600) on the run clock; speed 2.
    expect(turnWait(prev, next, 0, 600, { thinkTime: 'recorded', speed: 2 })).toEqual({ toolMs: 200, thinkMs: 1000 });
    expect(turnWait(prev, next, 0, 600, { thinkTime: 0, speed: 2 })).toEqual({ toolMs: 200, thinkMs: 1000 });
    // gap = (5000 − 1000) / 2 − 600 − 200 = 1200
    expect(turnWait(prev, req({ atMs: 5000, turn: 1 }), 0, 600, { thinkTime: 'recorded', speed: 2 })).toEqual({ toolMs: 200, thinkMs: 1200 });
    expect(turnWait(prev, next, 0, 600, { thinkTime: 'gap', speed: 2 })).toEqual({ toolMs: 200, thinkMs: 1200 });
    // A predecessor slower than the recorded spacing: no negative wait.
    expect(turnWait(prev, next, 0, 5000, { thinkTime: 'gap', speed: 2 }).thinkMs).toBe(0);
  });
  it('none, a fixed duration (not scaled), and the --max-idle-gap cap on each wait', () => {
    expect(turnWait(prev, next, 0, 600, { thinkTime: 'none', speed: 2 })).toEqual({ toolMs: 200, thinkMs: 0 });
    expect(turnWait(prev, next, 0, 600, { thinkTime: 1.5, speed: 2 })).toEqual({ toolMs: 200, thinkMs: 1500 });
    expect(turnWait(prev, next, 0, 600, { thinkTime: 'recorded', speed: 2, maxIdleGapS: 0.15 })).toEqual({ toolMs: 150, thinkMs: 150 });
    expect(turnWait(req({}), req({ turn: 1 }), 0, 600, { thinkTime: 'gap', speed: 1 })).toEqual({ toolMs: 0, thinkMs: 0 });
  });
});

describe('planSessions', () => {
  const rows = [
    req({ index: 0, session: 'a', turn: 0, atMs: 10 }),
    req({ index: 1, session: 'b', turn: 0, atMs: 5 }),
    req({ index: 2, session: 'a', turn: 0, agent: 'S', spawn: { afterTurn: 0, joinTurn: 1 }, atMs: 12 }),
    req({ index: 3, session: 'a', turn: 1, atMs: 20 }),
    req({ index: 4, session: 'a', turn: 2, atMs: 30 }),
    req({ index: 5, session: 'a', turn: 0, agent: 'T', spawn: { afterTurn: 1, joinTurn: 2 }, atMs: 22 }),
    req({ index: 6, atMs: 40 }),
  ];
  it('groups by session in order of appearance; a stand-alone request is a one-turn session r<index>', () => {
    const p = planSessions(rows, 0);
    expect(p.plans.map((x) => [x.id, x.main.length, x.subagents.map((s) => s.agent), x.firstAtMs])).toEqual([['a', 3, ['S', 'T'], 10], ['b', 1, [], 5], ['r6', 1, [], 40]]);
    expect(p).toMatchObject({ turns: 7, subagents: 2, skippedTurns: 0 });
  });
  it('--start-at-fraction: starts at ⌊F·T⌋ after a warmup of the turn before; subagents spawned before the start are history', () => {
    const p = planSessions(rows, 0.5);
    const a = p.plans[0];
    expect(a.warmup?.index).toBe(0);
    expect(a.main.map((r) => r.turn)).toEqual([1, 2]);
    expect(a.subagents.map((s) => s.agent)).toEqual(['T']);
    expect(a.firstAtMs).toBe(10);
    expect(p.plans[1].warmup).toBeUndefined();
    expect(p).toMatchObject({ turns: 5, skippedTurns: 2, skippedSubagents: 1 });
  });
});
