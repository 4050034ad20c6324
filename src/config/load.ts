// Resolve a run config from flags, an optional YAML/JSON file and the environment; report every problem at once.
import { parseRouteSpec, unknownRuleTargets } from '../backends/route-rules.js';
import { loadShapeProblems } from './load-shape-checks.js';
import { MAX_CONFIG_BYTES, readTextFile } from '../util/read-file.js';
import { parseYaml } from '../util/yaml.js';
import { UsageError } from '../errors.js';
import { RunConfigSchema, RUN_FLAGS, describeIssues, type RunConfig, type RunConfigInput } from './schema.js';
import { parseSlo } from '../metrics/slo.js';
import { Once } from '../util/once.js';
import { embeddedSimProblems } from './embedded-sim.js';
import { uiProblems } from './ui.js';
import { repeatedRunsProblems } from './repeated-runs.js';
import { shardFromEnv, shardProblems, unshardedProblems, type UnshardedCommand } from './shard.js';
import { BACKENDS } from '../backends/registry.js';
import { configureCustomBackend, loadCustomBackend } from '../backends/custom.js';
import { backendConfigProblems } from '../backends/backend-config.js';
import { mediaNeeds } from '../backends/media-content.js';
import { createMediaPlan } from '../dataset/media-plan.js';
import { backendOf } from '../backends/registry.js';
import { rampPlan, stagesMs, type RampPlan } from '../scheduler/options.js';
import { replaysUncappedTrace } from '../dataset/trace/replay/uncapped.js';
import { liveMetricsProblems, splitOutputs } from './live-metrics.js';
import type { FlagTable } from '../util/flags.js';
import { apiKeyProblem, didYouMean, parseHeaders, toCamel, toKebab } from '../util/parse.js';
import { extraBaseUrlProblems, readTargetsFile, type TargetSpec } from './routing.js';
import { priorityProblems } from '../dataset/priority.js';

const KEYS = Object.keys(RUN_FLAGS);
const flagName = (key: string): string => (RUN_FLAGS as FlagTable)[key]?.name ?? key;

/**
 * Read a YAML or JSON config file whose keys are flag names (kebab-case, snake_case or camelCase).
 * Only a regular file of at most MAX_CONFIG_BYTES is read (a device such as /dev/zero would be read forever).
 */
export function readConfigFile(path: string, known: readonly string[] = KEYS, flag = '--config'): { values: Record<string, unknown>; problems: string[] } {
  const r = readTextFile(path, MAX_CONFIG_BYTES);
  if ('problem' in r) return { values: {}, problems: [`${flag}: ${path}: cannot read config file: ${r.problem}`] };
  let doc: unknown;
  try {
    doc = parseYaml(r.text);
  } catch (e) {
    return { values: {}, problems: [`${flag}: ${path}: cannot read config file: ${(e as Error).message.split('\n')[0]}`] };
  }
  if (doc === null || doc === undefined) return { values: {}, problems: [] };
  if (typeof doc !== 'object' || Array.isArray(doc)) return { values: {}, problems: [`${path}: expected a mapping of option: value`] };
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [rawKey, v] of Object.entries(doc as Record<string, unknown>)) {
    const key = toCamel(rawKey);
    if (!known.includes(key) || key === 'json') {
      const hint = didYouMean(key, known);
      problems.push(`${path}: unknown key "${rawKey}"${hint ? ` (did you mean "${toKebab(hint)}"?)` : ''}`);
      continue;
    }
    values[key] = key === 'header' && v && typeof v === 'object' && !Array.isArray(v)
      ? Object.entries(v as Record<string, unknown>).map(([k, x]) => `${k}: ${String(x)}`)
      : v;
  }
  return { values, problems };
}

export interface ResolveInput {
  /** Values from CLI flags (only the ones the user gave). */
  flags: Record<string, unknown>;
  /** Path of a YAML/JSON config file; flags override its values. */
  configFile?: string;
  env?: NodeJS.ProcessEnv;
  /** Set by sweep, simulate and eval: they refuse --shard/--start-at and ignore no Job's shard (only run shards). */
  unsharded?: UnshardedCommand;
}

