// Weka / agentic-coding traces: one JSON object per session file (or a directory of them) with requests[] and nested subagents.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../../../errors.js';
import type { TraceLoader, TraceReadContext } from '../loader.js';
import type { TraceRequest } from '../model.js';
import { hashCoverageProblem, hashIdsProblem, nonNegInt, SessionClock } from '../problems.js';
import { jsonDocument } from './files.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/** The session files of a path: the file itself, or a directory's *.json files in name order. */
export function sessionFiles(path: string): string[] {
  let dir = false;
  try {
    dir = statSync(path).isDirectory();
  } catch (e) {
    throw new UsageError([`${path}: cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`]);
  }
  if (!dir) return [path];
  const files = readdirSync(path)
    .filter((f) => f.toLowerCase().endsWith('.json'))
    .sort()
    .map((f) => join(path, f));
  if (!files.length) throw new UsageError([`${path}: a directory with no *.json session file`]);
  return files;
}

interface Turn {
  o: Obj;
  where: string;
  /** Position in the parent's requests[]. */
  pos: number;
}

/**
 * One session file. Rules (as AIPerf's loader states them): a subagent is spawned by the parent's preceding turn and the
 * parent's following turn waits for it (join); with no following turn it runs in the background; with no preceding turn
 * it is dropped and counted. Subagent request times are relative to the marker's `t` (kv-cache-tester), unless every
 * subagent's first request is at or after its marker's `t` (absolute, as SemiAnalysis publishes them).
 * Hash ids are per conversation, so file k of n maps id h to h * n + k: one namespace across the directory. A session
 * with `"hash_id_scope": "trace"` (tokenflood's `trace synth`) shares ids with the others that say so: they all map h to
 * h * n + k0, k0 the first such file (a slot no per-conversation file uses), so a shared system prompt stays shared.
 */
