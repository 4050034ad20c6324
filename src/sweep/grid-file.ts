// The --grid file: sweep points from YAML/JSON, as axis lists crossed into the full product or an explicit list of combos.
import { MAX_CONFIG_BYTES, readTextFile } from '../util/read-file.js';
import { parseYaml } from '../util/yaml.js';
import { didYouMean, parseDurationS } from '../util/parse.js';
import { MAX_TIMER_S } from '../util/timer.js';
import type { InputOutput, LoadMode } from './grid.js';

/** Run keys a grid file may set (the seed workflow's combos.yaml names its model, server and tokenizer); flags override them. */
export interface GridRunKeys {
  model?: string;
  baseUrl?: string;
  tokenizer?: string;
}

/** The grid-file key of each run key, as the seed workflow writes it. */
export const GRID_RUN_KEYS: Record<keyof GridRunKeys, string> = { model: 'model', baseUrl: 'base_url', tokenizer: 'tokenizer' };

/** The seed workflow's axes: input_output [[in, out], ...] and concurrency_prompts [[concurrency, num_prompts], ...], crossed. */
const SEED_AXES = ['input_output', 'concurrency_prompts'] as const;

/** One point of a grid file: its load, lengths and stop condition (undefined: the sweep's --requests/--duration or the default). */
export interface GridPoint {
  mode: LoadMode;
  load: number;
  io: InputOutput;
  requests?: number;
  durationS?: number;
}

/** Accepted keys (snake_case after normalising kebab/camelCase) and the field each sets; vLLM bench names are aliases. */
const KEYS: Record<string, 'input' | 'output' | 'concurrency' | 'rate' | 'requests' | 'duration'> = {
  input_tokens: 'input',
  input_len: 'input',
  output_tokens: 'output',
  output_len: 'output',
  concurrency: 'concurrency',
  max_concurrency: 'concurrency',
  rate: 'rate',
  request_rate: 'rate',
  requests: 'requests',
  num_prompts: 'requests',
  duration: 'duration',
};

/** More points than this is a typo (a list pasted twice, an extra zero), not a sweep anyone can wait for. */
export const MAX_GRID_POINTS = 10_000;

const snake = (k: string): string => k.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/-/g, '_').toLowerCase();
const show = (v: unknown): string => (typeof v === 'string' ? `"${v.slice(0, 60)}"` : JSON.stringify(v)?.slice(0, 60) ?? String(v));

type Field = (typeof KEYS)[string];
type Values = Partial<Record<Field, unknown>>;

/** Keys of one mapping by field; unknown keys and two aliases of one field are problems (`at` names the place). */
function fieldsOf(obj: Record<string, unknown>, at: string, problems: string[], extra: readonly string[] = []): Values {
  const out: Values = {};
  const seen: Partial<Record<Field, string>> = {};
  for (const [raw, v] of Object.entries(obj)) {
    const k = snake(raw);
    if (extra.includes(k)) continue;
    const f = KEYS[k];
    if (!f) {
      const hint = didYouMean(k, [...Object.keys(KEYS), ...extra]);
      problems.push(`${at}unknown key "${raw}"${hint ? ` (did you mean "${hint}"?)` : ''}; keys: ${[...Object.keys(KEYS), ...extra].join(', ')}`);
      continue;
    }
    if (seen[f]) problems.push(`${at}"${seen[f]}" and "${raw}" both set the ${f === 'input' || f === 'output' ? `${f} length` : f}; give one`);
    seen[f] = raw;
    out[f] = v;
  }
  return out;
}