export interface ResolvedRun {
  config: RunConfig;
  headers: Record<string, string>;
  /** Several endpoints (--base-url given more than once, or --targets); empty for one --base-url or the embedded server. */
  targets?: TargetSpec[];
  /** Lines for stderr: a deprecated spelling that was still read. */
  notes?: string[];
  /**
   * The validation ladder of the command this config was resolved for: every run() given this config (or a copy
   * spread from it, as --runs N and --short-baseline make) shares it, so the ladder is climbed once per command.
   */
  ladder?: Once<unknown>;
}

/** Validate everything before anything is sent. Throws UsageError listing all problems. */
export function resolveRunConfig(inp: ResolveInput): ResolvedRun {
  const problems: string[] = [];
  let fileValues: Record<string, unknown> = {};
  if (inp.configFile) {
    const r = readConfigFile(inp.configFile);
    fileValues = r.values;
    problems.push(...r.problems);
  }
  const env = inp.env ?? process.env;
  const merged: Record<string, unknown> = { ...fileValues };
  for (const [k, v] of Object.entries(inp.flags)) if (v !== undefined) merged[k] = v;
  let apiKeySource = inp.flags.apiKey !== undefined || !inp.configFile || fileValues.apiKey === undefined ? '--api-key' : `${inp.configFile}: api-key`;
  if (merged.apiKey === undefined) {
    const k = env.TOKENFLOOD_API_KEY || env.OPENAI_API_KEY;
    if (k) merged.apiKey = k;
    apiKeySource = env.TOKENFLOOD_API_KEY ? 'TOKENFLOOD_API_KEY' : 'OPENAI_API_KEY';
  }
  // --base-url may be repeated: the first stays `baseUrl` (server metrics, run.json), all of them become targets.
  let extraUrls: unknown[] = [];
  if (Array.isArray(merged.baseUrl)) [merged.baseUrl, ...extraUrls] = merged.baseUrl as unknown[];
  // Remote outputs: --push KIND=URL, or the old --out KIND=URL (k6's --out); at most one --out is the results directory.
  const outs = splitOutputs(merged.out, merged.push);
  problems.push(...outs.problems);
  if (outs.dir === undefined) delete merged.out;
  else merged.out = outs.dir;
  delete merged.push;
  merged.outputs = outs.outputs;
  if (inp.unsharded) {
    problems.push(...unshardedProblems(inp.unsharded, merged, env));
    delete merged.shard;
    delete merged.startAt;
  } else if (merged.shard === undefined) {
    // Kubernetes Indexed Jobs pass the shard in the environment (docs/distributed.md).
    const fromEnv = shardFromEnv(env);
    if (fromEnv.problem) problems.push(fromEnv.problem);
    else if (fromEnv.shard) merged.shard = fromEnv.shard;
  }
  const parsed = RunConfigSchema.safeParse(merged);
  problems.push(...extraBaseUrlProblems(extraUrls));
  if (!parsed.success) {
    problems.push(...describeIssues(parsed.error.issues, (k) => (inp.flags[k] !== undefined || !inp.configFile ? flagName(k) : `${inp.configFile}: ${toKebab(k)}`)));
    throw new UsageError(problems);
  }
  const c = parsed.data;
  const { headers, bad } = parseHeaders(c.header);
  const headerSource = inp.flags.header !== undefined || !inp.configFile ? '--header' : `${inp.configFile}: header`;
  for (const b of bad) problems.push(`${headerSource}: ${b}`);
  // The key goes into the Authorization header, so it obeys the same rule as a header value (never quoted).
  if (c.apiKey !== undefined) {
    const keyBad = apiKeyProblem(c.apiKey);
    if (keyBad) problems.push(`${apiKeySource}: ${keyBad}`);
  }
  // The per-request id replaces a fixed value of the same header: ask for one or the other.
  const idClash = c.requestId ? Object.keys(headers).find((k) => k.toLowerCase() === c.requestIdHeader.toLowerCase()) : undefined;
  if (idClash) problems.push(`${headerSource}: ${idClash} is the per-request id header (--request-id-header ${c.requestIdHeader}): give --no-request-id to send your own value`);
  if (c.burstiness !== 1 && c.arrival !== 'gamma') problems.push('--burstiness: only applies with --arrival gamma');
  const ramp = rampProblems(c, merged, problems);
  if (c.rate === undefined && ramp?.of !== 'rate' && merged.arrival !== undefined) problems.push('--arrival: only applies with --rate');
  // custom-sse/custom-ndjson take their path, body and field mapping from --backend-config (docs/backends.md#native-engine-backends-and-custom-gateways).
  const custom = c.backend === 'custom-sse' || c.backend === 'custom-ndjson';
  configureCustomBackend(null);
  if (custom && !c.backendConfig) problems.push(`--backend-config: --backend ${c.backend} needs a file with its request template and response mapping`);
  else if (!custom && c.backendConfig && c.backend !== 'websocket') problems.push('--backend-config: only applies with --backend custom-sse, custom-ndjson or websocket');
  else if (custom) {
    const r = loadCustomBackend(c.backendConfig!);
    if ('problems' in r) problems.push(...r.problems);
    else configureCustomBackend(r.spec);
  }
  if (c.backend && !c.stream && BACKENDS[c.backend].streamOnly) problems.push(`--no-stream: --backend ${c.backend} always streams (its path is generate_stream); drop --no-stream`);
  // --backend names the protocol, --endpoint the same thing in older words: given together they must agree.
  if (c.backend && merged.endpoint !== undefined && BACKENDS[c.backend].endpoint !== c.endpoint)
    problems.push(`--backend: ${c.backend} loads --endpoint ${BACKENDS[c.backend].endpoint}, not --endpoint ${c.endpoint}: give one of the two`);
  else if (c.backend) c.endpoint = BACKENDS[c.backend].endpoint;
  if (c.tools && !['openai-chat', undefined].includes(c.backend as string | undefined)) problems.push(`--tools: tool definitions are sent in OpenAI chat bodies only (--backend openai-chat), not --backend ${c.backend}`);
  else if (c.tools && c.endpoint !== 'chat') problems.push('--tools: tool definitions go with --endpoint chat, not completions');
  problems.push(...backendConfigProblems(c));
  problems.push(...priorityProblems(c));
  problems.push(...mediaProblems(c));
  if (c.slo)
    try {
      parseSlo(c.slo);
    } catch (e) {
      problems.push(...((e as UsageError).problems ?? [String(e)]));
    }
  if (c.failOnSlo && !c.slo) problems.push('--fail-on-slo: needs --slo');
  const targets = routingTargets(c, extraUrls as string[], merged, problems);
  if (c.simRouter !== undefined && (c.simReplicas ?? 1) < 2) problems.push('--sim-router: only applies with --sim-replicas 2 or more');
  if (c.simRouter === 'session' && c.sessionHeader === undefined) problems.push('--sim-router session: needs --session-header NAME, the header that carries each request\'s session to the router');
  problems.push(...embeddedSimProblems(c, c.baseUrl));
  problems.push(...liveMetricsProblems(c, merged));
  problems.push(...uiProblems(c));
  problems.push(...loadShapeProblems(c, merged));
  problems.push(...repeatedRunsProblems(c, merged));
  problems.push(...shardProblems({ ...c, concurrency: c.concurrency ?? (c.rate === undefined && ramp === undefined && c.replay === undefined ? 1 : undefined) }));
  if (problems.length) throw new UsageError(problems);
  // With --stages: --duration defaults to their sum; the highest target sizes the pool (VUs) or the rate, as --concurrency or --rate would.
  if (c.stages !== undefined && ramp) {
    c.duration ??= stagesMs(ramp.stages) / 1000;
    const max = Math.max(...ramp.stages.map((st) => st.target));
    if (ramp.of === 'vus') c.concurrency = max;
    else c.rate = max;
  }
  // Traces of other formats (issue 27: open loop and sessions) have no in-flight cap unless --concurrency is given;
  // tokenflood's own --replay and every closed loop default to 1.
  // --users: a user never has two requests in flight, so N users need at most N connections.
  if (c.users !== undefined) c.concurrency = c.users;
  if (c.concurrency === undefined && c.rate === undefined && !replaysUncappedTrace(c)) c.concurrency = 1;
  return { config: c, headers, ...(targets.length ? { targets } : {}), ...(outs.notes.length ? { notes: outs.notes } : {}), ladder: new Once() };
}

