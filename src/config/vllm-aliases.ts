// vLLM `bench serve` flag names on `tokenflood run`: each mapped to the tokenflood flag of the same meaning, or refused naming it.
import { Option, type Command } from 'commander';
import { parsePercentiles } from '../metrics/stats.js';

/** One vLLM flag: its commander term, and what it becomes in tokenflood (help text, docs/vllm-compat.md). */
interface AliasSpec {
  term: string;
  help: string;
  /** The tokenflood flag of the same meaning: giving both is refused. */
  same?: string;
}

/** vLLM's flags that tokenflood does not otherwise have, by attribute name (prefixed so they never meet a config key). */
export const VLLM_ALIASES = {
  vllmMaxConcurrency: { term: '--max-concurrency <n>', help: 'vLLM bench: = --concurrency (with a finite --request-rate: the cap on requests in flight)', same: 'concurrency' },
  vllmRequestRate: { term: '--request-rate <r|inf>', help: 'vLLM bench: = --rate R (poisson arrivals); inf = every request at once, as many in flight as --max-concurrency (default inf)', same: 'rate' },
  vllmNumPrompts: { term: '--num-prompts <n>', help: 'vLLM bench: = --requests (default 1000 with vLLM flags)', same: 'requests' },
  vllmNumWarmups: { term: '--num-warmups <n>', help: 'vLLM bench: = --warmup', same: 'warmup' },
  vllmRandomInputLen: { term: '--random-input-len <n>', help: 'vLLM bench: = --input-tokens (default 1024 with vLLM flags); spread by --random-range-ratio', same: 'inputTokens' },
  vllmRandomOutputLen: { term: '--random-output-len <n>', help: 'vLLM bench: = --output-tokens (default 128 with vLLM flags); spread by --random-range-ratio', same: 'outputTokens' },
  vllmRandomRangeRatio: { term: '--random-range-ratio <r>', help: 'vLLM bench: lengths uniform in [floor(len·(1−r)), ceil(len·(1+r))], 0 <= r < 1 (default 0: fixed)' },
  vllmRandomPrefixLen: { term: '--random-prefix-len <n>', help: 'vLLM bench: = --prefix-tokens (one shared prefix before every prompt)', same: 'prefixTokens' },
  vllmGoodput: { term: '--goodput <metric:ms...>', help: 'vLLM bench: per-request goodput limits ttft:MS tpot:MS e2el:MS, = --slo ttft_max=MSms,tpot_max=MSms,e2e_max=MSms' },
  vllmMetricPercentiles: { term: '--metric-percentiles <list>', help: 'vLLM bench: = --percentiles', same: 'percentiles' },
  vllmPercentileMetrics: { term: '--percentile-metrics <list>', help: 'vLLM bench: accepted and ignored (tokenflood gives percentiles of every metric)' },
  vllmDatasetName: { term: '--dataset-name <name>', help: 'vLLM bench: random = synthetic prompts; sharegpt (or custom, JSONL) with --dataset-path = --dataset PATH --dataset-format sharegpt (jsonl)' },
  vllmDatasetPath: { term: '--dataset-path <path>', help: 'vLLM bench: with --dataset-name sharegpt or custom, = --dataset PATH', same: 'dataset' },
  vllmSharegptOutputLen: { term: '--sharegpt-output-len <n>', help: 'vLLM bench: with --dataset-name sharegpt, every request\'s output length = --max-tokens N (instead of the recorded answer\'s)', same: 'maxTokens' },
  vllmIgnoreEos: { term: '--ignore-eos', help: 'send ignore_eos (tokenflood does by default; with other vLLM flags and without --ignore-eos, it does not, as vLLM; alone it brings no vLLM defaults)' },
  vllmSaveResult: { term: '--save-result', help: 'vLLM bench: also write vLLM\'s result JSON where vLLM would (--result-dir, --result-filename or vLLM\'s file name) = --result-format vllm --result-file PATH' },
  vllmSaveDetailed: { term: '--save-detailed', help: 'vLLM bench: = --result-format vllm (vllm-result.json holds the per-request lists and generated_texts)' },
  vllmResultDir: { term: '--result-dir <dir>', help: 'vLLM bench: with --save-result, the directory of its JSON file; tokenflood\'s own results stay in --out' },
  vllmResultFilename: { term: '--result-filename <name>', help: 'vLLM bench: with --save-result, the name of its JSON file (under --result-dir)' },
  vllmLabel: { term: '--label <text>', help: 'vLLM bench: = --result-label (the label of the result JSON and its file name)', same: 'resultLabel' },
  vllmMetadata: { term: '--metadata <KEY=VALUE...>', help: 'vLLM bench: = --result-metadata KEY=VALUE for each pair (top-level fields of the result JSON)', same: 'resultMetadata' },
  vllmServedModelName: { term: '--served-model-name <name>', help: 'vLLM bench: the model name sent in requests (= --model); vLLM\'s --model is then only its model id' },
  vllmTrustRemoteCode: { term: '--trust-remote-code', help: 'vLLM bench: accepted and ignored (tokenflood reads tokenizer.json as data and runs no model code)' },
  vllmDisableTqdm: { term: '--disable-tqdm', help: 'vLLM bench: = --quiet (no progress display)' },
  vllmRampUpStrategy: { term: '--ramp-up-strategy <linear|exponential>', help: 'vLLM bench: the request rate climbs from --ramp-up-start-rps to --ramp-up-end-rps over the requests = --stages of ten linear steps along vLLM\'s curve (docs/vllm-compat.md#ramp-up)' },
  vllmRampUpStartRps: { term: '--ramp-up-start-rps <r>', help: 'vLLM bench: with --ramp-up-strategy, the first request rate (req/s)' },
  vllmRampUpEndRps: { term: '--ramp-up-end-rps <r>', help: 'vLLM bench: with --ramp-up-strategy, the last request rate (req/s)' },
  vllmReadyCheckTimeoutSec: { term: '--ready-check-timeout-sec <s>', help: 'vLLM bench: accepted; tokenflood does not wait for the server to come up: its preflight checks it once and fails with the reason' },
} as const satisfies Record<string, AliasSpec>;

