// Dataset workload: file items sent once or reused, in order or at random; multi-turn conversations carry their history.
import { capProblem } from './caps.js';
import { byUserOrder } from './users-order.js';
import type { WorkloadParams } from './params.js';
import type { Tokenizer } from './tokenizer.js';
import type { Rng } from '../util/rng.js';
import type { ChatMessage, RequestSpec } from './types.js';
import type { CompletedRequest, Workload } from './workload-types.js';
import type { DatasetItem, DatasetTurn } from './items.js';
import { UsageError } from '../errors.js';
import { loadDataset } from './load.js';
import { createSource } from './source.js';
import { countPrompt, flatPrompt } from './prompt.js';
import { resolveLength } from './lengths.js';
import { sampleLength, type LengthDist } from './distribution.js';
import { estimateTokens } from './token-estimate.js';
import type { MediaOptions } from './media-load.js';

/** --max-media-bytes and --media-hosts (comma lists, possibly repeated) as the loader's media options. */
export const mediaOptions = (c: Pick<WorkloadParams, 'maxMediaBytes' | 'mediaHosts'>): MediaOptions => ({
  maxBytes: c.maxMediaBytes,
  hosts: (c.mediaHosts ?? []).flatMap((h) => h.split(',')).map((h) => h.trim()).filter(Boolean),
});

/** Output length of a turn: --max-tokens, else the data's max_tokens, else the recorded answer's length, else --output-tokens. */
export function turnOutputTokens(c: WorkloadParams, turn: DatasetTurn, tok: Tokenizer, dist: LengthDist, rng: Rng): number {
  if (c.maxTokens !== undefined) return c.maxTokens;
  if (turn.maxTokens !== undefined) return turn.maxTokens;
  if (turn.answer !== undefined && turn.answer !== '') return Math.max(1, tok.count(turn.answer));
  return sampleLength(dist, rng);
}

/** Class of a turn in a dataset with conversations: first turns and later turns apart, under the item's own class. */
export function turnClass(cls: string | undefined, turn: number): string {
  const t = turn === 0 ? 'turn-1' : 'turn-2+';
  return cls ? `${cls}/${t}` : t;
}

interface Conv {
  item: DatasetItem;
  /** Output length per turn, fixed at load time so runs repeat. */
  outTokens: number[];
  /** First-turn input length (counted at load time). */
  firstInput: number;
}

interface Session {
  id: string;
  conv: Conv;
  /** Index of the next turn to send. */
  turn: number;
  history: ChatMessage[];
  /** Tokens of `history` (chat: sum of contents). */
  historyTokens: number;
}

/** Answers longer than this are not re-counted on the measuring thread (BPE can be quadratic on hostile text). */
const IN_THREAD_COUNT_CHARS = 4096;

/**
 * Tokens of a finished turn's answer for the history: the record's own count when tokenflood counted it (off the
 * measuring thread), a count of a short answer, else the server's count, else the documented estimate.
 */
function answerTokens(done: CompletedRequest, tok: Tokenizer): number {
  const r = done.record;
  const counted = r.token_source === 'tokenizer' || r.token_source === 'estimate';
  if (counted && r.output_tokens !== null) return Math.max(0, r.output_tokens - (r.reasoning_tokens ?? 0));
  if (done.answerText.length <= IN_THREAD_COUNT_CHARS) return tok.count(done.answerText);
  if (r.output_tokens !== null) return Math.max(0, r.output_tokens - (r.reasoning_tokens ?? 0));
  return estimateTokens(done.answerText);
}


function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

