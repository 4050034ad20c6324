// requests.jsonl: one record per line, taken as each request finishes, read back for `report`.
import { readFileSync } from 'node:fs';
import type { WriteError } from '../errors.js';
import { LineAppender, type AppenderOptions, type WriteAtFn } from '../util/line-appender.js';
import { MEDIA_FIELDS, REQUEST_PHASES, SESSION_FIELDS, type RawRequest, type RequestPhase, type RequestRecord } from './record.js';
import { toRecord } from './derive.js';
import { legacyCode } from './error-codes.js';
import { SERVER_TIMING_FIELDS, type ServerTimings } from './server-timings.js';

/** The server_* fields a record carries (none for protocols that report no server-side timings). */
function serverFields(r: RawRequest): Partial<ServerTimings> {
  const out: Partial<ServerTimings> = {};
  for (const f of SERVER_TIMING_FIELDS) if (r[f] !== undefined) out[f] = r[f];
  return out;
}

/** Round to microseconds: the precision of stored times (kept identical in memory and on disk). */
export const roundMs = (x: number): number => Math.round(x * 1000) / 1000;

/** Round every time in a raw record so that metrics derived before and after a JSON round trip are identical. */
export function normalizeRaw(raw: RawRequest): RawRequest {
  raw.scheduled_at_ms = roundMs(raw.scheduled_at_ms);
  raw.sent_at_ms = roundMs(raw.sent_at_ms);
  if (raw.headers_ms !== null) raw.headers_ms = roundMs(raw.headers_ms);
  if (raw.end_ms !== null) raw.end_ms = roundMs(raw.end_ms);
  const t = raw.event_times_ms;
  for (let i = 0; i < t.length; i++) t[i] = roundMs(t[i]);
  return raw;
}

const r3 = (x: number | null): number | null => (x === null ? null : roundMs(x));

/** endpoint, model, prefix_group and served_by: written only when the run has them (docs/routing.md). */
function routingFields(r: RawRequest): Partial<Pick<RawRequest, 'endpoint' | 'model' | 'prefix_group' | 'served_by'>> {
  if (r.endpoint === undefined && r.model === undefined && r.prefix_group === undefined && r.served_by === undefined) return {};
  const o: Partial<Pick<RawRequest, 'endpoint' | 'model' | 'prefix_group' | 'served_by'>> = {};
  if (r.endpoint !== undefined) o.endpoint = r.endpoint;
  if (r.model !== undefined) o.model = r.model;
  if (r.prefix_group !== undefined) o.prefix_group = r.prefix_group;
  if (r.served_by !== undefined) o.served_by = r.served_by;
  return o;
}

/** session, turn, agent, source, ceiling_tokens, join_wait_ms, tool_wait_ms (trace replay, multi-turn data) and the media fields: written only when the record has them. */
function sessionFields(r: RawRequest): Partial<Pick<RawRequest, (typeof SESSION_FIELDS)[number]>> {
  const o: Record<string, unknown> = {};
  for (const k of SESSION_FIELDS) if (r[k] !== undefined) o[k] = r[k];
  for (const k of MEDIA_FIELDS) if (r[k] !== undefined) o[k] = r[k];
  if (r.response_bytes !== undefined) o.response_bytes = r.response_bytes;
  if (r.user_id !== undefined) o.user_id = r.user_id;
  if (r.priority !== undefined) o.priority = r.priority;
  return o;
}