type AliasKey = keyof typeof VLLM_ALIASES;
const ALIAS_KEYS = Object.keys(VLLM_ALIASES) as AliasKey[];

/** The vLLM flag of an alias, for messages: "--max-concurrency". */
const flagOf = (k: AliasKey): string => VLLM_ALIASES[k].term.split(' ')[0];
const kebab = (key: string): string => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/** Aliases a sweep does not take: it sets the load of each point itself (its --max-concurrency is --auto's highest level). */
export const NOT_ON_SWEEP: readonly AliasKey[] = ['vllmMaxConcurrency', 'vllmRequestRate', 'vllmRampUpStrategy', 'vllmRampUpStartRps', 'vllmRampUpEndRps', 'vllmResultFilename'];

/** Segments of the --stages a vLLM ramp-up becomes; each sends an equal share of the requests. */
export const RAMP_SEGMENTS = 10;

/**
 * vLLM's ramp-up (serve.py): request i of N goes out at rate r(i/(N−1)), linear r(f) = start + (end − start)·f or
 * exponential r(f) = start·(end/start)^f, so the rate climbs along the requests, not the clock. As --stages: ten
 * linear-in-time segments between r(k/10) and r((k+1)/10), each lasting the time its N/10 requests take at the mean of
 * its two rates (2·(N/10)/(r_k + r_k+1)), after a 1 ms step to the start rate, then a hold at the end rate for
 * stragglers (--requests N stops the run).
 */
