// The sweep config: zod schema and flag table for the sweep's own keys, and resolution of flags + YAML file into points.
import { z } from 'zod';
import { UsageError } from '../errors.js';
import { RUN_FLAGS, describeIssues, type RunConfig, type RunConfigInput } from '../config/schema.js';
import { parseLengthDist } from '../dataset/distribution.js';
import { readConfigFile, resolveRunConfig, type ResolvedRun } from '../config/load.js';
import { SHARD_FLAGS } from '../config/shard.js';
import { parseDurationS } from '../util/parse.js';
import { MAX_TIMER_MESSAGE, MAX_TIMER_S } from '../util/timer.js';
import { flagTable, type FlagTable } from '../util/flags.js';
import { EmbeddedSimSchema, EMBEDDED_SIM_META, embeddedSimProblems } from '../config/embedded-sim.js';
import { parseSlo, type Slo } from '../metrics/slo.js';
import { splitOutputs, type OutputSpec } from '../config/live-metrics.js';
import type { Precision } from './slo-search.js';
import { AS_CONFIGURED, buildGrid, isAsConfigured, makePoint, parseInputOutputList, parseNumberList, type InputOutput, type LoadMode, type LoadStep, type PointSpec } from './grid.js';
import { DEFAULT_TOKENIZER, tokenizerFound } from '../dataset/tokenizer.js';
import { GRID_RUN_KEYS, readGridFile, type GridPoint, type GridRunKeys } from './grid-file.js';
import { resolveSweepEngine, type SweepEngine } from './simulated.js';

const numberList = (inner: z.ZodNumber) => z.preprocess((v) => (v === undefined ? undefined : parseNumberList(v)), z.array(inner).min(1).optional());
const fraction = z.preprocess((v) => (typeof v === 'string' && v.trim().endsWith('%') ? Number(v.trim().slice(0, -1)) / 100 : v), z.coerce.number().min(0).max(1));
const durationList = z.preprocess(
  (v) => (v === undefined ? undefined : (Array.isArray(v) ? v : String(v).split(',')).map((x) => parseDurationS(typeof x === 'string' ? x.trim() : x))),
  z.array(z.number({ message: 'expected durations such as 60s, 2m or 500ms' }).positive().max(MAX_TIMER_S, MAX_TIMER_MESSAGE)).min(1).optional(),
);

const PRECISION_RE = /^\s*(?:\d+(?:\.\d*)?|\.\d+)\s*%?\s*$/;

const PointSchema = z
  .object({
    concurrency: z.coerce.number().int().positive().optional(),
    rate: z.coerce.number().positive().optional(),
    requests: z.coerce.number().int().positive().optional(),
    duration: z.preprocess((v) => (v === undefined ? undefined : parseDurationS(v)), z.number().positive().max(MAX_TIMER_S, MAX_TIMER_MESSAGE).optional()),
  })
  .strict();

export const SweepSchema = z
  .object({
    concurrency: numberList(z.number().int().positive()),
    rate: numberList(z.number().positive()),
    inputOutput: z.unknown().optional(),
    requests: numberList(z.number().int().positive()),
    duration: durationList,
    points: z.array(PointSchema).min(1).optional(),
    grid: z.string().min(1).optional(),
    auto: z.boolean().default(false),
    thenGrid: z.boolean().default(false),
    slo: z.string().optional(),
    minGain: fraction.default(0.05),
    refine: z.coerce.number().int().min(0).max(10).default(2),
    maxConcurrency: z.coerce.number().int().positive().default(256),
    autoMode: z.enum(['concurrency', 'rate']).default('concurrency'),
    autoRates: z.coerce.number().int().min(1).max(100).default(8),
    autoPrecision: z.preprocess((v) => (typeof v === 'number' ? String(v) : v), z.string().regex(PRECISION_RE, 'expected a load step such as 1 or 0.5, or a percentage such as 5%').optional()),
    autoMaxRuns: z.coerce.number().int().min(2).max(100).default(20),
    simulate: z.boolean().default(false),
    ...EmbeddedSimSchema.shape,
    out: z.string().min(1).optional(),
    overwrite: z.boolean().default(false),
    json: z.boolean().default(false),
    quiet: z.boolean().default(false),
  })
  .strict();

export type SweepInput = z.input<typeof SweepSchema>;
type SweepParsed = z.output<typeof SweepSchema>;