/** The line written for one record: identity and outcome first, derived metrics, then raw timelines. */
export function recordLine(r: RequestRecord): string {
  const o = {
    id: r.id,
    attempt: r.attempt,
    request_id: r.request_id ?? null,
    reconnected: r.reconnected,
    status: r.status,
    http_status: r.http_status,
    error: r.error,
    code: r.code,
    class: r.class ?? null,
    warmup: r.warmup,
    phase: r.phase ?? 'steady',
    ...routingFields(r),
    ...sessionFields(r),
    ...(r.stage !== undefined ? { stage: r.stage } : {}),
    ...(r.shard !== undefined ? { shard: r.shard } : {}),
    ...(r.user !== undefined ? { user: r.user } : {}),
    scheduled_at_ms: r.scheduled_at_ms,
    sent_at_ms: r.sent_at_ms,
    connection_reused: r.connection_reused,
    blocked_ms: r.blocked_ms,
    connecting_ms: r.connecting_ms,
    tls_ms: r.tls_ms,
    sending_ms: r.sending_ms,
    waiting_ms: r3(r.waiting_ms),
    receiving_ms: r3(r.receiving_ms),
    schedule_lag_ms: r3(r.schedule_lag_ms),
    ttft_ms: r3(r.ttft_ms),
    ttft_from_scheduled_ms: r3(r.ttft_from_scheduled_ms),
    ttfat_ms: r3(r.ttfat_ms),
    first_event_ms: r3(r.first_event_ms),
    tpot_ms: r3(r.tpot_ms),
    e2e_ms: r3(r.e2e_ms),
    output_speed_tok_s: r3(r.output_speed_tok_s),
    input_tokens: r.input_tokens,
    output_tokens: r.output_tokens,
    reasoning_tokens: r.reasoning_tokens,
    cached_tokens: r.cached_tokens,
    token_source: r.token_source,
    expected_input_tokens: r.expected_input_tokens,
    max_tokens: r.max_tokens,
    finish_reason: r.finish_reason,
    usage_rejected: r.usage_rejected,
    events_after_done: r.events_after_done,
    ...serverFields(r),
    ...(typeof r.samples === 'number' ? { samples: r.samples } : {}),
    streamed: r.streamed,
    chunks: r.chunks,
    reasoning_chars: r.reasoning_chars,
    answer_chars: r.answer_chars,
    headers_ms: r.headers_ms,
    end_ms: r.end_ms,
    itl_ms: r.itl_ms.map(roundMs),
    event_times_ms: r.event_times_ms,
    event_kinds: r.event_kinds,
    ...(r.generated_text !== undefined ? { generated_text: r.generated_text } : {}),
  };
  return JSON.stringify(o) + '\n';
}

/**
 * Appends records to requests.jsonl in batches written off the measuring thread (src/util/line-appender.ts):
 * `close()`, a signal's graceful stop and process exit write what is still buffered, so every record taken is kept.
 * A failed write (disk full, ...) never leaves half a line: the file is cut back to its last complete line,
 * the writer stops, and `failure` says why; the run reads it and stops sending. Records of the failed batch are
 * lost, so after a failure `written` (the complete lines on disk) can be less than `accepted`: the summary must then
 * be rebuilt from the file.
 */
export class RecordWriter {
  private readonly out: LineAppender;
  constructor(
    readonly path: string,
    writeFn?: WriteAtFn,
    opts: Pick<AppenderOptions, 'flushBytes' | 'flushMs' | 'lowSpaceBytes'> = {},
  ) {
    this.out = new LineAppender(path, { ...opts, write: writeFn, unit: 'records' });
  }
  /** Records on disk in full. */
  get written(): number {
    return this.out.written;
  }
  /** Records `write` returned true for; more than `written` while buffered, or when a failed batch was lost. */
  get accepted(): number {
    return this.out.accepted;
  }
  get failure(): WriteError | undefined {
    return this.out.failure;
  }
  /** Take one record as one line. Returns false (and takes nothing more) once a write has failed. */
  write(r: RequestRecord): boolean {
    return this.out.append(recordLine(r));
  }
  /** Resolves once every record taken so far is on disk (or a write failed). */
  flush(): Promise<void> {
    return this.out.flush();
  }
  /** Write what is buffered, synchronously, and close the file. */
  close(): void {
    this.out.close();
  }
}

const RAW_FIELDS: (keyof RawRequest)[] = [
  'id', 'attempt', 'reconnected', 'warmup', 'class', 'status', 'http_status', 'error', 'code', 'scheduled_at_ms', 'sent_at_ms', 'headers_ms', 'end_ms',
  'streamed', 'event_times_ms', 'event_kinds', 'reasoning_chars', 'answer_chars', 'input_tokens', 'output_tokens',
  'reasoning_tokens', 'cached_tokens', 'token_source', 'expected_input_tokens', 'max_tokens', 'finish_reason',
  'usage_rejected', 'events_after_done',
  // Missing in files written before they existed: read as null.
  'connection_reused', 'blocked_ms', 'connecting_ms', 'tls_ms', 'sending_ms', 'request_id', 'samples',
];

export interface ReadResult {
  records: RequestRecord[];
  warnings: string[];
}