export function vllmRampStages(strategy: 'linear' | 'exponential', start: number, end: number, n: number): string {
  const rate = (f: number) => (strategy === 'linear' ? start + (end - start) * f : start * (end / start) ** f);
  const fmt = (x: number) => String(Math.round(x * 1000) / 1000);
  const out = [`0.001s:${fmt(start)}/s`];
  for (let k = 0; k < RAMP_SEGMENTS; k++) {
    const [a, b] = [rate(k / RAMP_SEGMENTS), rate((k + 1) / RAMP_SEGMENTS)];
    out.push(`${fmt(Math.max(0.001, (2 * (n / RAMP_SEGMENTS)) / (a + b)))}s:${fmt(b)}/s`);
  }
  out.push(`${fmt(Math.max(1, (0.25 * n) / end))}s:${fmt(end)}/s`);
  return out.join(',');
}

/** vLLM's file name for --save-result without --result-filename ({model} and {date} are filled in at the end of the run). */
export function vllmResultFileName(o: { label: string; rate: number | undefined; maxConcurrency?: number; ramp?: { strategy: string; start: number; end: number } }): string {
  // Python's str(float): 5 → "5.0", inf → "inf".
  const py = (x: number) => (Number.isInteger(x) ? `${x}.0` : String(x));
  const conc = o.maxConcurrency !== undefined ? `-concurrency${o.maxConcurrency}` : '';
  if (o.ramp) return `${o.label}-ramp-up-${o.ramp.strategy}-${o.ramp.start}qps-${o.ramp.end}qps${conc}-{model}-{date}.json`;
  return `${o.label}-${o.rate === undefined ? 'inf' : py(o.rate)}qps${conc}-{model}-{date}.json`;
}

/** Register the aliases on a command (after its own flags), less `skip`. */
export function addVllmAliases(cmd: Command, skip: readonly AliasKey[] = []): void {
  for (const k of ALIAS_KEYS.filter((x) => !skip.includes(x))) {
    const opt = new Option(VLLM_ALIASES[k].term, VLLM_ALIASES[k].help);
    opt.attributeName = () => k;
    cmd.addOption(opt);
  }
}

/** The aliases given on `cmd`'s command line. */
export function givenVllmAliases(cmd: Command): Partial<Record<AliasKey, unknown>> {
  const values = cmd.opts();
  const out: Partial<Record<AliasKey, unknown>> = {};
  for (const k of ALIAS_KEYS) if (cmd.options.some((o) => o.attributeName() === k) && cmd.getOptionValueSource(k) === 'cli') out[k] = values[k];
  return out;
}

/** vLLM's backends that load /v1/completions (tokenflood's openai-completions); openai-chat is a tokenflood kind already. */
const COMPLETIONS_BACKENDS = new Set(['openai', 'vllm']);

/** vLLM's defaults where they differ from tokenflood's (vllm/benchmarks/datasets/arg_utils.py, serve.py). */
export const VLLM_DEFAULTS = { numPrompts: 1000, randomInputLen: 1024, randomOutputLen: 128, endpoint: '/v1/completions' } as const;

export interface VllmMapping {
  /** The run flags with every alias replaced by its tokenflood flag. */
  flags: Record<string, unknown>;
  /** What was mapped, defaulted or ignored, one line each (printed on stderr). */
  notes: string[];
  problems: string[];
}

function intOf(k: AliasKey, v: unknown, min: number, problems: string[]): number | undefined {
  const n = Number(v);
  if (typeof v === 'string' && /^\d+$/.test(v.trim()) && n >= min) return n;
  problems.push(`${flagOf(k)}: expected a whole number${min > 0 ? ' of at least 1' : ''}, got "${String(v)}"`);
  return undefined;
}

/** A vLLM random length with range ratio r as a tokenflood length: N, or uniform:LO,HI with LO = max(1, floor(N·(1−r))), HI = ceil(N·(1+r)). */
export function vllmLength(n: number, r: number): string {
  if (r === 0) return String(n);
  const lo = Math.max(1, Math.floor(n * (1 - r)));
  return `uniform:${lo},${Math.max(lo, Math.ceil(n * (1 + r)))}`;
}

