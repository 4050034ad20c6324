// Many endpoints: the routing options (--targets, --route, --models), the targets file and the resolved target list.
import { z } from 'zod';
import { flagTable } from '../util/flags.js';
import { parsedString } from '../util/parsed-string.js';
import { apiKeyProblem, parseHeaders } from '../util/parse.js';
import { MAX_CONFIG_BYTES, readTextFile } from '../util/read-file.js';
import { parseYaml } from '../util/yaml.js';
import { parseRouteSpec } from '../backends/route-rules.js';

export { ROUTE_POLICIES, type RoutePolicy } from '../backends/route-policies.js';

/** Largest weight of a target or model: shares are relative, and past this sums lose precision or overflow. */
export const MAX_WEIGHT = 1e6;

/** `--models a:70%,b:30%` (or weights without %, or bare names for equal shares) → model and weight, in order. */
export function parseModels(spec: string): { model: string; weight: number }[] {
  const out: { model: string; weight: number }[] = [];
  for (const part of spec.split(',').map((p) => p.trim()).filter(Boolean)) {
    const at = part.lastIndexOf(':');
    const model = at > 0 ? part.slice(0, at).trim() : part;
    const w = at > 0 ? part.slice(at + 1).trim() : '1';
    const weight = w.endsWith('%') ? Number(w.slice(0, -1)) : Number(w);
    if (!model) throw new Error(`"${part}": expected MODEL:WEIGHT, e.g. a:70%`);
    if (!Number.isFinite(weight) || weight <= 0) throw new Error(`"${part}": the weight must be a positive number or percentage`);
    if (weight > MAX_WEIGHT) throw new Error(`"${part}": the weight must be at most ${MAX_WEIGHT} (weights are relative shares)`);
    if (out.some((m) => m.model === model)) throw new Error(`model "${model}" is listed twice`);
    out.push({ model, weight });
  }
  if (!out.length) throw new Error('expected at least one model, e.g. a:70%,b:30%');
  return out;
}

export const RoutingSchema = z.object({
  targets: z.string().min(1).optional(),
  // The message names the kind and lists the valid ones, as for --backend.
  // A policy, or a rule (by-length:…, by-class[:…]); the message names the kind and lists the valid ones, as for --backend.
  route: z
    .string()
    .default('round-robin')
    .superRefine((v, ctx) => {
      const r = parseRouteSpec(v);
      if ('problem' in r) ctx.addIssue({ code: 'custom', message: r.problem });
    }),
  models: parsedString(parseModels),
  sessionHeader: z
    .string()
    .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'expected an HTTP header name, e.g. x-session-id')
    .optional(),
});

export const ROUTING_FLAGS = flagTable(RoutingSchema.shape, {
  targets: { arg: 'file', help: 'YAML/JSON list of endpoints: url, and optional name, weight, model, headers, api_key (docs/routing.md); instead of --base-url' },
  route: { arg: 'policy', help: 'how each request picks its endpoint among several --base-url/--targets (docs/routing.md): round-robin, random, least-in-flight, weighted, prefix-hash (one shared prefix, one endpoint), session (one session, one endpoint), by-length:0-8k=t1,8k-=t2 (input-length buckets, k = 1024), by-class[:CLASS=TARGET,...] (a dataset class names its endpoint); a replay line\'s instance always goes to the endpoint of that name' },
  sessionHeader: { arg: 'name', help: "send each request's session id (a multi-turn conversation's, a trace replay's session) as this HTTP header on every turn, for a router's session affinity (docs/routing.md#session-affinity); the embedded server's --sim-router session reads the same header", defaultText: 'off' },
  models: { arg: 'list', help: 'spread the run over models behind the endpoint, e.g. a:70%,b:30%; records and the summary carry the model' },
});

