// Trace replay: requests from a JSONL trace, each sent at its recorded time (relative to the first), scaled by --replay-speed.
import { closeSync } from 'node:fs';
import { openRegularFile } from '../util/read-file.js';
import type { WorkloadParams } from './params.js';
import type { Tokenizer } from './tokenizer.js';
import type { Rng } from '../util/rng.js';
import type { RequestSpec } from './types.js';
import type { Workload } from './workload-types.js';
import { UsageError } from '../errors.js';
import { capProblem } from './caps.js';
import { jsonlRecords } from './formats/jsonl.js';
import { fileLines, textLines, type Line } from './formats/lines.js';
import { recordToItem } from './record.js';
import { parseFieldMap } from './load.js';
import { countPrompt, createPromptBuilder, flatPrompt } from './prompt.js';
import { resolveLength } from './lengths.js';
import { sampleLength } from './distribution.js';
import { dataPriority } from './priority.js';

export interface TraceEntry {
  line: number;
  /** Recorded send time, ms (any origin). */
  atMs: number;
  /** Either text (messages) or only lengths. */
  messages?: RequestSpec['messages'];
  inputTokens?: number;
  outputTokens?: number;
  class?: string;
  /** The trace's `user` field (summary.json by_user). */
  user?: string;
  /** The line's `priority` (top level, or in its `body`). */
  priority?: number;
  /** The instance (endpoint name) that served it, when the line names one. */
  instance?: string;
}

type Obj = Record<string, unknown>;

/** `timestamp` in ms (or an ISO-8601 string), `timestamp_ms`, or `timestamp_s` in seconds. */
function timeMs(o: Obj): number | string {
  if (o.timestamp_s !== undefined) return typeof o.timestamp_s === 'number' ? o.timestamp_s * 1000 : 'timestamp_s must be a number of seconds';
  const v = o.timestamp_ms ?? o.timestamp;
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v);
    if (Number.isFinite(n)) return n;
    const d = Date.parse(v);
    if (Number.isFinite(d)) return d;
  }
  return v === undefined ? 'needs a timestamp (ms), timestamp_s (seconds) or an ISO-8601 timestamp' : `bad timestamp ${JSON.stringify(v)}`;
}

/** A line's `instance` (the endpoint that served it, named as --targets names them); a string naming the problem when bad. */
export function traceInstance(v: unknown): { instance?: string } | string {
  if (v === undefined || v === null) return {};
  const s = typeof v === 'number' && Number.isInteger(v) ? String(v) : v;
  return typeof s === 'string' && /^[A-Za-z0-9._:-]{1,64}$/.test(s) ? { instance: s } : `instance must be an endpoint name (1-64 of A-Z a-z 0-9 . _ : -), got ${JSON.stringify(v)}`;
}

const posInt = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined);

/** Parse a trace; bad lines come back as `file:line: reason`. */
export function parseTrace(file: string, text: string | Iterable<Line>, fields: readonly string[] = []): { entries: TraceEntry[]; problems: string[] } {
  const map = parseFieldMap(fields);
  const entries: TraceEntry[] = [];
  const problems: string[] = [];
  for (const r of jsonlRecords(typeof text === 'string' ? textLines(text, file) : text)) {
    const where = `${file}:${r.line}`;
    if (!r.value) {
      problems.push(`${where}: ${r.problem}`);
      continue;
    }
    const o = r.value;
    const at = timeMs(o);
    if (typeof at === 'string') {
      problems.push(`${where}: ${at}`);
      continue;
    }
    const inst = traceInstance(o.instance);
    if (typeof inst === 'string') {
      problems.push(`${where}: ${inst}`);
      continue;
    }
    const body = o.body && typeof o.body === 'object' ? (o.body as Obj) : undefined;
    const priority = dataPriority(o.priority ?? body?.priority);
    if (typeof priority === 'string') {
      problems.push(`${where}: ${priority}`);
      continue;
    }
    const prio = priority !== undefined ? { priority } : {};
    const rec: Obj = body ? { ...o, messages: body.messages, prompt: body.prompt, max_tokens: body.max_tokens ?? body.max_completion_tokens } : o;
    const hasText = rec.prompt !== undefined || rec.messages !== undefined || rec.conversations !== undefined || map.prompt !== undefined;
    if (!hasText) {
      const inTok = posInt(o.input_tokens ?? o.input_length);
      const outTok = o.output_tokens ?? o.output_length;
      if (inTok === undefined) problems.push(`${where}: needs a prompt, messages, body or a positive integer input_tokens`);
      else if (outTok !== undefined && posInt(outTok) === undefined) problems.push(`${where}: output_tokens must be a positive integer`);
      else entries.push({ line: r.line, atMs: at, inputTokens: inTok, outputTokens: posInt(outTok), class: typeof o.class === 'string' ? o.class : undefined, user: userOf(o.user), ...prio, ...inst });
      continue;
    }
    // A line with text: recordToItem reads its priority through --dataset-field (priority=COL) as a dataset line's.
    const item = recordToItem(body?.priority !== undefined && rec.priority === undefined ? { ...rec, priority: body.priority } : rec, where, map);
    if (typeof item === 'string') problems.push(`${where}: ${item}`);
    else entries.push({ line: r.line, atMs: at, messages: item.turns[0].messages, outputTokens: item.turns[0].maxTokens, class: item.class, user: item.user, ...(item.priority !== undefined ? { priority: item.priority } : prio), ...inst });
  }
  return { entries, problems };
}