const { points: _points, ...SweepFlagShape } = SweepSchema.shape;

/** Flags of `tokenflood sweep` (the `points` list is YAML only). */
export const SWEEP_FLAGS = flagTable(SweepFlagShape, {
  concurrency: { arg: 'list', help: 'closed-loop levels, e.g. 1,2,4,8,16,32,64' },
  rate: { arg: 'list', help: 'open-loop request rates (req/s), e.g. 1,2,5,10' },
  inputOutput: { arg: 'list', help: 'input×output token pairs crossed with the levels, e.g. 256x256,2048x2048', defaultText: 'the lengths the run flags configure' },
  requests: { arg: 'n|list', help: 'measured requests per point; a list pairs one count with each level', defaultText: 'max(100, 4 x concurrency)' },
  duration: { arg: 'time|list', help: 'send for this long at each point, e.g. 30s; a list pairs one with each level' },
  grid: { arg: 'file', help: 'YAML/JSON grid of points: input_tokens, output_tokens and concurrency (or rate) lists crossed, or combos: [{input_len, output_len, concurrency, num_prompts}, ...] (docs/commands/sweep.md#grid-file)' },
  auto: { help: 'find the limit: concurrency 1, 2, 4, … until throughput gains < --min-gain, an SLO breaks or errors exceed --max-error-rate, then refine between the last two levels; with --slo, bisect to the highest load meeting every SLO; --auto-mode rate: open loop' },
  slo: { arg: 'list', help: 'objectives, e.g. ttft_p99=2000ms,tpot_p99=50ms,e2e_p99=30s,error_rate=1% (see docs/slo.md)' },
  thenGrid: { help: 'with --auto: once the search has found the knee of a pair, run a grid around it (the knee × 0.5, 0.75, 1, 1.25, 1.5; loads already measured are reused) in the same sweep directory and report (docs/commands/sweep.md#detect-then-benchmark---then-grid)' },
  minGain: { arg: 'x', help: 'with --auto (concurrency, no --slo): stop when doubling concurrency adds less output throughput than this fraction, e.g. 0.05 or 5%' },
  refine: { help: 'with --auto (concurrency, no --slo): extra levels bisecting the last two' },
  maxConcurrency: { help: 'with --auto: highest concurrency to try; for the open-loop profile, the concurrency of its throughput run' },
  autoMode: { help: 'with --auto: search concurrency (closed loop) or request rate (open loop, --arrival sets the process)' },
  autoRates: { help: 'with --auto --auto-mode rate and no --slo: open-loop rates run between the synchronous and the throughput run' },
  autoPrecision: { arg: 'step|pct', help: 'with --auto --slo: stop bisecting when lowest failing − highest passing load is at most this step, or this share of the highest passing load (5%)', defaultText: '1 for concurrency, 5% for rate' },
  autoMaxRuns: { help: 'with --auto --slo: most runs the search makes per input/output pair (the synchronous probe of a rate search counts)' },
  simulate: { help: 'run every point on the engine model with a virtual clock (as tokenflood simulate: no server, no GPU), with the engine flags (--gpu, --model-profile, --tp, ...); the same files, in seconds' },
  ...EMBEDDED_SIM_META,
  out: { arg: 'dir', help: 'sweep directory (KIND=URL here is the deprecated spelling of --push KIND=URL, still read)', defaultText: 'results/<timestamp>-sweep/', repeatable: true },
  overwrite: { help: 'allow writing into a directory that already holds a sweep' },
  json: { help: 'print sweep.json as one JSON document on stdout (progress goes to stderr)' },
  quiet: { help: 'no per-point progress lines' },
});

