// Stages: parsing and its messages, --ramp-up/--ramp-down as stages, the phase of a moment, and when each VU runs.
import { describe, it, expect } from 'vitest';
import { parseStages, phaseAt, rampPlan, stagePhase } from './stages.js';
import { vuIntervals } from './executors/ramping-vus.js';

const LIMITS = { vus: 100_000, ratePerS: 1_000_000 };

describe('--stages', () => {
  it('parses k6-style duration:target lists; /s makes the targets requests per second', () => {
    expect(parseStages('30s:100, 2m:100 ,30s:0', LIMITS)).toEqual({
      of: 'vus',
      stages: [{ durationMs: 30_000, target: 100 }, { durationMs: 120_000, target: 100 }, { durationMs: 30_000, target: 0 }],
    });
    expect(parseStages('500ms:2.5/s,10:20/s,1m:0', LIMITS)).toEqual({
      of: 'rate',
      stages: [{ durationMs: 500, target: 2.5 }, { durationMs: 10_000, target: 20 }, { durationMs: 60_000, target: 0 }],
    });
  });

  it('names the stage that is wrong and says what was expected', () => {
    const bad = (spec: string) => () => parseStages(spec, LIMITS);
    expect(bad('30s:100,2x:5')).toThrow('stage 2 "2x:5": expected duration:target, e.g. 30s:100 (VUs) or 30s:20/s (requests per second)');
    expect(bad('30s')).toThrow(/stage 1 "30s": expected duration:target/);
    expect(bad('30s:-1')).toThrow(/stage 1/);
    expect(bad('30s:10/s,1m:10')).toThrow('mixes VU targets (30s:100) and rate targets (30s:20/s): write every target of a rate ramp with /s');
    expect(bad('30s:0,1m:0')).toThrow('every target is 0: nothing would be sent');
    expect(bad('0s:10')).toThrow('the stages last 0 s in all');
    expect(bad('30s:2.5')).toThrow('stage 1: a VU target is a whole number (write /s after it for requests per second)');
    expect(bad('30s:100001')).toThrow('at most 100,000 VUs');
    expect(bad('30s:2000000/s')).toThrow('at most 1,000,000 requests per second');
    expect(bad(Array(101).fill('1s:1').join(','))).toThrow('at most 100 stages (got 101)');
  });

  it('gives each stage its phase: above the previous target ramp-up, equal steady, below ramp-down', () => {
    const { stages } = parseStages('10s:50,10s:50,10s:80,0s:20,10s:20,10s:0', LIMITS);
    expect(stages.map((_, i) => stagePhase(stages, i))).toEqual(['ramp-up', 'steady', 'ramp-up', 'ramp-down', 'steady', 'ramp-down']);
    expect([0, 9_999, 10_000, 19_999, 20_000, 30_000, 39_999, 40_000, 49_999, 50_000, 1e9].map((t) => phaseAt(stages, t))).toEqual([
      'ramp-up', 'ramp-up', 'steady', 'steady', 'ramp-up', 'steady', 'steady', 'ramp-down', 'ramp-down', 'steady', 'steady',
    ]);
  });
});

describe('--ramp-up and --ramp-down as stages', () => {
  it('lays the ramps inside --duration at the level of --rate, else --concurrency', () => {
    expect(rampPlan({ rampUp: 30, rampDown: 10, duration: 100, concurrency: 8 })).toEqual({
      of: 'vus',
      stages: [{ durationMs: 30_000, target: 8 }, { durationMs: 60_000, target: 8 }, { durationMs: 10_000, target: 0 }],
    });
    expect(rampPlan({ rampUp: 5, duration: 20, rate: 4, concurrency: 3 })).toEqual({
      of: 'rate',
      stages: [{ durationMs: 5_000, target: 4 }, { durationMs: 15_000, target: 4 }],
    });
    // Without --duration the level holds after the ramp until --requests.
    expect(rampPlan({ rampUp: 2, concurrency: 8 })).toEqual({ of: 'vus', stages: [{ durationMs: 2_000, target: 8 }] });
    expect(rampPlan({ duration: 10, concurrency: 8 })).toBeUndefined();
  });
});

describe('ramping-vus: when each VU runs', () => {
  it('starts the N streams of a ramp-up evenly, stream k at k/N of the period', () => {
    const { stages } = rampPlan({ rampUp: 2, concurrency: 8 })!;
    for (let k = 0; k < 8; k++) expect(vuIntervals(stages, k)).toEqual([[(k / 8) * 2000, Infinity]]);
    expect(vuIntervals(stages, 8)).toEqual([]);
  });

  it('stops them evenly in a ramp-down, the last at its end, and starts them again on the next rise', () => {
    const { stages } = parseStages('1s:4,2s:4,1s:0,1s:2', LIMITS);
    expect([0, 1, 2, 3].map((k) => vuIntervals(stages, k))).toEqual([
      [[0, 4000], [4000, Infinity]],
      [[250, 3750], [4500, Infinity]],
      [[500, 3500]],
      [[750, 3250]],
    ]);
  });
});
