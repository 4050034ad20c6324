// custom-sse and custom-ndjson: any HTTP streaming gateway, from a request template and a JSON-pointer mapping (--backend-config).
import { z } from 'zod';
import type { Backend, BodyOptions, ChunkInfo } from './backend.js';
import type { RequestSpec } from '../dataset/types.js';
import { parsePointer, resolvePointer, type Pointer } from './json-pointer.js';
import { blankInfo, errorEvent } from './native-common.js';
import { MAX_CONFIG_BYTES, readTextFile } from '../util/read-file.js';
import { parseYaml } from '../util/yaml.js';

const PLACEHOLDERS = ['prompt', 'messages', 'model', 'max_tokens', 'stream'] as const;
type Placeholder = (typeof PLACEHOLDERS)[number];
const PLACEHOLDER = /\{\{\s*([a-z_]+)\s*\}\}/g;

const pointer = z.string({ message: 'expected a JSON pointer string, e.g. /choices/0/delta/content' }).superRefine((p, ctx) => {
  const r = parsePointer(p);
  if (typeof r === 'string') ctx.addIssue({ code: 'custom', message: r });
});

/** The file --backend-config names: where to send, what to send, and which response fields mean what. */
export const CustomBackendSchema = z
  .object({
    path: z
      .string()
      .startsWith('/', 'expected a path starting with "/", appended to --base-url, e.g. /generate')
      // Appended to --base-url as written: "." / ".." segments (also %2e-encoded) would leave the base path once a
      // URL resolves them, and a fragment is never sent. A query ("?a=b") is kept.
      .refine((p) => !p.split('?')[0].split('/').some((seg) => /^(\.|%2e){1,2}$/i.test(seg)), 'expected a path below --base-url: "." and ".." segments are not allowed')
      .refine((p) => !p.includes('#'), 'a fragment ("#...") is never sent to a server: remove it'),
    endpoint: z.enum(['chat', 'completions']).default('chat').describe('what the workload builds: chat messages ({{messages}}) or a flat prompt ({{prompt}}), and how input tokens are counted'),
    request: z.record(z.string(), z.unknown(), { message: 'expected the JSON body template, a mapping' }),
    response: z
      .object({
        answer: pointer,
        reasoning: pointer.optional(),
        input_tokens: pointer.optional(),
        output_tokens: pointer.optional(),
        finish_reason: pointer.optional(),
        error: pointer.optional(),
        done: pointer.optional(),
        done_data: z.string().default('[DONE]'),
      })
      .strict(),
  })
  .strict();

export type CustomBackendSpec = z.output<typeof CustomBackendSchema>;

/** Placeholders used in a template, and problems with it (an unknown placeholder, no prompt at all), by field path. */
function templateProblems(t: unknown, at: string, found: Set<string>, problems: string[]): void {
  if (typeof t === 'string') {
    for (const m of t.matchAll(PLACEHOLDER)) {
      if (!(PLACEHOLDERS as readonly string[]).includes(m[1])) problems.push(`${at}: unknown placeholder {{${m[1]}}} (known: ${PLACEHOLDERS.map((p) => `{{${p}}}`).join(', ')})`);
      else if (m[1] === 'messages' && t.trim() !== m[0]) problems.push(`${at}: {{messages}} is an array and must be the whole string value`);
      found.add(m[1]);
    }
  } else if (Array.isArray(t)) t.forEach((x, i) => templateProblems(x, `${at}.${i}`, found, problems));
  else if (t && typeof t === 'object') for (const [k, v] of Object.entries(t)) templateProblems(v, `${at}.${k}`, found, problems);
}

/**
 * Read and check a --backend-config file (JSON or YAML): the spec, or every problem, each naming the flag, the file
 * and the field. `kind` is the --backend it is for.
 */
export function loadCustomBackend(file: string): { spec: CustomBackendSpec } | { problems: string[] } {
  const at = `--backend-config: ${file}`;
  const r = readTextFile(file, MAX_CONFIG_BYTES);
  if ('problem' in r) return { problems: [`${at}: cannot read: ${r.problem}`] };
  let doc: unknown;
  try {
    doc = parseYaml(r.text);
  } catch (e) {
    return { problems: [`${at}: not JSON or YAML: ${(e as Error).message.split('\n')[0]}`] };
  }
  const parsed = CustomBackendSchema.safeParse(doc);
  if (!parsed.success) return { problems: parsed.error.issues.map((i) => `${at}: ${i.path.join('.') || 'file'}: ${i.message}`) };
  const problems: string[] = [];
  const found = new Set<string>();
  templateProblems(parsed.data.request, 'request', found, problems);
  if (!found.has('prompt') && !found.has('messages')) problems.push(`${at}: request: has no {{prompt}} or {{messages}} placeholder, so no request would carry the workload's prompt`);
  return problems.length ? { problems: problems.map((p) => (p.startsWith(at) ? p : `${at}: ${p}`)) } : { spec: parsed.data };
}