/** Run flags a sweep passes to every point unchanged (the load, lengths and output keys are the sweep's own; --stages would replace its levels). */
// targets and route too: a sweep loads one endpoint (docs/routing.md); shard and startAt are run's alone (refused, config/shard.ts).
const SWEEP_OWNED_RUN_KEYS = ['concurrency', 'rate', 'requests', 'duration', 'stages', 'out', 'overwrite', 'json', 'quiet', 'targets', 'route', ...Object.keys(SHARD_FLAGS)];
const SWEEP_FLAG_NAMES = new Set(Object.values(SWEEP_FLAGS as FlagTable).map((f) => f.name));
// In a sweep, --input-tokens and --output-tokens also take a list of lengths: a grid axis crossed with the levels.
const LENGTH_AXES: Record<string, string> = { inputTokens: 'input', outputTokens: 'output' };
export const PASS_THROUGH_RUN_FLAGS: FlagTable = Object.fromEntries(
  Object.entries(RUN_FLAGS as FlagTable)
    .filter(([k, f]) => !SWEEP_OWNED_RUN_KEYS.includes(k) && !(k in SweepSchema.shape) && !SWEEP_FLAG_NAMES.has(f.name))
    .map(([k, f]) =>
      LENGTH_AXES[k]
        ? [k, { ...f, flag: f.flag.replace('<n|dist>', '<n|dist|list>'), help: `${f.help}; in a sweep, a list such as 256,1024,4096 is a grid axis: every ${LENGTH_AXES[k]} length crossed with every level` }]
        : [k, f],
    ),
);

/** A plain list of two or more lengths ("256,1024", [256, 1024]): a grid axis, not a run's length or distribution. */
export function lengthAxis(v: unknown): number[] | undefined {
  const items = Array.isArray(v) ? v : typeof v === 'string' && /^\s*\d+(\s*,\s*\d+)+\s*,?\s*$/.test(v) ? v.split(',').filter((x) => x.trim()) : undefined;
  if (!items || (Array.isArray(v) && v.length < 1)) return undefined;
  return items.map((x) => Number(String(x).trim()));
}

/** Error rate above which a level counts as failed when --max-error-rate is not given (runs are then not stopped early). */
export const DEFAULT_LEVEL_MAX_ERROR_RATE = 0.05;

export interface SweepConfig extends Omit<SweepParsed, 'inputOutput' | 'slo'> {
  mode: LoadMode;
  pairs: InputOutput[];
  /** A level whose error rate exceeds this failed (--max-error-rate, passed to every run too; default 5%). */
  maxErrorRate: number;
  slo: Slo | undefined;
  /** With --auto --slo: when the bisection stops (--auto-precision, or its default for the mode). */
  searchPrecision: Precision;
  /** The grid (empty with --auto: its points are chosen as it goes). */
  points: PointSpec[];
  /** What the run flags configure when the sweep leaves lengths to them (rows' `lengths`), e.g. "in normal:512,64 out 128". */
  configuredLengths: string;
  /** The KIND=URL values of --out (live metrics pushed for the whole sweep). */
  outputs: OutputSpec[];
}

export interface ResolvedSweep {
  sweep: SweepConfig;
  /** Run flags passed to every point (camelCase keys of RunConfigInput). */
  runFlags: Record<string, unknown>;
  /** The run config of the first point, validated (for the model, base URL and tokenizer). */
  base: ResolvedRun;
  /** What came from where, one line each (printed on stderr): e.g. the grid file's model, or a flag that overrides it. */
  notes: string[];
  /** With --simulate: the engine every point is predicted on (points run on the virtual driver). */
  engine?: SweepEngine;
}

/** Split a YAML/JSON sweep file into sweep keys and run keys (read like a run's --config); unknown keys are problems. */
export function readSweepFile(path: string): { sweep: Record<string, unknown>; run: Record<string, unknown>; problems: string[] } {
  const sweepKeys = Object.keys(SweepSchema.shape);
  // shard and start-at are read to be refused by name (unshardedProblems), not as unknown keys.
  const { values, problems } = readConfigFile(path, [...sweepKeys, ...Object.keys(PASS_THROUGH_RUN_FLAGS), ...Object.keys(SHARD_FLAGS)]);
  const out = { sweep: {} as Record<string, unknown>, run: {} as Record<string, unknown>, problems };
  for (const [key, v] of Object.entries(values)) (sweepKeys.includes(key) ? out.sweep : out.run)[key] = v;
  return out;
}

/** Pair a per-point list with the levels: one value applies to all, a list must match the levels one to one. */
function pairWith<T>(name: string, values: T[] | undefined, n: number, problems: string[]): (T | undefined)[] {
  if (!values) return new Array<T | undefined>(n).fill(undefined);
  if (values.length === 1) return new Array<T>(n).fill(values[0]);
  if (values.length !== n) problems.push(`--${name}: ${values.length} values for ${n} levels; give one value or one per level`);
  return Array.from({ length: n }, (_, i) => values[i]);
}