/** vLLM's --goodput pairs (ttft:500 tpot:50 e2el:1000) as --slo objectives: a request is good when each of its values is at most the limit. */
export function goodputSlo(pairs: readonly string[], problems: string[]): string | undefined {
  const names: Record<string, string> = { ttft: 'ttft_max', tpot: 'tpot_max', e2el: 'e2e_max' };
  const out: string[] = [];
  for (const p of pairs.flatMap((x) => x.split(/[\s,]+/)).filter(Boolean)) {
    const m = /^([a-z0-9_]+):(\d+(?:\.\d+)?)$/.exec(p.trim());
    if (!m || !Object.hasOwn(names, m[1])) problems.push(`--goodput: expected ttft:MS, tpot:MS or e2el:MS (milliseconds, as vLLM), got "${p}"; other objectives go in --slo`);
    else out.push(`${names[m[1]]}=${m[2]}ms`);
  }
  return out.length ? out.join(',') : undefined;
}

/** The API and the path under the base URL that a vLLM --endpoint names: /v1/chat/completions → chat under /v1. */
function endpointOf(path: string): { endpoint: 'chat' | 'completions'; dir: string } | undefined {
  const m = /^(.*?)\/(chat\/completions|completions)\/?$/.exec(path);
  return m ? { endpoint: m[2] === 'completions' ? 'completions' : 'chat', dir: m[1] } : undefined;
}

/** A vLLM base URL (an origin, the API path comes from --endpoint) as tokenflood's: the origin plus the endpoint's directory. */
function withApiDir(url: string, dir: string): string {
  const trimmed = url.replace(/\/+$/, '');
  return dir && !trimmed.endsWith(dir) ? `${trimmed}${dir}` : trimmed;
}

/** --ramp-up-strategy with its start and end rates, checked as vLLM checks them, as --stages (vllmRampStages). */
function rampUp(a: Partial<Record<AliasKey, unknown>>, flags: Record<string, unknown>, given: Record<string, unknown>, rateText: string | undefined, problems: string[], notes: string[]): { strategy: string; start: number; end: number } | undefined {
  const any = a.vllmRampUpStrategy !== undefined || a.vllmRampUpStartRps !== undefined || a.vllmRampUpEndRps !== undefined;
  if (!any) return undefined;
  const strategy = a.vllmRampUpStrategy === undefined ? undefined : String(a.vllmRampUpStrategy);
  if (strategy === undefined) return void problems.push('--ramp-up-start-rps/--ramp-up-end-rps: give --ramp-up-strategy linear or exponential too, as vLLM');
  if (strategy !== 'linear' && strategy !== 'exponential') return void problems.push(`--ramp-up-strategy: expected linear or exponential, got "${strategy}"`);
  if (a.vllmRampUpStartRps === undefined || a.vllmRampUpEndRps === undefined) return void problems.push('--ramp-up-strategy: give both --ramp-up-start-rps and --ramp-up-end-rps, as vLLM');
  const start = intOf('vllmRampUpStartRps', a.vllmRampUpStartRps, 0, problems);
  const end = intOf('vllmRampUpEndRps', a.vllmRampUpEndRps, 1, problems);
  if (start === undefined || end === undefined) return undefined;
  if (start > end) return void problems.push(`--ramp-up-start-rps ${start}: must not be above --ramp-up-end-rps ${end}, as vLLM`);
  if (strategy === 'exponential' && start === 0) return void problems.push('--ramp-up-start-rps: an exponential ramp-up cannot start at 0, as vLLM');
  if ((rateText !== undefined && rateText !== 'inf') || given.rate !== undefined || given.stages !== undefined) return void problems.push('--ramp-up-strategy: the ramp sets the request rate: drop --request-rate/--rate/--stages, as vLLM');
  const n = typeof flags.requests === 'number' ? flags.requests : given.requests === undefined && given.duration === undefined ? VLLM_DEFAULTS.numPrompts : Number(given.requests);
  if (!(n >= 1)) return void problems.push('--ramp-up-strategy: the ramp spreads --num-prompts requests; give --num-prompts rather than --duration');
  flags.requests ??= n;
  flags.stages = vllmRampStages(strategy, start, end, n);
  notes.push(`--ramp-up-strategy ${strategy} ${start} → ${end} req/s over ${n} requests = --stages ${String(flags.stages)}`);
  return { strategy, start, end };
}