/** The endpoints of a run with several (docs/routing.md); sets `baseUrl` to the first target of a --targets file. */
function routingTargets(c: RunConfig, extraUrls: string[], given: Record<string, unknown>, problems: string[]): TargetSpec[] {
  let targets: TargetSpec[] = [];
  if (c.targets !== undefined) {
    if (c.baseUrl !== undefined) problems.push('--targets: lists the endpoints; drop --base-url');
    const r = readTargetsFile(c.targets);
    problems.push(...r.problems);
    targets = r.targets;
    if (!r.problems.length && targets.length) c.baseUrl = targets[0].baseUrl;
  } else if (extraUrls.length && c.baseUrl !== undefined) targets = [c.baseUrl, ...extraUrls].map((u, i) => ({ name: `t${i + 1}`, baseUrl: u, weight: 1, headers: {} }));
  if (given.route !== undefined && targets.length < 2) problems.push('--route: only applies with several endpoints (--base-url given more than once, or --targets)');
  const spec = parseRouteSpec(c.route);
  if (!('problem' in spec) && targets.length >= 2) {
    const unknown = unknownRuleTargets(spec.rule, targets.map((t) => t.name));
    if (unknown.length) problems.push(`--route: names no endpoint of the run: ${unknown.join(', ')} (the endpoints are ${targets.map((t) => t.name).join(', ')})`);
  }
  if (c.models !== undefined && targets.some((t) => t.model !== undefined)) problems.push('--models: cannot be combined with a per-target model in --targets');
  return targets;
}