function loadSteps(s: SweepParsed, problems: string[]): { mode: LoadMode; steps: LoadStep[] } {
  if (s.points) {
    const modes = new Set(s.points.map((p) => (p.rate !== undefined ? 'rate' : 'concurrency')));
    s.points.forEach((p, i) => {
      if ((p.rate === undefined) === (p.concurrency === undefined)) problems.push(`points[${i}]: give exactly one of concurrency or rate`);
    });
    if (modes.size > 1) problems.push('points: mix of concurrency and rate points; a sweep varies one of them');
    const mode: LoadMode = modes.has('rate') ? 'rate' : 'concurrency';
    return { mode, steps: s.points.map((p) => ({ load: (p.rate ?? p.concurrency) as number, requests: p.requests ?? s.requests?.[0], durationS: p.duration ?? s.duration?.[0] })) };
  }
  const mode: LoadMode = s.rate ? 'rate' : 'concurrency';
  const loads = s.rate ?? s.concurrency ?? [];
  const req = pairWith('requests', s.requests, loads.length, problems);
  const dur = pairWith('duration', s.duration, loads.length, problems);
  return { mode, steps: loads.map((load, i) => ({ load, requests: req[i], durationS: dur[i] })) };
}

/** The run flags that set a pair's lengths (none for AS_CONFIGURED). */
export function lengthFlags(io: InputOutput): { inputTokens?: number; outputTokens?: number } {
  // A side of 0 is left to the run flags (a length list on the other side only, before their defaults are known).
  return isAsConfigured(io) ? {} : { ...(io.input ? { inputTokens: io.input } : {}), ...(io.output ? { outputTokens: io.output } : {}) };
}

type LengthConfig = Pick<RunConfig, 'inputTokens' | 'outputTokens' | 'maxTokens' | 'mix' | 'dataset' | 'replay' | 'prefixTokens' | 'cacheAb'>;

/**
 * The pair every request of the run flags has, when they fix one: fixed input and output lengths (defaults,
 * `fixed:N`) without a dataset, replay, mix, shared prefix or --max-tokens override. Otherwise undefined.
 */
export function fixedLengths(c: LengthConfig): InputOutput | undefined {
  if (c.dataset || c.replay || c.mix || c.prefixTokens || c.maxTokens !== undefined || c.cacheAb) return undefined;
  const input = fixedLength(c.inputTokens);
  const output = fixedLength(c.outputTokens);
  return input && output ? { input, output } : undefined;
}

/** The length a spec always gives (N, fixed:N), or undefined for a distribution. */
function fixedLength(spec: string | number): number | undefined {
  try {
    const d = parseLengthDist(spec);
    return d.kind === 'fixed' ? Math.min(d.max, Math.max(d.min, d.value)) : undefined;
  } catch {
    return undefined;
  }
}

/** --input-tokens/--output-tokens lists taken out of the run flags (which then keep any single value). */
function lengthAxes(runFlags: Record<string, unknown>, problems: string[]): { input?: number[]; output?: number[] } {
  const axes: { input?: number[]; output?: number[] } = {};
  for (const [key, which] of Object.entries(LENGTH_AXES) as [string, 'input' | 'output'][]) {
    const list = lengthAxis(runFlags[key]);
    if (!list) continue;
    if (!list.length || list.some((n) => !Number.isInteger(n) || n <= 0))
      problems.push(`--${which}-tokens: a list of lengths takes positive whole numbers, e.g. 256,1024,4096; got "${String(runFlags[key])}"`);
    axes[which] = list;
    delete runFlags[key];
  }
  return axes;
}

/**
 * Points of a --grid file, with --requests/--duration as defaults for points that set neither. The file's model,
 * base_url and tokenizer fill the run flags not given (flags and --config win); `notes` says which applies.
 */