/** One value of a field, checked; undefined (and a problem) when it is not valid. */
function scalar(f: Field, v: unknown, at: string, problems: string[]): number | undefined {
  if (f === 'duration') {
    const d = parseDurationS(v as string | number);
    if (typeof d === 'number' && Number.isFinite(d) && d > 0 && d <= MAX_TIMER_S) return d;
    problems.push(`${at}duration: expected a duration such as 30s, 2m or 500ms, got ${show(v)}`);
    return undefined;
  }
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v.trim()) : NaN;
  const whole = f !== 'rate';
  if (Number.isFinite(n) && n > 0 && (!whole || Number.isInteger(n))) return n;
  const what = f === 'rate' ? 'a positive number of requests per second' : f === 'input' || f === 'output' ? 'a positive whole number of tokens' : 'a positive whole number';
  problems.push(`${at}${f === 'input' || f === 'output' ? `${f} length` : f}: expected ${what}, got ${show(v)}`);
  return undefined;
}

/** A field given as one value or a list (YAML list, or "1,2,4"). */
function list(f: Field, v: unknown, at: string, problems: string[]): number[] {
  const items = Array.isArray(v) ? v : typeof v === 'string' && f !== 'duration' && v.includes(',') ? v.split(',') : [v];
  if (items.length === 0) problems.push(`${at}${f}: empty list`);
  return items.map((x) => scalar(f, x, at, problems)).filter((x): x is number => x !== undefined);
}

function modeOf(v: Values, at: string, problems: string[], required: boolean): LoadMode | undefined {
  if (v.concurrency !== undefined && v.rate !== undefined) problems.push(`${at}give concurrency or rate, not both`);
  else if (v.concurrency !== undefined) return 'concurrency';
  else if (v.rate !== undefined) return 'rate';
  else if (required) problems.push(`${at}missing concurrency (or rate): the load of the point`);
  return undefined;
}

/** An explicit list of points; `defaults` (the file's other top-level keys) fill what an entry leaves out. */
function combos(items: unknown[], where: string, defaults: Values, file: string, problems: string[]): GridPoint[] {
  const out: GridPoint[] = [];
  items.forEach((item, i) => {
    const at = `${file}: ${where}[${i}] (point ${i + 1}): `;
    if (!item || typeof item !== 'object' || Array.isArray(item)) {
      problems.push(`${at}expected a mapping such as {input_len: 256, output_len: 128, concurrency: 4, num_prompts: 50}, got ${show(item)}`);
      return;
    }
    const own = fieldsOf(item as Record<string, unknown>, at, problems);
    // A point's own load replaces the default load of either kind.
    const v: Values = own.concurrency !== undefined || own.rate !== undefined ? { ...defaults, concurrency: undefined, rate: undefined, ...own } : { ...defaults, ...own };
    for (const k of Object.keys(v) as Field[]) if (v[k] === undefined) delete v[k];
    const mode = modeOf(v, at, problems, true);
    for (const f of ['input', 'output'] as const) if (v[f] === undefined) problems.push(`${at}missing ${f === 'input' ? 'input_len (or input_tokens)' : 'output_len (or output_tokens)'}`);
    const num = (f: Field) => (v[f] === undefined ? undefined : scalar(f, v[f], at, problems));
    const input = num('input');
    const output = num('output');
    const load = mode ? num(mode) : undefined;
    const requests = num('requests');
    const durationS = num('duration');
    if (mode && load !== undefined && input !== undefined && output !== undefined) out.push({ mode, load, io: { input, output }, requests, durationS });
  });
  return out;
}