function* readSession(file: string, fileIndex: number, files: number, ctx: TraceReadContext, next: { index: number; sharedSlot?: number }): Generator<TraceRequest> {
  const { problems } = ctx;
  const doc = jsonDocument(file);
  if (doc.problem || !isObj(doc.value)) {
    problems.add(file, 'file', doc.problem ?? 'expected one JSON object (a session) per file');
    return;
  }
  const s = doc.value;
  const id = typeof s.id === 'string' || typeof s.id === 'number' ? String(s.id) : undefined;
  if (id === undefined) return problems.add(file, 'id', 'a session needs an id');
  if (!Array.isArray(s.requests)) return problems.add(`${file} session ${id}`, 'requests', 'must be a list');
  const blockSize = ctx.options.blockSize ?? (nonNegInt(s.block_size) || ctx.blockSize);
  if (fileIndex === 0 && ctx.options.blockSize === undefined) ctx.summary.blockSize = blockSize;
  const clock = new SessionClock();
  const slot = s.hash_id_scope === 'trace' ? (next.sharedSlot ??= fileIndex) : fileIndex;
  const mapIds = (ids: number[]): number[] => (files === 1 ? ids : ids.map((h) => h * files + slot));

  /** A request entry checked; undefined when bad (the problem recorded). */
  const request = (o: Obj, where: string, timeKey: string, offsetMs: number): Omit<TraceRequest, 'index' | 'turn' | 'source'> | undefined => {
    let bad = false;
    const fail = (field: string, msg: string): void => {
      problems.add(where, field, msg);
      bad = true;
    };
    const t = o.t;
    const inputLength = nonNegInt(o.in);
    const outputLength = nonNegInt(o.out);
    if (typeof t !== 'number' || !Number.isFinite(t) || t < 0) fail('t', `must be a non-negative number of seconds, got ${JSON.stringify(t)}`);
    if (!inputLength) fail('in', `must be a positive integer, got ${JSON.stringify(o.in)}`);
    if (outputLength === undefined) fail('out', `must be a non-negative integer, got ${JSON.stringify(o.out)}`);
    if (o.think_time !== undefined && (typeof o.think_time !== 'number' || !(o.think_time >= 0))) fail('think_time', `must be a non-negative number of seconds, got ${JSON.stringify(o.think_time)}`);
    let hashIds: number[] | undefined;
    if (o.hash_ids !== undefined) {
      const p = hashIdsProblem(o.hash_ids);
      if (p) fail('hash_ids', p);
      else if (inputLength) {
        const c = hashCoverageProblem(o.hash_ids as number[], inputLength, blockSize);
        if (c) fail('hash_ids', c);
        else hashIds = mapIds(o.hash_ids as number[]);
      }
    }
    if (bad) return undefined;
    const atMs = offsetMs + (t as number) * 1000;
    const back = clock.check(timeKey, atMs, where);
    if (back) {
      problems.add(where, 't', `session ${id}: ${back}`);
      return undefined;
    }
    return {
      atMs,
      inputLength: inputLength as number,
      outputLength: outputLength as number,
      session: id,
      ...(hashIds ? { hashIds } : {}),
      ...(typeof o.think_time === 'number' ? { gapMs: o.think_time * 1000 } : {}),
      ...(typeof o.model === 'string' ? { model: o.model } : {}),
    };
  };

  const entries = s.requests as unknown[];
  const where = (i: number): string => `${file} session ${id} requests[${i}]`;
  // Parent turns by position, so each subagent finds its preceding and following turn.
  const mains: Turn[] = [];
  entries.forEach((o, pos) => {
    if (isObj(o) && o.type !== 'subagent') mains.push({ o, where: where(pos), pos });
  });
  const subs = entries.map((o, pos) => ({ o, pos })).filter((e): e is { o: Obj; pos: number } => isObj(e.o) && e.o.type === 'subagent');
  const absolute = subs.length > 0 && subs.every(({ o }) => {
    const inner = Array.isArray(o.requests) && isObj(o.requests[0]) ? o.requests[0].t : undefined;
    return typeof inner === 'number' && typeof o.t === 'number' && inner >= o.t;
  });
  let turn = 0;
  for (let pos = 0; pos < entries.length; pos++) {
    const o = entries[pos];
    if (!isObj(o)) {
      problems.add(where(pos), 'request', 'expected a JSON object');
      continue;
    }
    if (o.type !== 'subagent') {
      const r = request(o, where(pos), '', 0);
      const t = turn++;
      if (r) yield { ...r, index: next.index++, turn: t, source: where(pos) };
      continue;
    }
    const agent = typeof o.agent_id === 'string' || typeof o.agent_id === 'number' ? String(o.agent_id) : undefined;
    if (agent === undefined || agent === '') {
      problems.add(where(pos), 'agent_id', 'a subagent needs an id');
      continue;
    }
    if (!Array.isArray(o.requests)) {
      problems.add(where(pos), 'requests', `subagent ${agent}: must be a list`);
      continue;
    }
    if (typeof o.t !== 'number' || !Number.isFinite(o.t) || o.t < 0) {
      problems.add(where(pos), 't', `subagent ${agent}: must be a non-negative number of seconds, got ${JSON.stringify(o.t)}`);
      continue;
    }
    const before = mains.filter((m) => m.pos < pos).length;
    if (before === 0) {
      ctx.summary.droppedSubagents++;
      continue;
    }
    const after = mains.some((m) => m.pos > pos);
    const spawn = { afterTurn: before - 1, ...(after ? { joinTurn: before } : {}) };
    const offsetMs = absolute ? 0 : o.t * 1000;
    let subTurn = 0;
    for (let j = 0; j < o.requests.length; j++) {
      const inner = o.requests[j];
      const w = `${where(pos)}.requests[${j}]`;
      if (!isObj(inner)) {
        problems.add(w, 'request', 'expected a JSON object');
        continue;
      }
      const r = request(inner, w, `agent ${agent}`, offsetMs);
      const t = subTurn++;
      if (r) yield { ...r, index: next.index++, turn: t, agent, spawn, source: w };
    }
  }
}

export const weka: TraceLoader = {
  describe: 'Weka / agentic coding: one JSON session per file (or a directory): id, block_size, requests[] with t (s), in, out, hash_ids, subagents',
  defaultBlockSize: 64,
  detect: ({ json }) => (json && Array.isArray(json.requests) ? 'first record is a session with requests[] (Weka)' : undefined),
  *read(path, ctx) {
    const files = sessionFiles(path);
    const next: { index: number; sharedSlot?: number } = { index: 0 };
    for (let k = 0; k < files.length; k++) yield* readSession(files[k], k, files.length, ctx, next);
  },
};