function gridFilePoints(s: SweepParsed, axes: { input?: number[]; output?: number[] }, runFlags: Record<string, unknown>, notes: string[], problems: string[]): PointSpec[] {
  const clash = [
    s.concurrency && '--concurrency', s.rate && '--rate', s.points && 'points', s.inputOutput !== undefined && '--input-output',
    axes.input && '--input-tokens LIST', axes.output && '--output-tokens LIST', s.auto && '--auto',
  ].filter(Boolean);
  if (clash.length) problems.push(`--grid: the grid file sets every point's load and lengths; drop ${clash.join(', ')}`);
  if ((s.requests?.length ?? 1) > 1 || (s.duration?.length ?? 1) > 1) problems.push('--requests/--duration: with --grid give one value, the default for points that set no requests/num_prompts or duration');
  const r = readGridFile(s.grid as string);
  problems.push(...r.problems);
  for (const [k, name] of Object.entries(GRID_RUN_KEYS) as [keyof GridRunKeys, string][]) {
    const v = r.run[k];
    if (v === undefined) continue;
    const flag = `--${k === 'baseUrl' ? 'base-url' : k}`;
    if (runFlags[k] !== undefined) {
      notes.push(`--grid ${s.grid}: ${name} ${v} not used: ${flag} ${String(runFlags[k])} is given`);
      continue;
    }
    // The seed file names the model's hub tokenizer, which vLLM downloads and tokenflood does not: without a local
    // copy the sweep counts with the default tokenizer and says so, so that the file still runs unchanged.
    if (k === 'tokenizer' && !tokenizerFound(v)) {
      notes.push(`--grid ${s.grid}: tokenizer ${v} not used: no local copy (tokenflood downloads nothing; docs/vllm-compat.md#tokenizer), prompt lengths are counted with ${DEFAULT_TOKENIZER}; give --tokenizer to choose`);
      continue;
    }
    // The seed workflow's base_url is the server's origin (vLLM's meaning): the OpenAI API is under /v1.
    const url = k === 'baseUrl' && /^https?:\/\/[^/]+\/?$/i.test(v) ? `${v.replace(/\/+$/, '')}/v1` : v;
    runFlags[k] = url;
    notes.push(`--grid ${s.grid}: ${name} ${v} = ${flag} ${url}`);
  }
  return r.points.map((p: GridPoint) => makePoint(p.mode, { load: p.load, requests: p.requests ?? s.requests?.[0], durationS: p.durationS ?? (p.requests === undefined ? s.duration?.[0] : undefined) }, p.io));
}

/** Plain words for the lengths the run flags configure, for rows that leave lengths to them. */
export function describeLengths(c: LengthConfig): string {
  if (c.replay) return `replay ${c.replay}`;
  if (c.dataset) return `dataset ${c.dataset}${c.maxTokens !== undefined ? `, max_tokens ${c.maxTokens}` : ''}`;
  if (c.mix) return `mix ${c.mix}${c.maxTokens !== undefined ? `, max_tokens ${c.maxTokens}` : ''}`;
  const prefix = c.prefixTokens ? `${c.prefixTokens} prefix + ` : '';
  return `in ${prefix}${c.inputTokens} out ${c.maxTokens ?? c.outputTokens}`;
}

export interface ResolveSweepInput {
  /** Sweep flags given on the command line. */
  flags: Record<string, unknown>;
  /** Run flags given on the command line. */
  runFlags: Record<string, unknown>;
  configFile?: string;
  env?: NodeJS.ProcessEnv;
  /** Engine options given for --simulate (camelCase keys of the simulate command's engine flags). */
  engineFlags?: Record<string, unknown>;
}

/** --auto-precision: "5%" is relative to the highest passing load, a plain number a step in load units; default 1 (concurrency) or 5% (rate). */
export function parsePrecision(text: string | undefined, mode: LoadMode): Precision {
  if (text === undefined) return mode === 'concurrency' ? { kind: 'absolute', value: 1 } : { kind: 'relative', value: 0.05 };
  const t = text.trim();
  return t.endsWith('%') ? { kind: 'relative', value: Number(t.slice(0, -1)) / 100 } : { kind: 'absolute', value: Number(t) };
}