/** Axis lists crossed into every combination: inputs outermost, then outputs, then loads (requests/duration pair with loads). */
function product(v: Values, file: string, problems: string[], loadElsewhere = false): GridPoint[] {
  const at = `${file}: `;
  // With the load given as concurrency_prompts, only the lengths are crossed here (one placeholder level).
  if (loadElsewhere) v = { ...v, concurrency: 1, rate: undefined, requests: undefined, duration: undefined };
  const mode = modeOf(v, at, problems, true);
  for (const f of ['input', 'output'] as const) if (v[f] === undefined) problems.push(`${at}missing ${f}_tokens (or ${f}_len): a list of ${f} lengths`);
  if (!mode || v.input === undefined || v.output === undefined) return [];
  const inputs = list('input', v.input, at, problems);
  const outputs = list('output', v.output, at, problems);
  const loads = list(mode, v[mode], at, problems);
  const paired = (f: 'requests' | 'duration'): (number | undefined)[] => {
    if (v[f] === undefined) return loads.map(() => undefined);
    const xs = list(f, v[f], at, problems);
    if (xs.length === 1) return loads.map(() => xs[0]);
    if (xs.length !== loads.length) problems.push(`${at}${f}: ${xs.length} values for ${loads.length} ${mode} levels; give one value or one per level`);
    return loads.map((_, i) => xs[i]);
  };
  const req = paired('requests');
  const dur = paired('duration');
  const out: GridPoint[] = [];
  for (const input of inputs) for (const output of outputs) loads.forEach((load, i) => out.push({ mode, load, io: { input, output }, requests: req[i], durationS: dur[i] }));
  return out;
}

/** A list of two-number pairs ([[256, 256], ...], or "256x256" strings for input_output); problems name the entry. */
function pairs(key: string, v: unknown, at: string, fields: [Field, Field], problems: string[]): [number, number][] {
  if (!Array.isArray(v) || v.length === 0) {
    problems.push(`${at}${key}: expected a non-empty list of [${fields.join(', ')}] pairs, got ${show(v)}`);
    return [];
  }
  const out: [number, number][] = [];
  v.forEach((item, i) => {
    const pair = typeof item === 'string' && /^\s*\d+\s*x\s*\d+\s*$/i.test(item) ? item.toLowerCase().split('x') : item;
    if (!Array.isArray(pair) || pair.length !== 2) return void problems.push(`${at}${key}[${i}]: expected a pair [${fields.join(', ')}], got ${show(item)}`);
    const a = scalar(fields[0], pair[0], `${at}${key}[${i}]: `, problems);
    const b = scalar(fields[1], pair[1], `${at}${key}[${i}]: `, problems);
    if (a !== undefined && b !== undefined) out.push([a, b]);
  });
  return out;
}

/** The seed workflow's shape: every input_output pair crossed with every concurrency_prompts pair (inputs outermost). */
function seedProduct(obj: Record<string, unknown>, v: Values, file: string, problems: string[]): GridPoint[] {
  const at = `${file}: `;
  const key = (k: string) => Object.keys(obj).find((x) => snake(x) === k);
  const ioKey = key('input_output');
  const cpKey = key('concurrency_prompts');
  if (ioKey !== undefined && (v.input !== undefined || v.output !== undefined)) problems.push(`${at}input_output and input/output lengths both given; give the lengths one way`);
  if (cpKey !== undefined && (v.concurrency !== undefined || v.rate !== undefined || v.requests !== undefined)) problems.push(`${at}concurrency_prompts and concurrency/rate/requests both given; give the load one way`);
  const ios = ioKey !== undefined ? pairs(ioKey, obj[ioKey], at, ['input', 'output'], problems).map(([input, output]) => ({ input, output })) : undefined;
  const loads = cpKey !== undefined ? pairs(cpKey, obj[cpKey], at, ['concurrency', 'requests'], problems).map(([load, requests]) => ({ load, requests })) : undefined;
  if (problems.length) return [];
  // One side in the seed form, the other as axis lists: build that side from the lists.
  const rest = product(ios ? { ...v, input: 1, output: 1 } : v, file, problems, loads !== undefined);
  const ioList = ios ?? [...new Map(rest.map((p) => [`${p.io.input}x${p.io.output}`, p.io])).values()];
  const durationS = v.duration === undefined ? undefined : scalar('duration', v.duration, at, problems);
  const loadList = loads
    ? loads.map((l) => ({ mode: 'concurrency' as LoadMode, load: l.load, requests: l.requests as number | undefined, durationS }))
    : [...new Map(rest.map((p) => [p.load, { mode: p.mode, load: p.load, requests: p.requests, durationS: p.durationS }])).values()];
  return ioList.flatMap((io) => loadList.map((l) => ({ ...l, io })));
}