/** The record on one line of requests.jsonl, every derived metric recomputed from its raw fields. */
export function recordFromJson(o: Record<string, unknown>): RequestRecord {
  const raw = {} as Record<string, unknown>;
  for (const f of RAW_FIELDS) raw[f] = o[f] ?? (f === 'event_times_ms' ? [] : f === 'event_kinds' ? '' : null);
  if (raw.class === null) raw.class = undefined;
  for (const f of SERVER_TIMING_FIELDS) if (typeof o[f] === 'number') raw[f] = o[f];
  if (raw.attempt === null) raw.attempt = 1;
  if (raw.events_after_done === null) raw.events_after_done = 0; // files written before the field existed
  if (raw.samples === null) delete raw.samples; // only embeddings and rerank records carry it
  raw.reconnected = raw.reconnected === true;
  if (typeof raw.code !== 'string') raw.code = legacyCode(raw as unknown as RawRequest); // files written before the field existed
  // Files written before ramps existed (and any unknown value) read as steady.
  raw.phase = REQUEST_PHASES.includes(o.phase as RequestPhase) ? o.phase : 'steady';
  for (const k of ['endpoint', 'model', 'served_by'] as const) if (typeof o[k] === 'string') raw[k] = o[k];
  if (Number.isInteger(o.prefix_group)) raw.prefix_group = o.prefix_group;
  for (const k of ['session', 'agent', 'instance', 'source'] as const) if (typeof o[k] === 'string') raw[k] = o[k];
  for (const k of ['turn', 'ceiling_tokens'] as const) if (Number.isInteger(o[k]) && (o[k] as number) >= 0) raw[k] = o[k];
  for (const k of ['join_wait_ms', 'tool_wait_ms'] as const) if (typeof o[k] === 'number' && (o[k] as number) >= 0) raw[k] = o[k];
  for (const k of MEDIA_FIELDS) if ((typeof o[k] === 'number' && (o[k] as number) >= 0) || (o[k] === null && (k === 'image_tokens' || k === 'audio_tokens'))) raw[k] = o[k];
  if (typeof o.user_id === 'string') raw.user_id = o.user_id.slice(0, 128);
  if (Number.isSafeInteger(o.priority)) raw.priority = o.priority as number;
  if (Number.isInteger(o.response_bytes) && (o.response_bytes as number) >= 0) raw.response_bytes = o.response_bytes as number;
  if (Number.isInteger(o.stage) && (o.stage as number) >= 0) raw.stage = o.stage;
  if (typeof o.shard === 'string' && /^\d{1,5}\/\d{1,5}$/.test(o.shard)) raw.shard = o.shard;
  if (Number.isInteger(o.user) && (o.user as number) >= 0) raw.user = o.user;
  if (typeof o.generated_text === 'string') raw.generated_text = o.generated_text;
  return toRecord(raw as unknown as RawRequest);
}

/**
 * Parses requests.jsonl line by line (from any line source) and hands each record on; nothing is kept but warnings.
 * A line that is not JSON is skipped; among the last two lines (the file ends with a newline) it is called a truncated last line.
 */
export class RecordLineParser {
  private lines = 0;
  private readonly bad: { n: number; notObject: boolean }[] = [];
  constructor(
    readonly path: string,
    private readonly onRecord: (r: RequestRecord) => void,
  ) {}
  /** One line; `n` is 1-based. */
  line(n: number, text: string): void {
    this.lines = n;
    if (!text.trim()) return;
    let o: unknown;
    try {
      o = JSON.parse(text);
    } catch {
      this.bad.push({ n, notObject: false });
      return;
    }
    if (!o || typeof o !== 'object' || Array.isArray(o)) this.bad.push({ n, notObject: true });
    else this.onRecord(recordFromJson(o as Record<string, unknown>));
  }
  /** The warnings, once every line has been seen. */
  warnings(): string[] {
    return this.bad.map(({ n, notObject }) =>
      notObject
        ? `${this.path}:${n}: not a request record (expected a JSON object), skipped`
        : `${this.path}:${n}: ${n >= this.lines - 1 ? 'truncated last line skipped (the run was killed mid-write?)' : 'unreadable line skipped'}`,
    );
  }
}

/** Read requests.jsonl whole, in file order (src/artifacts/records.ts streams it instead, sorted or through the aggregator). */
export function readRecords(path: string): ReadResult {
  const records: RequestRecord[] = [];
  const parser = new RecordLineParser(path, (r) => records.push(r));
  readFileSync(path, 'utf8')
    .split('\n')
    .forEach((line, i) => parser.line(i + 1, line));
  return { records, warnings: parser.warnings() };
}