/** vLLM's result flags: --save-result writes its JSON where vLLM would; --save-detailed, --label and --metadata shape it. */
function results(
  a: Partial<Record<AliasKey, unknown>>,
  flags: Record<string, unknown>,
  given: Record<string, unknown>,
  o: { backend: string | undefined; maxConc: number | undefined; ramp: { strategy: string; start: number; end: number } | undefined; sweep: boolean },
  problems: string[],
  notes: string[],
): void {
  if (a.vllmLabel !== undefined) flags.resultLabel = String(a.vllmLabel);
  const items = a.vllmMetadata === undefined ? [] : (Array.isArray(a.vllmMetadata) ? a.vllmMetadata : [a.vllmMetadata]).map(String).flatMap((x) => x.split(/\s+/)).filter(Boolean);
  for (const it of items) if (!/^[^=]+=/.test(it)) problems.push(`--metadata: expected KEY=VALUE, as vLLM, got "${it}"`);
  // The ramp goes into the result JSON as vLLM writes it (report/compat/vllm-result.ts reads these three back).
  if (o.ramp) items.push(`ramp_up_strategy=${o.ramp.strategy}`, `ramp_up_start_rps=${o.ramp.start}`, `ramp_up_end_rps=${o.ramp.end}`);
  if (items.length) flags.resultMetadata = items;
  const wants = a.vllmSaveResult !== undefined || a.vllmSaveDetailed !== undefined;
  if (!wants) {
    if (a.vllmResultDir !== undefined || a.vllmResultFilename !== undefined) notes.push('--result-dir/--result-filename ignored without --save-result (vLLM writes no file then either); the results directory is --out DIR');
    return;
  }
  if (given.resultFormat === 'tokenflood') return void problems.push('--save-result/--save-detailed: write vLLM\'s result JSON, and --result-format tokenflood is given: give one of the two');
  flags.resultFormat = 'vllm';
  if (a.vllmSaveDetailed !== undefined) notes.push('--save-detailed = --result-format vllm: vllm-result.json in the results directory, with the per-request lists and generated_texts');
  if (a.vllmSaveResult === undefined) return;
  if (o.sweep) return void notes.push('--save-result = --result-format vllm: each sweep point writes its own vllm-result.json in its directory');
  if (given.resultFile !== undefined) return void problems.push('--save-result: names the result file as vLLM does, and --result-file is given too: give one of the two');
  const label = a.vllmLabel !== undefined ? String(a.vllmLabel) : (o.backend ?? 'openai');
  const name = a.vllmResultFilename !== undefined ? String(a.vllmResultFilename) : vllmResultFileName({ label, rate: typeof flags.rate === 'number' ? flags.rate : undefined, maxConcurrency: o.maxConc, ramp: o.ramp });
  const dir = a.vllmResultDir !== undefined ? String(a.vllmResultDir) : '.';
  flags.resultFile = name.startsWith('/') ? name : `${dir.replace(/\/+$/, '') || '/'}/${name}`;
  notes.push(`--save-result = --result-format vllm --result-file ${String(flags.resultFile)} (also vllm-result.json in the results directory; the file holds --save-detailed's per-request lists too)`);
}

/**
 * Replace vLLM's flags by tokenflood's. Only when some vLLM flag is given (an alias, --backend openai|vllm or an
 * --endpoint path) do vLLM's meanings and defaults apply to the shared names: --seed seeds the workload
 * (--dataset-seed), --base-url is an origin, no --ignore-eos means none is sent, and the vLLM defaults above.
 */