/** The template with its placeholders filled: a whole-string placeholder takes the value's type, one inside text its string form. */
function fill(t: unknown, v: Record<Placeholder, unknown>): unknown {
  if (typeof t === 'string') {
    const whole = /^\{\{\s*([a-z_]+)\s*\}\}$/.exec(t);
    if (whole) return v[whole[1] as Placeholder];
    return t.replace(PLACEHOLDER, (_m, name: string) => String(v[name as Placeholder]));
  }
  if (Array.isArray(t)) return t.map((x) => fill(x, v));
  if (t && typeof t === 'object') return Object.fromEntries(Object.entries(t).map(([k, x]) => [k, fill(x, v)]));
  return t;
}

interface Mapping {
  answer: Pointer;
  reasoning: Pointer | null;
  input: Pointer | null;
  output: Pointer | null;
  finish: Pointer | null;
  error: Pointer | null;
  done: Pointer | null;
  doneData: string;
}

const ptr = (p: string | undefined): Pointer | null => (p === undefined ? null : (parsePointer(p) as Pointer));
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The classifier of a mapping: pointers resolved per event, nothing else. */
function classifierOf(m: Mapping): (data: string) => ChunkInfo {
  return (data) => {
    const info = blankInfo();
    if (data === m.doneData) {
      info.kind = 'd';
      return info;
    }
    let o: unknown;
    try {
      o = JSON.parse(data);
    } catch {
      info.error = `malformed JSON in stream: ${data.slice(0, 120)}`;
      return info;
    }
    if (m.error) {
      const e = resolvePointer(o, m.error);
      if (e !== undefined && e !== null && e !== false && e !== '') {
        info.kind = 'e';
        info.error = typeof e === 'string' ? e : JSON.stringify(e);
        return info;
      }
    }
    info.answer = text(resolvePointer(o, m.answer));
    if (m.reasoning) info.reasoning = text(resolvePointer(o, m.reasoning));
    const inTok = m.input ? resolvePointer(o, m.input) : undefined;
    const outTok = m.output ? resolvePointer(o, m.output) : undefined;
    if (inTok !== undefined || outTok !== undefined) info.usage = { prompt_tokens: inTok, completion_tokens: outTok, reasoning_tokens: undefined, cached_tokens: undefined };
    if (m.finish) {
      const f = resolvePointer(o, m.finish);
      if (typeof f === 'string' && f) info.finishReason = f;
    }
    const done = m.done ? resolvePointer(o, m.done) : undefined;
    if (info.answer) info.kind = 'a';
    else if (info.reasoning) info.kind = 'R';
    else if (done !== undefined && done !== null && done !== false) info.kind = 'd';
    else if (info.usage) info.kind = 'u';
    else info.kind = 'r';
    return info;
  };
}

/** A backend of a checked spec. */
export function customBackend(kind: 'custom-sse' | 'custom-ndjson', spec: CustomBackendSpec): Backend {
  const r = spec.response;
  const m: Mapping = {
    answer: ptr(r.answer)!, reasoning: ptr(r.reasoning), input: ptr(r.input_tokens), output: ptr(r.output_tokens),
    finish: ptr(r.finish_reason), error: ptr(r.error), done: ptr(r.done), doneData: r.done_data,
  };
  return {
    kind,
    path: spec.path,
    endpoint: spec.endpoint,
    framing: kind === 'custom-ndjson' ? 'ndjson' : 'sse',
    buildBody(s: RequestSpec, o: BodyOptions) {
      const body = fill(spec.request, { prompt: s.prompt, messages: s.messages, model: o.model, max_tokens: s.maxTokens, stream: o.stream }) as Record<string, unknown>;
      if (o.extraBody) Object.assign(body, o.extraBody);
      return body;
    },
    classifyData: classifierOf(m),
    classifyErrorEvent: errorEvent,
  };
}

/**
 * The run's checked spec. Module state rather than a parameter: the registry is a static kind → backend table
 * looked up by kind on every thread, so the spec is set once per run (config load, and each worker from its
 * workerData) and the two registered kinds read it.
 */
let configured: CustomBackendSpec | null = null;
const built = new Map<string, Backend>();

export function configureCustomBackend(spec: CustomBackendSpec | null): void {
  configured = spec;
  built.clear();
}

/** The spec set for this run (handed to worker threads), or null. */
export const customBackendSpec = (): CustomBackendSpec | null => configured;

function current(kind: 'custom-sse' | 'custom-ndjson'): Backend {
  let b = built.get(kind);
  if (!b) {
    if (!configured) throw new Error(`--backend ${kind} needs --backend-config FILE`);
    built.set(kind, (b = customBackend(kind, configured)));
  }
  return b;
}

/** A registered custom kind: every call goes to the backend of the configured spec. */
function registered(kind: 'custom-sse' | 'custom-ndjson'): Backend {
  return {
    kind,
    get path() {
      return configured?.path ?? '/';
    },
    get endpoint() {
      return configured?.endpoint ?? 'chat';
    },
    framing: kind === 'custom-ndjson' ? 'ndjson' : 'sse',
    buildBody: (s, o) => current(kind).buildBody(s, o),
    classifyData: (d) => current(kind).classifyData(d),
    classifyErrorEvent: errorEvent,
  };
}

export const customSse = registered('custom-sse');
export const customNdjson = registered('custom-ndjson');