/** Read and parse a trace file line by line, like a JSONL dataset: only regular files; a line over MAX_LINE_BYTES is an error naming file:line. */
export function readTrace(file: string, fields: readonly string[] = [], flag = '--replay'): ReturnType<typeof parseTrace> {
  const opened = openRegularFile(file);
  if ('problem' in opened) throw new UsageError([`${flag}: cannot read ${file}: ${opened.problem}`]);
  try {
    return parseTrace(file, fileLines(opened.fd, file), fields);
  } catch (e) {
    if (e instanceof UsageError) throw new UsageError(e.problems.map((p) => (p.startsWith('--') ? p : `${flag}: ${p}`)));
    throw new UsageError([`${flag}: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`]);
  } finally {
    closeSync(opened.fd);
  }
}

export function createReplayWorkload(c: WorkloadParams, tok: Tokenizer, rng: Rng): Workload {
  const file = c.replay as string;
  const { entries, problems } = readTrace(file, c.datasetField);
  if (c.strict && problems.length) throw new UsageError(problems);
  if (!entries.length) throw new UsageError([`--replay: ${file} holds no usable request`, ...problems.slice(0, 20)]);
  const outDist = resolveLength(c.outputTokens, '--output-tokens');
  const lenRng = rng.fork();
  const builder = createPromptBuilder({ tok, corpus: c.corpus, cacheBust: c.cacheBust, prefixTokens: 0, prefixGroups: 1, endpoint: c.endpoint, rng: rng.fork(), salt: c.promptSalt });
  // Traces are usually sorted; sort anyway (stable) so the schedule never goes back in time.
  const sorted = [...entries].sort((a, b) => a.atMs - b.atMs || a.line - b.line);
  const t0 = sorted[0].atMs;
  const specs: RequestSpec[] = [];
  const times: number[] = [];
  let skipped = 0;
  const overCaps: string[] = [];
  for (const e of sorted) {
    const maxTokens = c.maxTokens ?? e.outputTokens ?? sampleLength(outDist, lenRng);
    const inputTokens = e.messages ? countPrompt(tok, e.messages, c.endpoint) : (e.inputTokens as number);
    // Over a vendor cap: a bad record as in a dataset (skipped and named; --strict refuses the file below).
    const over = capProblem(c, `${file}:${e.line}`, inputTokens, [maxTokens]);
    if (over !== undefined) {
      overCaps.push(over);
      continue;
    }
    if (c.maxModelLen !== undefined && inputTokens + maxTokens > c.maxModelLen) {
      skipped++;
      continue;
    }
    const at = (e.atMs - t0) / c.replaySpeed;
    const base: RequestSpec = e.messages
      ? { messages: e.messages, prompt: flatPrompt(e.messages), inputTokens, maxTokens }
      : builder.build(inputTokens, maxTokens, undefined);
    specs.push({ ...base, ...(e.class ? { class: e.class } : {}), ...(e.user !== undefined ? { user: e.user } : {}), ...(e.priority !== undefined ? { priority: e.priority } : {}), ...(e.instance !== undefined ? { instance: e.instance } : {}), timestampMs: at, source: `${file}:${e.line}` });
    times.push(at);
  }
  if (c.strict && overCaps.length) throw new UsageError(overCaps);
  if (!specs.length && overCaps.length) throw new UsageError([`every request of ${file} is over --max-input-tokens/--max-output-tokens`, ...overCaps.slice(0, 20)]);
  if (!specs.length) throw new UsageError([`--max-model-len: every request of ${file} exceeds ${c.maxModelLen} tokens (input + max_tokens)`]);
  const info: Record<string, unknown> = {
    kind: 'replay',
    format: 'tokenflood',
    file,
    requests: specs.length,
    speed: c.replaySpeed,
    span_s: times[times.length - 1] / 1000,
    skipped_bad_records: problems.length + overCaps.length,
    ...(c.maxInputTokens !== undefined || c.maxOutputTokens !== undefined ? { skipped_over_caps: overCaps.length } : {}),
    ...(c.maxModelLen !== undefined ? { max_model_len: c.maxModelLen, skipped_over_max_model_len: skipped } : {}),
    warnings: [...problems.slice(0, 20), ...overCaps.slice(0, 20), ...(skipped ? [`${skipped} requests skipped: input + max_tokens exceeds --max-model-len ${c.maxModelLen}`] : [])],
  };
  return { prefetchable: true, next: (i) => specs[i], size: specs.length, arrivalTimesMs: times, describe: () => info };
}

/** A trace line's `user` (string or number) as a label: controls stripped, at most 128 characters. */
function userOf(v: unknown): string | undefined {
  if ((typeof v !== 'string' && typeof v !== 'number') || v === '') return undefined;
  return String(v).replace(/[\x00-\x1f\x7f]/g, '').slice(0, 128);
}