/** --ramp-up, --ramp-down and --stages against the rest of the load options; the parsed plan when there is one. */
function rampProblems(c: RunConfig, given: Record<string, unknown>, problems: string[]): RampPlan | undefined {
  const ramps = c.rampUp !== undefined || c.rampDown !== undefined;
  const first = c.rampUp !== undefined ? '--ramp-up' : '--ramp-down';
  if (c.stages !== undefined) {
    if (ramps) problems.push(`--stages: cannot be combined with ${first} (write the ramps as stages, e.g. 30s:100,2m:100,30s:0)`);
    if (c.replay !== undefined) problems.push('--stages: does not apply to --replay (the trace sets the send times)');
    const plan = rampPlan(c);
    if (!plan) return undefined;
    if (given.rate !== undefined) problems.push('--rate: the --stages targets set the load (write requests per second as 30s:20/s): drop --rate');
    else if (plan.of === 'vus' && given.concurrency !== undefined)
      problems.push('--concurrency: the --stages targets are the VU counts; drop --concurrency (with rate targets such as 30s:20/s it caps requests in flight)');
    return plan;
  }
  if (!ramps) return undefined;
  if (c.replay !== undefined) problems.push(`${first}: does not apply to --replay (the trace sets the send times)`);
  if (c.rampDown !== undefined && c.duration === undefined) problems.push('--ramp-down: needs --duration (the ramp-down is its last part)');
  const rampsS = (c.rampUp ?? 0) + (c.rampDown ?? 0);
  if (c.duration !== undefined && rampsS >= c.duration)
    problems.push(`${first}: --ramp-up plus --ramp-down (${rampsS} s) must be shorter than --duration (${c.duration} s), leaving a steady phase`);
  return rampPlan(c);
}

/** Synthetic media the protocol cannot carry, or that the workload would not send: named before anything is sent. */
function mediaProblems(c: RunConfig): string[] {
  try {
    createMediaPlan(c);
  } catch (e) {
    return [(e as Error).message];
  }
  const needs = mediaNeeds(c);
  if (!needs.length) return [];
  const flags = [c.images !== undefined && '--images', c.videoFrames && '--video-frames', c.audioSeconds && '--audio-seconds'].filter(Boolean).join(', ');
  if (c.dataset || c.replay) return [`${flags}: synthetic media go with synthetic prompts only, not with ${c.dataset ? '--dataset' : '--replay'}`];
  const kind = backendOf(c);
  const carries = BACKENDS[kind].media ?? [];
  const missing = needs.filter((n) => !carries.includes(n));
  if (!missing.length) return [];
  const can = Object.values(BACKENDS).filter((b) => missing.every((n) => b.media?.includes(n))).map((b) => b.kind);
  return [`${flags}: --backend ${kind} cannot carry ${missing.map((m) => (m === 'image' ? 'images (or video frames)' : 'audio')).join(' or ')}${can.length ? `; backends that can: ${can.join(', ')}` : ''}`];
}