/** The --auto-* flags (and --min-gain/--refine) given where they would do nothing. */
function autoFlagProblems(s: SweepParsed, given: Record<string, unknown>): string[] {
  const out: string[] = [];
  const has = (k: keyof SweepParsed) => given[k] !== undefined;
  const name = (k: keyof SweepParsed) => (SWEEP_FLAGS as FlagTable)[k].name;
  if (!s.auto) {
    for (const k of ['autoMode', 'autoRates', 'autoPrecision', 'autoMaxRuns', 'thenGrid'] as const) if (has(k)) out.push(`${name(k)}: only with --auto`);
    return out;
  }
  const search = s.slo !== undefined;
  const profile = !search && s.autoMode === 'rate';
  if (has('autoRates') && !profile) out.push(`${name('autoRates')}: only for the open-loop profile (--auto --auto-mode rate without --slo)`);
  for (const k of ['autoPrecision', 'autoMaxRuns'] as const) if (has(k) && !search) out.push(`${name(k)}: only with --auto --slo (the SLO search)`);
  for (const k of ['minGain', 'refine'] as const)
    if (has(k) && (search || profile)) out.push(`${name(k)}: only for the concurrency --auto search without --slo; ${search ? 'the SLO search bisects to --auto-precision' : 'the open-loop profile runs --auto-rates rates'}`);
  if (has('autoPrecision') && !(Number(parsePrecision(s.autoPrecision, s.autoMode).value) > 0)) out.push(`${name('autoPrecision')}: must be more than 0`);
  return out;
}