/** `model`, `base_url` and `tokenizer` of a grid file: strings, or a problem naming the key. */
function runKeys(obj: Record<string, unknown>, file: string, problems: string[]): GridRunKeys {
  const out: GridRunKeys = {};
  for (const [k, name] of Object.entries(GRID_RUN_KEYS) as [keyof GridRunKeys, string][]) {
    const raw = Object.keys(obj).find((x) => snake(x) === name);
    if (raw === undefined) continue;
    const v = obj[raw];
    if (typeof v !== 'string' || v.trim() === '') problems.push(`${file}: ${raw}: expected a string, got ${show(v)}`);
    else out[k] = v.trim();
  }
  return out;
}

/** Points of a parsed grid document (a list of points, a mapping with `combos:`, or a mapping of axis lists). */
export function gridPoints(doc: unknown, file: string): { points: GridPoint[]; run: GridRunKeys; problems: string[] } {
  const problems: string[] = [];
  let points: GridPoint[] = [];
  let run: GridRunKeys = {};
  if (Array.isArray(doc)) points = combos(doc, 'points', {}, file, problems);
  else if (doc && typeof doc === 'object') {
    const obj = doc as Record<string, unknown>;
    const comboKey = Object.keys(obj).find((k) => snake(k) === 'combos');
    const v = fieldsOf(obj, `${file}: `, problems, ['combos', ...SEED_AXES, ...Object.values(GRID_RUN_KEYS)]);
    run = runKeys(obj, file, problems);
    const seed = Object.keys(obj).some((k) => (SEED_AXES as readonly string[]).includes(snake(k)));
    if (seed && comboKey !== undefined) problems.push(`${file}: combos and ${SEED_AXES.join('/')} both given; give the points one way`);
    else if (seed) points = seedProduct(obj, v, file, problems);
    else if (comboKey !== undefined) {
      const items = obj[comboKey];
      if (!Array.isArray(items) || items.length === 0) problems.push(`${file}: combos: expected a non-empty list of points`);
      else {
        for (const [f, x] of Object.entries(v)) if (Array.isArray(x)) problems.push(`${file}: ${f}: beside combos, top-level keys are defaults for every point and take one value, got a list`);
        points = combos(items, 'combos', v, file, problems);
      }
    } else points = product(v, file, problems);
  } else problems.push(`${file}: expected a list of points, a mapping with combos:, or a mapping of input_tokens/output_tokens/concurrency lists`);
  if (!problems.length && points.length === 0) problems.push(`${file}: no points`);
  const modes = new Set(points.map((p) => p.mode));
  if (modes.size > 1) problems.push(`${file}: mixes concurrency and rate points; a sweep varies one of them`);
  if (points.length > MAX_GRID_POINTS) problems.push(`${file}: ${points.length} points; at most ${MAX_GRID_POINTS}`);
  return { points, run, problems };
}

/** Read and check a grid file; every problem names the flag, the file and, for a point, its index and key. */
export function readGridFile(path: string, flag = '--grid'): { points: GridPoint[]; run: GridRunKeys; problems: string[] } {
  const r = readTextFile(path, MAX_CONFIG_BYTES);
  if ('problem' in r) return { points: [], run: {}, problems: [`${flag} ${path}: cannot read the grid file: ${r.problem}`] };
  let doc: unknown;
  try {
    doc = parseYaml(r.text);
  } catch (e) {
    return { points: [], run: {}, problems: [`${flag} ${path}: not valid YAML or JSON: ${(e as Error).message.split('\n')[0]}`] };
  }
  const g = gridPoints(doc, path);
  return { points: g.points, run: g.run, problems: g.problems.map((p) => `${flag} ${p}`) };
}
