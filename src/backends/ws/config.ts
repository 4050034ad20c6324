// The `websocket:` section of --backend-config: URL, request template and the JSON-pointer mapping, validated with zod.
import { z } from 'zod';
import { MAX_CONFIG_BYTES, readTextFile } from '../../util/read-file.js';
import { parseYaml } from '../../util/yaml.js';
import { compilePointer, pointerProblem, type Pointer } from './pointer.js';
import { placeholderNames, PLACEHOLDERS } from './template.js';

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/** A mapping entry: a pointer, or a pointer with conditions (`when`: pointer → value every one must equal), or conditions alone. */
const Field = z.union([
  z.string(),
  z.object({ pointer: z.string().optional(), when: z.record(z.string(), scalar).optional() }).strict(),
]);
type FieldInput = z.infer<typeof Field>;

const messageObject = z.record(z.string(), z.unknown());

export const WebSocketConfigSchema = z
  .object({
    url: z
      .string()
      .refine((u) => /^wss?:\/\/[^/]/.test(u) && URL.canParse(u), 'expected a ws:// or wss:// URL')
      .refine((u) => !/^wss?:\/\/[^/]*@/.test(u), 'credentials in the URL would be written to disk: use --api-key or --header instead')
      .optional(),
    /** One message, or several sent in order, per request; strings may hold {{placeholders}}. */
    request: z.union([messageObject, z.array(messageObject).min(1, 'expected at least one message')]),
    answer: Field,
    reasoning: Field.optional(),
    input_tokens: Field.optional(),
    output_tokens: Field.optional(),
    reasoning_tokens: Field.optional(),
    cached_tokens: Field.optional(),
    done: Field,
    error: Field.optional(),
    heartbeat: Field.optional(),
    /** Keep the connection for the next request once a stream has ended (false: one connection per request). */
    reuse_connection: z.boolean().default(true),
  })
  .strict();

export type WebSocketConfigInput = z.input<typeof WebSocketConfigSchema>;

/** A compiled mapping entry: matches a message when every `when` holds and (with a pointer) the value is present. */
export interface Matcher {
  pointer: Pointer | null;
  when: [Pointer, string | number | boolean | null][];
}

export interface WebSocketConfig {
  url: string | undefined;
  request: Record<string, unknown>[];
  answer: Matcher;
  reasoning: Matcher | null;
  inputTokens: Matcher | null;
  outputTokens: Matcher | null;
  reasoningTokens: Matcher | null;
  cachedTokens: Matcher | null;
  done: Matcher;
  error: Matcher | null;
  heartbeat: Matcher | null;
  reuseConnection: boolean;
}

/**
 * The protocol of the embedded server's /v1/ws endpoint (docs/backends.md#websocket-embeddings-and-rerank): the chat body as one
 * message, OpenAI chat chunks back, `{"type":"done"}` at the end, `{"type":"ping"}` heartbeats.
 */
export const DEFAULT_WEBSOCKET: WebSocketConfigInput = {
  request: { model: '{{model}}', messages: '{{messages}}', max_tokens: '{{max_tokens}}', stream: true, stream_options: { include_usage: true }, ignore_eos: '{{ignore_eos}}', min_tokens: '{{min_tokens}}' },
  answer: '/choices/0/delta/content',
  reasoning: '/choices/0/delta/reasoning_content',
  input_tokens: '/usage/prompt_tokens',
  output_tokens: '/usage/completion_tokens',
  reasoning_tokens: '/usage/completion_tokens_details/reasoning_tokens',
  cached_tokens: '/usage/prompt_tokens_details/cached_tokens',
  done: { when: { '/type': 'done' } },
  error: '/error',
  heartbeat: { when: { '/type': 'ping' } },
};

function matcher(f: FieldInput | undefined): Matcher | null {
  if (f === undefined) return null;
  if (typeof f === 'string') return { pointer: compilePointer(f), when: [] };
  return { pointer: f.pointer === undefined ? null : compilePointer(f.pointer), when: Object.entries(f.when ?? {}).map(([p, v]) => [compilePointer(p), v]) };
}

const FIELDS = ['answer', 'reasoning', 'input_tokens', 'output_tokens', 'reasoning_tokens', 'cached_tokens', 'done', 'error', 'heartbeat'] as const;

/** Every problem of a parsed section, each naming its key (`websocket.answer.when./type: ...`). */
function semanticProblems(c: z.output<typeof WebSocketConfigSchema>): string[] {
  const out: string[] = [];
  for (const k of FIELDS) {
    const f = c[k];
    if (f === undefined) continue;
    if (typeof f === 'string') {
      const p = pointerProblem(f);
      if (p) out.push(`websocket.${k}: ${p}`);
      continue;
    }
    if (f.pointer === undefined && !f.when) out.push(`websocket.${k}: give a pointer, a when condition, or both`);
    if (f.pointer !== undefined) {
      const p = pointerProblem(f.pointer);
      if (p) out.push(`websocket.${k}.pointer: ${p}`);
    }
    for (const w of Object.keys(f.when ?? {})) {
      const p = pointerProblem(w);
      if (p) out.push(`websocket.${k}.when: ${p}`);
    }
  }
  for (const name of placeholderNames(c.request))
    if (!PLACEHOLDERS.includes(name)) out.push(`websocket.request: unknown placeholder {{${name}}} (valid: ${PLACEHOLDERS.join(', ')})`);
  return out;
}

/** Validate a `websocket:` section; problems are named `websocket.<key>`. */
export function parseWebSocketConfig(section: unknown): { config: WebSocketConfig } | { problems: string[] } {
  const r = WebSocketConfigSchema.safeParse(section);
  if (!r.success) return { problems: r.error.issues.map((i) => `websocket${i.path.length ? '.' + i.path.join('.') : ''}: ${i.message}`) };
  const problems = semanticProblems(r.data);
  if (problems.length) return { problems };
  const c = r.data;
  return {
    config: {
      url: c.url,
      request: Array.isArray(c.request) ? c.request : [c.request],
      answer: matcher(c.answer)!,
      reasoning: matcher(c.reasoning),
      inputTokens: matcher(c.input_tokens),
      outputTokens: matcher(c.output_tokens),
      reasoningTokens: matcher(c.reasoning_tokens),
      cachedTokens: matcher(c.cached_tokens),
      done: matcher(c.done)!,
      error: matcher(c.error),
      heartbeat: matcher(c.heartbeat),
      reuseConnection: c.reuse_connection,
    },
  };
}

/**
 * The websocket config of a run: the `websocket:` section of `file` (YAML or JSON), or the embedded server's protocol
 * without one. Problems name the flag, the file and the key.
 */
export function loadWebSocketConfig(file: string | undefined): { config: WebSocketConfig } | { problems: string[] } {
  if (file === undefined) return parseWebSocketConfig(DEFAULT_WEBSOCKET);
  const where = `--backend-config: ${file}`;
  const r = readTextFile(file, MAX_CONFIG_BYTES);
  if ('problem' in r) return { problems: [`${where}: cannot read: ${r.problem}`] };
  let doc: unknown;
  try {
    doc = parseYaml(r.text);
  } catch (e) {
    return { problems: [`${where}: not valid YAML or JSON: ${(e as Error).message.split('\n')[0]}`] };
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc) || !('websocket' in doc))
    return { problems: [`${where}: expected a mapping with a websocket: section (docs/backends.md#websocket-embeddings-and-rerank)`] };
  const parsed = parseWebSocketConfig((doc as Record<string, unknown>).websocket);
  return 'problems' in parsed ? { problems: parsed.problems.map((p) => `${where}: ${p}`) } : parsed;
}