export function createDatasetWorkload(c: WorkloadParams, tok: Tokenizer, rng: Rng, signal?: AbortSignal, wait: typeof sleep = sleep): Workload {
  const file = c.dataset as string;
  const data = loadDataset(file, { format: c.datasetFormat, fields: c.datasetField, strict: c.strict, media: mediaOptions(c) });
  const outDist = resolveLength(c.outputTokens, '--output-tokens');
  const lenRng = rng.fork();
  const limit = c.maxModelLen;
  const convs: Conv[] = [];
  let skipped = 0;
  const overCaps: string[] = [];
  for (const item of data.items) {
    const outTokens = item.turns.map((t) => turnOutputTokens(c, t, tok, outDist, lenRng));
    const firstInput = countPrompt(tok, item.turns[0].messages, c.endpoint);
    const over = capProblem(c, item.source, firstInput, outTokens);
    if (over !== undefined) overCaps.push(over);
    else if (limit !== undefined && firstInput + outTokens[0] > limit) skipped++;
    else convs.push({ item, outTokens, firstInput });
  }
  // Over a vendor cap: a bad record like any other (skipped, counted, named), and --strict refuses the file.
  if (c.strict && overCaps.length) throw new UsageError(overCaps);
  const multiTurn = convs.some((v) => v.item.turns.length > 1);
  const info: Record<string, unknown> = {
    kind: 'dataset',
    file,
    format: data.format,
    mode: c.datasetMode,
    order: c.datasetOrder,
    items: convs.length,
    records: data.records,
    skipped_bad_records: data.problems.length + overCaps.length,
    ...(c.maxInputTokens !== undefined || c.maxOutputTokens !== undefined ? { skipped_over_caps: overCaps.length } : {}),
    ...(multiTurn ? { conversations: convs.filter((v) => v.item.turns.length > 1).length, turns: convs.reduce((s, v) => s + v.item.turns.length, 0), think_time_s: typeof c.thinkTime === 'number' ? c.thinkTime : 0 } : {}),
    ...(limit !== undefined ? { max_model_len: limit, skipped_over_max_model_len: skipped } : {}),
    warnings: [
      ...data.problems.slice(0, 20),
      ...(data.problems.length > 20 ? [`... and ${data.problems.length - 20} more bad records`] : []),
      ...overCaps.slice(0, 20),
      ...(overCaps.length > 20 ? [`... and ${overCaps.length - 20} more records over --max-input-tokens/--max-output-tokens`] : []),
      ...(skipped ? [`${skipped} items skipped: input + max_tokens exceeds --max-model-len ${limit}`] : []),
    ],
  };
  if (convs.length === 0 && overCaps.length) throw new UsageError([`every item of ${file} is over --max-input-tokens/--max-output-tokens`, ...overCaps.slice(0, 20)]);
  if (convs.length === 0)
    throw new UsageError([`--max-model-len: every item of ${file} exceeds ${limit} tokens (input + max_tokens)`]);
  // --dataset-order by-user: each user's items in file order, users interleaved round-robin (users-order.ts).
  if (c.datasetOrder === 'by-user') convs.splice(0, convs.length, ...byUserOrder(convs, (v) => v.item.user));
  const source = createSource(convs.length, c.datasetMode, c.datasetOrder === 'random' ? 'random' : 'sequential', rng.fork());
  const firstSpec = (v: Conv, cls: string | undefined, extra: Partial<RequestSpec> = {}): RequestSpec => ({
    messages: v.item.turns[0].messages,
    prompt: flatPrompt(v.item.turns[0].messages),
    inputTokens: v.firstInput,
    maxTokens: v.outTokens[0],
    ...(cls !== undefined ? { class: cls } : {}),
    ...(v.item.user !== undefined ? { user: v.item.user } : {}),
    ...(v.item.priority !== undefined ? { priority: v.item.priority } : {}),
    source: v.item.source,
    ...(v.item.turns[0].media?.length ? { media: v.item.turns[0].media } : {}),
    ...extra,
  });
  const size = c.datasetMode === 'once' ? convs.reduce((s, v) => s + v.item.turns.length, 0) : undefined;
  if (!multiTurn) {
    const specs = convs.map((v) => firstSpec(v, v.item.class));
    // Request j gets the source's j-th item, also when a shard (--shard) asks only for every N-th request.
    let taken = 0;
    return {
      next: (j) => {
        let i: number | undefined;
        do i = source.take();
        while (++taken <= j && i !== undefined);
        return i === undefined ? undefined : specs[i];
      },
      size,
      describe: () => info,
    };
  }
  return createSessionWorkload(c, tok, convs, source, firstSpec, info, size, signal, wait);
}

/**
 * Multi-turn: a virtual user that finished a turn continues its own conversation (after --think-time),
 * sending the history with the server's real answers; users without a conversation start the next one.
 * A failed turn, or one that would overflow --max-model-len, ends its conversation early (counted).
 */