/** Validate a whole sweep before anything is sent; throws UsageError listing every problem. */
export function resolveSweepConfig(inp: ResolveSweepInput): ResolvedSweep {
  const problems: string[] = [];
  let file = { sweep: {} as Record<string, unknown>, run: {} as Record<string, unknown> };
  if (inp.configFile) {
    const r = readSweepFile(inp.configFile);
    problems.push(...r.problems);
    file = r;
  }
  const merged = { ...file.sweep, ...Object.fromEntries(Object.entries(inp.flags).filter(([, v]) => v !== undefined)) };
  const runFlags = { ...file.run, ...Object.fromEntries(Object.entries(inp.runFlags).filter(([, v]) => v !== undefined)) };
  // Remote outputs for the whole sweep, as for run: --push KIND=URL, or the old --out KIND=URL.
  const outs = splitOutputs(merged.out, runFlags.push);
  delete runFlags.push;
  problems.push(...outs.problems);
  if (outs.dir === undefined) delete merged.out;
  else merged.out = outs.dir;
  const parsed = SweepSchema.safeParse(merged);
  if (!parsed.success) {
    const name = (k: string) => (SWEEP_FLAGS as FlagTable)[k]?.name ?? k;
    throw new UsageError([...problems, ...describeIssues(parsed.error.issues, name)]);
  }
  const s = parsed.data;
  let slo: Slo | undefined;
  if (s.slo !== undefined) {
    try {
      slo = parseSlo(s.slo);
    } catch (e) {
      problems.push(...(e as UsageError).problems);
    }
  }
  const axes = lengthAxes(runFlags, problems);
  const notes: string[] = [...outs.notes];
  if (runFlags.resultFile !== undefined) problems.push('--result-file: a sweep writes vllm-result.json in each point\'s directory (--result-format vllm); one file would be overwritten by every point: drop --result-file');
  const gridPoints = s.grid !== undefined ? gridFilePoints(s, axes, runFlags, notes, problems) : undefined;
  let pairs: InputOutput[];
  if (gridPoints) pairs = [...new Map(gridPoints.map((p) => [`${p.inputTokens}x${p.outputTokens}`, { input: p.inputTokens, output: p.outputTokens }])).values()];
  else if (axes.input || axes.output) {
    if (s.inputOutput !== undefined) problems.push('--input-output and --input-tokens/--output-tokens lists: give the lengths one way');
    // The side without a list keeps the run flags' single length (filled in below, once their defaults are known).
    const ints = (v: unknown) => lengthAxis(v) ?? (v !== undefined && /^\d+$/.test(String(v).trim()) ? [Number(v)] : [0]);
    pairs = (axes.input ?? ints(runFlags.inputTokens)).flatMap((input) => (axes.output ?? ints(runFlags.outputTokens)).map((output) => ({ input, output })));
  } else if (s.inputOutput !== undefined) {
    const r = parseInputOutputList(s.inputOutput);
    for (const b of r.bad) problems.push(`--input-output: expected INPUTxOUTPUT such as 256x256, got "${b}"`);
    pairs = r.pairs;
  } else {
    // Plain numbers name the pair; anything else (defaults, distributions, datasets, mixes) is left to the run flags.
    const int = (v: unknown) => (typeof v === 'number' || (typeof v === 'string' && /^\d+$/.test(v.trim())) ? Number(v) : NaN);
    const io = { input: int(runFlags.inputTokens), output: int(runFlags.outputTokens) };
    pairs = Number.isInteger(io.input) && io.input > 0 && Number.isInteger(io.output) && io.output > 0 ? [io] : [AS_CONFIGURED];
  }
  if (s.rate && s.concurrency) problems.push('--rate and --concurrency: a sweep varies one of them; give one list');
  if (s.points && (s.rate || s.concurrency)) problems.push('points: give either a points list or --concurrency/--rate, not both');
  if (s.auto && (s.rate || s.points)) problems.push('--auto: chooses the levels itself; drop --rate/points (--auto-mode rate searches request rates)');
  problems.push(...autoFlagProblems(s, merged));
  if (!s.auto && !s.rate && !s.concurrency && !s.points && !s.grid) problems.push('sweep: give --concurrency LIST, --rate LIST, --grid FILE, a points list in the sweep file, or --auto');
  const { mode, steps } = gridPoints
    ? { mode: gridPoints[0]?.mode ?? ('concurrency' as const), steps: gridPoints.slice(0, 1).map((p) => ({ load: p.load })) }
    : s.auto
      ? { mode: s.autoMode, steps: [] }
      : loadSteps(s, problems);
  if (s.auto && (s.requests?.length ?? 1) > 1) problems.push('--requests: --auto takes one count per level');
  if (Array.isArray(runFlags.baseUrl)) {
    if (runFlags.baseUrl.length > 1) problems.push('--base-url: a sweep loads one endpoint: give it once');
    runFlags.baseUrl = runFlags.baseUrl[0];
  }
  problems.push(...embeddedSimProblems(s, runFlags.baseUrl as string | undefined));
  // A sweep sets each point's load itself; the user-centric executor is run's (its checks would blame the point's load).
  if (runFlags.users !== undefined || runFlags.userRate !== undefined) {
    problems.push(`${runFlags.users !== undefined ? '--users' : '--user-rate'}: a sweep sets each point's load (--concurrency or --rate list); a user-centric load is tokenflood run --users N --user-rate R`);
    delete runFlags.users;
    delete runFlags.userRate;
  }
  // Validate the run flags once, as the first point would use them.
  let base: ResolvedRun | undefined;
  const first = steps[0] ?? { load: 1 };
  const firstFlags = { ...runFlags, [mode]: first.load, ...lengthFlags(pairs[0] ?? AS_CONFIGURED), quiet: true };
  try {
    base = resolveRunConfig({ flags: firstFlags as RunConfigInput, env: inp.env, unsharded: 'sweep' });
  } catch (e) {
    if (e instanceof UsageError) problems.push(...e.problems);
    else throw e;
  }
  const engine = base ? resolveSweepEngine(s.simulate, inp.engineFlags ?? {}, firstFlags, merged, problems) : undefined;
  if (base && !axes.input !== !axes.output && !gridPoints) {
    // A list on one side only: the other side is the run flags' fixed length (or its default).
    const other = axes.input ? 'output' : 'input';
    const len = fixedLength(other === 'output' ? base.config.outputTokens : base.config.inputTokens);
    if (len === undefined || base.config.maxTokens !== undefined || base.config.dataset || base.config.mix || base.config.replay)
      problems.push(`--${axes.input ? 'input' : 'output'}-tokens LIST: needs a fixed --${other}-tokens (a number or a list), without --max-tokens, --dataset, --mix or --replay`);
    else pairs = pairs.map((io) => ({ ...io, [other]: len }));
  }
  if (problems.length || !base) throw new UsageError(problems);
  if (s.inputOutput === undefined && !gridPoints && !axes.input && !axes.output && isAsConfigured(pairs[0])) pairs = [fixedLengths(base.config) ?? AS_CONFIGURED];
  const { inputOutput: _io, slo: _slo, ...rest } = s;
  const maxErrorRate = (base.config as { maxErrorRate?: number }).maxErrorRate ?? DEFAULT_LEVEL_MAX_ERROR_RATE;
  const points = gridPoints ?? buildGrid(mode, steps, pairs);
  return { sweep: { ...rest, mode, pairs, slo, searchPrecision: parsePrecision(s.autoPrecision, mode), maxErrorRate, points, configuredLengths: describeLengths(base.config), outputs: outs.outputs }, runFlags, base, notes, ...(engine ? { engine } : {}) };
}
