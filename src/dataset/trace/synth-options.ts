// `trace synth` flags (strings as commander gives them) checked and turned into a SynthSpec; every bad value named at once.
import { parseLengthDist, type LengthDist } from '../distribution.js';
import type { SynthSpec } from './synth.js';

/** The flags of `trace synth`, as typed; defaults live in SYNTH_DEFAULTS. */
export interface SynthFlags {
  sessions: string;
  turns: string;
  systemTokens: string;
  firstTokens: string;
  newTokens: string;
  outputTokens: string;
  thinkMs: string;
  toolMs: string;
  subagentProbability: string;
  subagentFanout: string;
  subagentTurns: string;
  rate: string;
  msPerToken: string;
  traceBlockSize: string;
  model: string;
  seed: string;
}

export const SYNTH_DEFAULTS: SynthFlags = {
  sessions: '10',
  turns: 'uniform:4,20',
  systemTokens: '4096',
  firstTokens: 'lognormal:1500,800,max=16384',
  newTokens: 'lognormal:600,500,max=16384',
  outputTokens: 'lognormal:300,250,max=4096',
  thinkMs: 'exponential:3000,max=60000',
  toolMs: 'lognormal:1000,1500,max=120000',
  subagentProbability: '0.1',
  subagentFanout: 'uniform:1,3',
  subagentTurns: 'uniform:2,8',
  rate: '0.2',
  msPerToken: '20',
  traceBlockSize: '64',
  model: 'synthetic',
  seed: '1',
};

/** Turn the flags into a spec, or throw-free: the problems, each naming its flag. */
export function synthSpec(f: SynthFlags): { spec?: SynthSpec; problems: string[] } {
  const problems: string[] = [];
  const dist = (flag: string, v: string): LengthDist => {
    try {
      return parseLengthDist(v);
    } catch (e) {
      problems.push(`${flag}: ${(e as Error).message}`);
      return parseLengthDist(1);
    }
  };
  /** A time distribution; "0" or "none" = no wait. */
  const time = (flag: string, v: string): LengthDist | null => (/^\s*(0|none)\s*$/i.test(v) ? null : dist(flag, v));
  const int = (flag: string, v: string, min: number): number => {
    const n = Number(v);
    if (!/^\s*\d+\s*$/.test(v) || !Number.isSafeInteger(n) || n < min) problems.push(`${flag}: expected an integer >= ${min}, got "${v}"`);
    return n;
  };
  const num = (flag: string, v: string, lo: number, hi: number): number => {
    const n = Number(v);
    if (v.trim() === '' || !Number.isFinite(n) || n < lo || n > hi) problems.push(`${flag}: expected a number in [${lo}, ${hi === Infinity ? '∞' : hi}], got "${v}"`);
    return n;
  };
  const spec: SynthSpec = {
    sessions: int('--sessions', f.sessions, 1),
    turns: dist('--turns', f.turns),
    systemTokens: int('--system-tokens', f.systemTokens, 0),
    firstTokens: dist('--first-tokens', f.firstTokens),
    newTokens: dist('--new-tokens', f.newTokens),
    outputTokens: dist('--output-tokens', f.outputTokens),
    thinkMs: time('--think-ms', f.thinkMs),
    toolMs: time('--tool-ms', f.toolMs),
    subagentProbability: num('--subagent-probability', f.subagentProbability, 0, 1),
    subagentFanout: dist('--subagent-fanout', f.subagentFanout),
    subagentTurns: dist('--subagent-turns', f.subagentTurns),
    ratePerS: num('--rate', f.rate, 0, Infinity),
    msPerToken: num('--ms-per-token', f.msPerToken, 0, Infinity),
    blockSize: int('--trace-block-size', f.traceBlockSize, 1),
    model: f.model,
    seed: int('--seed', f.seed, 0),
  };
  if (!f.model.trim()) problems.push('--model: must not be empty');
  for (const [flag, d] of [['--turns', spec.turns], ['--subagent-fanout', spec.subagentFanout], ['--subagent-turns', spec.subagentTurns]] as const)
    if (d.kind === 'empirical') problems.push(`${flag}: empirical:FILE is not supported here`);
  for (const [flag, d] of [['--first-tokens', spec.firstTokens], ['--new-tokens', spec.newTokens], ['--output-tokens', spec.outputTokens], ['--think-ms', spec.thinkMs], ['--tool-ms', spec.toolMs]] as const)
    if (d?.kind === 'empirical') problems.push(`${flag}: empirical:FILE is not supported here`);
  return problems.length ? { problems } : { spec, problems };
}