export function mapVllmFlags(aliases: Partial<Record<AliasKey, unknown>>, given: Record<string, unknown>, opts: { sweep?: boolean } = {}): VllmMapping {
  const flags = { ...given };
  const notes: string[] = [];
  const problems: string[] = [];
  const backend = typeof flags.backend === 'string' ? flags.backend : undefined;
  const endpointPath = typeof flags.endpoint === 'string' && flags.endpoint.startsWith('/') ? flags.endpoint : undefined;
  // --ignore-eos alone is also what a tokenflood user may type (the default, spelled out): it is no sign of a pasted
  // vLLM command line, so it must not bring vLLM's defaults (1,000 prompts all at once).
  const vllm = Object.keys(aliases).some((k) => k !== 'vllmIgnoreEos') || (backend !== undefined && COMPLETIONS_BACKENDS.has(backend)) || endpointPath !== undefined;
  if (!vllm) {
    if (aliases.vllmIgnoreEos !== undefined) {
      if (given.ignoreEos === false) problems.push('--ignore-eos: --no-ignore-eos is given too: give one of the two');
      flags.ignoreEos = true;
    }
    return { flags, notes, problems };
  }
  for (const k of ALIAS_KEYS) {
    const same = (VLLM_ALIASES[k] as AliasSpec).same;
    if (aliases[k] !== undefined && same && given[same] !== undefined) problems.push(`${flagOf(k)}: means ${kebab(same)}, which is given too: give one of the two`);
  }
  const a = aliases;

  // The API: vLLM's backend openai/vllm and its default endpoint load /v1/completions.
  if (backend !== undefined && COMPLETIONS_BACKENDS.has(backend)) {
    flags.backend = 'openai-completions';
    notes.push(`--backend ${backend} = --backend openai-completions`);
  }
  // No --endpoint and no --backend: vLLM's default, /v1/completions. --backend and --endpoint must then agree (config/load.ts).
  const path = endpointPath ?? (flags.endpoint === undefined && flags.backend === undefined ? VLLM_DEFAULTS.endpoint : undefined);
  const ep = path === undefined ? undefined : endpointOf(path);
  if (path !== undefined && !ep) problems.push(`--endpoint: ${path}: tokenflood loads /chat/completions or /completions under --base-url; give --endpoint chat|completions, or --backend for other APIs (docs/backends.md)`);
  if (ep) {
    if (endpointPath === undefined) notes.push(`no --endpoint: vLLM's default ${VLLM_DEFAULTS.endpoint} = --endpoint completions`);
    flags.endpoint = ep.endpoint;
  }
  const urls = flags.baseUrl;
  if (typeof urls === 'string' || Array.isArray(urls)) {
    const fix = (u: unknown) => (typeof u === 'string' ? withApiDir(u, ep?.dir ?? '/v1') : u);
    flags.baseUrl = Array.isArray(urls) ? urls.map(fix) : fix(urls);
    if (JSON.stringify(flags.baseUrl) !== JSON.stringify(urls)) notes.push(`--base-url is the server's origin in vLLM (the path comes from --endpoint): --base-url ${String(Array.isArray(flags.baseUrl) ? flags.baseUrl[0] : flags.baseUrl)}`);
  }

  // The dataset: random (synthetic prompts), or a file vLLM reads as sharegpt or custom (JSONL with "prompt").
  const fileFormats: Record<string, string> = { sharegpt: 'sharegpt', custom: 'jsonl' };
  const dsName = a.vllmDatasetName === undefined ? undefined : String(a.vllmDatasetName);
  if (dsName !== undefined && dsName !== 'random' && !Object.hasOwn(fileFormats, dsName))
    problems.push(`--dataset-name: ${dsName} is not supported: use random (tokenflood's synthetic prompts), sharegpt or custom with --dataset-path FILE, or --dataset FILE (docs/workloads.md)`);
  else if (dsName !== undefined && Object.hasOwn(fileFormats, dsName)) {
    if (a.vllmDatasetPath === undefined) problems.push(`--dataset-name ${dsName}: give the file with --dataset-path, as vLLM`);
    else {
      flags.dataset = String(a.vllmDatasetPath);
      if (given.datasetFormat === undefined) flags.datasetFormat = fileFormats[dsName];
      notes.push(`--dataset-name ${dsName} --dataset-path ${String(a.vllmDatasetPath)} = --dataset ${String(a.vllmDatasetPath)} --dataset-format ${String(flags.datasetFormat)}`);
    }
  } else if (a.vllmDatasetPath !== undefined)
    problems.push(`--dataset-path: vLLM reads a file with --dataset-name sharegpt or custom${dsName === 'random' ? ', not random (synthetic prompts)' : ''}; give one of them, or --dataset FILE`);
  if (a.vllmSharegptOutputLen !== undefined) {
    if (dsName !== 'sharegpt') problems.push(`--sharegpt-output-len: vLLM applies it to --dataset-name sharegpt only${dsName ? `, not ${dsName}` : ''}; give --max-tokens N for other prompts`);
    else {
      const n = intOf('vllmSharegptOutputLen', a.vllmSharegptOutputLen, 1, problems);
      if (n !== undefined) {
        flags.maxTokens = n;
        notes.push(`--sharegpt-output-len ${n} = --max-tokens ${n}`);
      }
    }
  }
  const ownLengths = flags.dataset !== undefined || flags.replay !== undefined || flags.mix !== undefined;

  // Lengths: vLLM's defaults (1024 in, 128 out), spread by the range ratio.
  let ratio = 0;
  if (a.vllmRandomRangeRatio !== undefined) {
    ratio = Number(a.vllmRandomRangeRatio);
    if (!/^\d*\.?\d+$/.test(String(a.vllmRandomRangeRatio).trim()) || !(ratio >= 0 && ratio < 1)) {
      problems.push(`--random-range-ratio: expected a number with 0 <= r < 1, as vLLM, got "${String(a.vllmRandomRangeRatio)}"`);
      ratio = 0;
    }
  }
  const length = (k: 'vllmRandomInputLen' | 'vllmRandomOutputLen', key: 'inputTokens' | 'outputTokens', dflt: number) => {
    if (a[k] !== undefined) {
      const n = intOf(k, a[k], 1, problems);
      if (n !== undefined) flags[key] = vllmLength(n, ratio);
    } else if (given[key] === undefined && !ownLengths) {
      flags[key] = vllmLength(dflt, ratio);
      notes.push(`no ${flagOf(k)}: vLLM's default ${dflt} = ${kebab(key)} ${String(flags[key])}`);
    } else if (ratio > 0 && given[key] !== undefined) problems.push(`--random-range-ratio: spreads ${flagOf(k)}, not ${kebab(key)}: give ${flagOf(k)}, or a distribution to ${kebab(key)} (e.g. uniform:MIN,MAX)`);
  };
  length('vllmRandomInputLen', 'inputTokens', VLLM_DEFAULTS.randomInputLen);
  length('vllmRandomOutputLen', 'outputTokens', VLLM_DEFAULTS.randomOutputLen);
  if (a.vllmRandomPrefixLen !== undefined) {
    const n = intOf('vllmRandomPrefixLen', a.vllmRandomPrefixLen, 0, problems);
    if (n !== undefined) flags.prefixTokens = n;
  }

  // The load: vLLM's --request-rate defaults to inf (every request at once, capped by --max-concurrency). A sweep sets
  // each point's load itself: there --num-prompts is the requests per point, with the sweep's default.
  if (a.vllmNumPrompts !== undefined) flags.requests = intOf('vllmNumPrompts', a.vllmNumPrompts, 1, problems);
  else if (!opts.sweep && given.requests === undefined && given.duration === undefined) {
    flags.requests = VLLM_DEFAULTS.numPrompts;
    notes.push(`no --num-prompts: vLLM's default ${VLLM_DEFAULTS.numPrompts} = --requests ${VLLM_DEFAULTS.numPrompts}`);
  }
  if (a.vllmNumWarmups !== undefined) flags.warmup = intOf('vllmNumWarmups', a.vllmNumWarmups, 0, problems);
  const maxConc = a.vllmMaxConcurrency !== undefined ? intOf('vllmMaxConcurrency', a.vllmMaxConcurrency, 1, problems) : undefined;
  const rateText = a.vllmRequestRate === undefined ? undefined : String(a.vllmRequestRate).trim().toLowerCase();
  const ramp = rampUp(a, flags, given, rateText, problems, notes);
  const inf = opts.sweep || ramp ? false : rateText === undefined ? given.rate === undefined && given.stages === undefined : rateText === 'inf' || rateText === 'infinity';
  if (rateText !== undefined && !inf) {
    const r = Number(rateText);
    if (!(r > 0) || !Number.isFinite(r)) problems.push(`--request-rate: expected requests per second (> 0) or inf, got "${String(a.vllmRequestRate)}"`);
    else flags.rate = r;
  }
  if (maxConc !== undefined) flags.concurrency = maxConc;
  else if (inf && given.concurrency === undefined && given.rate === undefined && given.stages === undefined) {
    // vLLM sends every prompt at time 0: as many in flight as there are requests.
    if (typeof flags.requests === 'number') {
      flags.concurrency = flags.requests;
      notes.push(`--request-rate inf without --max-concurrency sends every request at once: --concurrency ${flags.requests}`);
    } else problems.push('--request-rate: inf without --max-concurrency sends every request at once; with --duration give --max-concurrency');
  }

  // Objectives and percentiles.
  if (a.vllmGoodput !== undefined) {
    const slo = goodputSlo(Array.isArray(a.vllmGoodput) ? a.vllmGoodput.map(String) : [String(a.vllmGoodput)], problems);
    if (slo) {
      flags.slo = typeof given.slo === 'string' ? `${given.slo},${slo}` : slo;
      notes.push(`--goodput = --slo ${slo}`);
    }
  }
  if (a.vllmMetricPercentiles !== undefined) {
    const r = parsePercentiles(a.vllmMetricPercentiles, '--metric-percentiles');
    if ('problems' in r) problems.push(...r.problems);
    else flags.percentiles = r.percentiles.join(',');
  }
  if (a.vllmPercentileMetrics !== undefined) notes.push('--percentile-metrics ignored: tokenflood gives the percentiles of every metric');

  // Shared names whose vLLM meaning differs.
  if (given.seed !== undefined) {
    if (given.datasetSeed !== undefined) problems.push('--seed: with vLLM flags it seeds the workload, as --dataset-seed, which is given too: give one of the two');
    else {
      flags.datasetSeed = given.seed;
      delete flags.seed;
      notes.push(`--seed ${String(given.seed)} = --dataset-seed ${String(given.seed)} (vLLM's seed draws the prompts; it is not sent to the server)`);
    }
  }
  if (a.vllmIgnoreEos !== undefined) {
    if (given.ignoreEos === false) problems.push('--ignore-eos: --no-ignore-eos is given too: give one of the two');
    flags.ignoreEos = true;
  } else if (given.ignoreEos === undefined) {
    flags.ignoreEos = false;
    notes.push('no --ignore-eos: ignore_eos is not sent, so the server may stop before the output length (as vLLM; tokenflood alone sends it)');
  }
  results(a, flags, given, { backend, maxConc, ramp, sweep: opts.sweep === true }, problems, notes);

  // Flags of vLLM's that only change vLLM itself.
  if (a.vllmServedModelName !== undefined) {
    flags.model = String(a.vllmServedModelName);
    notes.push(`--served-model-name ${String(a.vllmServedModelName)} = --model ${String(a.vllmServedModelName)} (the name sent)${given.model !== undefined ? `; --model ${String(given.model)} is vLLM's model id, not sent` : ''}`);
  }
  if (a.vllmDisableTqdm !== undefined) {
    flags.quiet = true;
    notes.push('--disable-tqdm = --quiet');
  }
  if (a.vllmTrustRemoteCode !== undefined) notes.push('--trust-remote-code ignored: tokenflood reads tokenizer.json as data and runs no model code');
  if (a.vllmReadyCheckTimeoutSec !== undefined) {
    const n = intOf('vllmReadyCheckTimeoutSec', a.vllmReadyCheckTimeoutSec, 0, problems);
    if (n) notes.push(`--ready-check-timeout-sec ${n}: tokenflood does not wait for the server to come up; it checks it once before the run and stops with the reason (start the server first)`);
  }
  return { flags, notes, problems };
}