const url = z
  .string({ message: 'expected a URL' })
  .url('expected an http:// or https:// URL')
  .refine((u) => /^https?:\/\//.test(u), 'expected an http:// or https:// URL')
  .refine((u) => !/^https?:\/\/[^/]*@/.test(u), 'credentials in the URL are not sent and would be written to disk: use api_key or headers instead')
  .refine((u) => !u.includes('#'), 'a fragment ("#...") is never sent to a server: remove it');

const TargetEntrySchema = z
  .object({
    url,
    name: z.string().regex(/^[A-Za-z0-9._:-]{1,64}$/, 'expected 1-64 letters, digits or ._:-').optional(),
    weight: z
      .number({ message: 'expected a positive number' })
      .positive('expected a positive number')
      .max(MAX_WEIGHT, `expected at most ${MAX_WEIGHT} (weights are relative shares: 3 and 1 is 75% and 25%)`)
      .default(1),
    model: z.string().min(1).optional(),
    headers: z.record(z.string(), z.union([z.string(), z.number()]).transform(String)).default({}),
    api_key: z.string().min(1).optional(),
  })
  .strict();

const TargetsFileSchema = z.union([z.array(TargetEntrySchema).min(1, 'expected at least one target'), z.object({ targets: z.array(TargetEntrySchema).min(1, 'expected at least one target') }).strict()]);

/** One endpoint of the run, resolved: its own headers (the run's plus its own) and key are never written anywhere. */
export interface TargetSpec {
  /** Stable name in records and breakdowns: the file's `name`, else t1, t2, ... in order. */
  name: string;
  baseUrl: string;
  weight: number;
  model?: string;
  /** Headers of this target only (added to the run's --header values). */
  headers: Record<string, string>;
  apiKey?: string;
}

/** The targets file, validated; each problem names the file and the field (`targets[1].weight: ...`). */
export function readTargetsFile(path: string): { targets: TargetSpec[]; problems: string[] } {
  const r = readTextFile(path, MAX_CONFIG_BYTES);
  if ('problem' in r) return { targets: [], problems: [`--targets: ${path}: cannot read: ${r.problem}`] };
  let doc: unknown;
  try {
    doc = parseYaml(r.text);
  } catch (e) {
    return { targets: [], problems: [`--targets: ${path}: not YAML or JSON: ${(e as Error).message.split('\n')[0]}`] };
  }
  const parsed = TargetsFileSchema.safeParse(doc);
  if (!parsed.success) {
    // A union reports its branches; the list form's issues are the useful ones for a list, the mapping's for a mapping.
    const issues = parsed.error.issues.flatMap((i) => (i.code === 'invalid_union' ? (Array.isArray(doc) ? i.errors[0] : i.errors[1]) ?? [] : [i]));
    const lines = issues.map((i) => {
      const p = i.path.map((x) => (typeof x === 'number' ? `[${x}]` : `.${String(x)}`)).join('');
      const where = Array.isArray(doc) ? `targets${p}` : p.replace(/^\./, '') || 'targets';
      return `--targets: ${path}: ${where}: ${i.message}`;
    });
    return { targets: [], problems: lines.length ? lines : [`--targets: ${path}: expected a list of targets (url, name, weight, model, headers, api_key)`] };
  }
  const entries = Array.isArray(parsed.data) ? parsed.data : parsed.data.targets;
  const problems: string[] = [];
  const targets = entries.map((e, i) => {
    const { headers, bad } = parseHeaders(Object.entries(e.headers).map(([k, v]) => `${k}: ${v}`));
    for (const b of bad) problems.push(`--targets: ${path}: targets[${i}].headers: ${b}`);
    const keyBad = e.api_key !== undefined ? apiKeyProblem(e.api_key) : null;
    if (keyBad) problems.push(`--targets: ${path}: targets[${i}].api_key: ${keyBad}`);
    return { name: e.name ?? `t${i + 1}`, baseUrl: e.url, weight: e.weight, model: e.model, headers, apiKey: e.api_key };
  });
  const seen = new Set<string>();
  for (const t of targets) {
    if (seen.has(t.name)) problems.push(`--targets: ${path}: name "${t.name}" is used twice`);
    seen.add(t.name);
  }
  return { targets, problems };
}

/** --base-url values beyond the first: each checked as the first is, named by its position. */
export function extraBaseUrlProblems(urls: readonly unknown[]): string[] {
  const out: string[] = [];
  urls.forEach((u, i) => {
    const r = url.safeParse(u);
    if (!r.success) out.push(`--base-url (#${i + 2}): ${r.error.issues[0].message}`);
  });
  return out;
}