function createSessionWorkload(
  c: WorkloadParams,
  tok: Tokenizer,
  convs: Conv[],
  source: ReturnType<typeof createSource>,
  firstSpec: (v: Conv, cls: string | undefined, extra?: Partial<RequestSpec>) => RequestSpec,
  info: Record<string, unknown>,
  size: number | undefined,
  signal: AbortSignal | undefined,
  wait: typeof sleep,
): Workload {
  const sessions = new Map<string, Session>();
  const handoff: Session[] = [];
  const waiters: ((s: Session | undefined) => void)[] = [];
  let started = 0;
  info.sessions_started = 0;
  info.sessions_cut_short = 0;
  info.turns_skipped = 0;
  const limit = c.maxModelLen;
  // Reused data (closed loop) never runs out: a user whose conversation goes on comes back for it. Once mode and open
  // loop (--rate) must wait while a conversation still has turns: each call of next() takes one of the run's request
  // indexes (once mode's run is exactly the data's turns), so a user leaving early would leave a later turn unsent.
  const waitForTurns = c.rate !== undefined || c.datasetMode === 'once';

  const specFor = (s: Session): RequestSpec => {
    const turn = s.conv.item.turns[s.turn];
    const messages = [...s.history, ...turn.messages];
    const newTokens = c.endpoint === 'chat' ? countPrompt(tok, turn.messages, 'chat') : 0;
    return {
      messages,
      prompt: flatPrompt(messages),
      inputTokens: c.endpoint === 'chat' ? s.historyTokens + newTokens : countPrompt(tok, messages, 'completions'),
      maxTokens: s.conv.outTokens[s.turn],
      class: turnClass(s.conv.item.class, s.turn),
      ...(s.conv.item.user !== undefined ? { user: s.conv.item.user } : {}),
      ...(s.conv.item.priority !== undefined ? { priority: s.conv.item.priority } : {}),
      sessionId: s.id,
      turn: s.turn,
      source: s.conv.item.source,
      ...(turn.media?.length ? { media: turn.media } : {}),
    };
  };
  const finish = (s: Session) => {
    sessions.delete(s.id);
    if (sessions.size === 0) while (waiters.length) waiters.shift()?.(undefined);
  };
  signal?.addEventListener('abort', () => {
    while (waiters.length) waiters.shift()?.(undefined);
  }, { once: true });

  const continueSession = async (s: Session): Promise<RequestSpec | undefined> => {
    await wait(typeof c.thinkTime === 'number' ? c.thinkTime * 1000 : 0, signal);
    return specFor(s);
  };

  return {
    size,
    async next() {
      const cont = handoff.shift();
      if (cont) return continueSession(cont);
      const i = source.take();
      if (i !== undefined) {
        const conv = convs[i];
        const id = `${conv.item.session ?? `c${i}`}#${++started}`;
        info.sessions_started = started;
        const s: Session = { id, conv, turn: 0, history: [], historyTokens: 0 };
        sessions.set(id, s);
        return firstSpec(conv, turnClass(conv.item.class, 0), { sessionId: id, turn: 0 });
      }
      if (!waitForTurns || sessions.size === 0 || signal?.aborted) return undefined;
      const s = await new Promise<Session | undefined>((r) => waiters.push(r));
      return s ? continueSession(s) : undefined;
    },
    complete(done: CompletedRequest) {
      const s = done.spec.sessionId !== undefined ? sessions.get(done.spec.sessionId) : undefined;
      if (!s) return;
      const turns = s.conv.item.turns;
      if (!done.ok) {
        info.sessions_cut_short = (info.sessions_cut_short as number) + 1;
        info.turns_skipped = (info.turns_skipped as number) + turns.length - s.turn - 1;
        return finish(s);
      }
      const sent = turns[s.turn].messages;
      s.history.push(...sent, { role: 'assistant', content: done.answerText });
      if (c.endpoint === 'chat') s.historyTokens = done.spec.inputTokens + answerTokens(done, tok);
      s.turn++;
      if (s.turn >= turns.length) return finish(s);
      if (limit !== undefined) {
        const next = specFor(s);
        if (next.inputTokens + next.maxTokens > limit) {
          info.turns_skipped = (info.turns_skipped as number) + turns.length - s.turn;
          info.skipped_over_max_model_len = ((info.skipped_over_max_model_len as number) ?? 0) + 1;
          return finish(s);
        }
      }
      const w = waiters.shift();
      if (w) w(s);
      else handoff.push(s);
    },
    describe: () => info,
  };
}
