// Traffic mixes: weighted request classes (`--mix 'short: 60% in 512 out 256; ...'`) and the classic presets.
import { parseLengthDist, type EmpiricalLoader, type LengthDist } from './distribution.js';

export interface TrafficClass {
  name: string;
  /** Share of requests, normalised so all classes sum to 1. */
  weight: number;
  /** Length specs; undefined falls back to --input-tokens / --output-tokens. */
  input?: string;
  output?: string;
}

/** The four classic shapes (short = 256 tokens, long = 4096 in / 2048 out) and `classic`, all four at 25% each. */
export const MIX_PRESETS: Record<string, string> = {
  'short-short': 'short-short: 100% in 256 out 256',
  'long-short': 'long-short: 100% in 4096 out 256',
  'short-long': 'short-long: 100% in 256 out 2048',
  'long-long': 'long-long: 100% in 4096 out 2048',
  classic:
    'short-short: 25% in 256 out 256; long-short: 25% in 4096 out 256; short-long: 25% in 256 out 2048; long-long: 25% in 4096 out 2048',
};

const CLASS_RE = /^([A-Za-z0-9_.+-]+)\s*:\s*(\d+(?:\.\d+)?)\s*(%?)\s*(.*)$/;

/**
 * Parse a mix: `NAME: WEIGHT[%] [in LENGTH] [out LENGTH]` separated by `;`, or `preset:NAME`. Weights are
 * relative (percentages need not sum to 100). Throws Error with every problem found, one per line.
 */
export function parseMix(spec: string, loadEmpirical?: EmpiricalLoader): TrafficClass[] {
  let text = spec.trim();
  if (text.startsWith('preset:')) {
    const name = text.slice('preset:'.length).trim();
    const preset = MIX_PRESETS[name];
    if (!preset) throw new Error(`unknown preset "${name}" (presets: ${Object.keys(MIX_PRESETS).join(', ')})`);
    text = preset;
  }
  const problems: string[] = [];
  const classes: TrafficClass[] = [];
  for (const part of text.split(';').map((p) => p.trim()).filter(Boolean)) {
    const m = CLASS_RE.exec(part);
    if (!m) {
      problems.push(`"${part}": expected NAME: WEIGHT% in LENGTH out LENGTH`);
      continue;
    }
    const [, name, w, , rest] = m;
    const cls: TrafficClass = { name, weight: Number(w) };
    const words = rest.split(/\s+/).filter(Boolean);
    for (let i = 0; i < words.length; i += 2) {
      const key = words[i];
      const val = words[i + 1];
      if ((key !== 'in' && key !== 'out') || val === undefined) {
        problems.push(`"${part}": expected "in LENGTH" and/or "out LENGTH", got "${words.slice(i).join(' ')}"`);
        break;
      }
      try {
        parseLengthDist(val, loadEmpirical);
      } catch (e) {
        problems.push(`class ${name}: ${(e as Error).message}`);
      }
      if (key === 'in') cls.input = val;
      else cls.output = val;
    }
    if (classes.some((c) => c.name === name)) problems.push(`class ${name} is given twice`);
    classes.push(cls);
  }
  const total = classes.reduce((s, c) => s + c.weight, 0);
  if (!problems.length && classes.length === 0) problems.push('no classes given');
  if (!problems.length && !(total > 0)) problems.push('class weights sum to 0');
  if (problems.length) throw new Error(problems.join('; '));
  return classes.map((c) => ({ ...c, weight: c.weight / total }));
}

/** A class with resolved distributions, ready to sample. */
export interface ResolvedClass {
  name: string | undefined;
  weight: number;
  input: LengthDist;
  output: LengthDist;
}

/** Pick a class index by weight with one uniform draw. */
export function pickClass(classes: readonly { weight: number }[], u: number): number {
  let acc = 0;
  for (let i = 0; i < classes.length; i++) {
    acc += classes[i].weight;
    if (u < acc) return i;
  }
  return classes.length - 1;
}
