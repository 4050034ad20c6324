// Bailian (Qwen) usage traces (JSONL): chat_id, parent_chat_id (-1 = root), timestamp (s), input_length, output_length, type, turn, hash_ids (16-token blocks).
import type { TraceLoader } from '../loader.js';
import { hashCoverageProblem, hashIdsProblem, nonNegInt, SessionClock } from '../problems.js';
import { jsonlOf } from './files.js';

const idOf = (v: unknown): string | undefined => (typeof v === 'number' && Number.isFinite(v)) || (typeof v === 'string' && v !== '') ? String(v) : undefined;

export const bailian: TraceLoader = {
  describe: 'Bailian JSONL: chat_id, parent_chat_id (-1 = root), timestamp (s), input_length, output_length, type, turn, hash_ids',
  defaultBlockSize: 16,
  detect: ({ json }) => (json && 'chat_id' in json ? 'first record has chat_id (Bailian)' : undefined),
  *read(file, { problems, blockSize }) {
    // Each row is a whole request; a follow-up names its parent chat, and the session is the root's chat_id.
    const rootOf = new Map<string, string>();
    const turns = new Map<string, number>();
    const clock = new SessionClock();
    let index = 0;
    for (const r of jsonlOf(file)) {
      const where = `${file}:${r.line}`;
      if (!r.value) {
        problems.add(where, 'record', r.problem ?? 'empty');
        continue;
      }
      const o = r.value;
      let bad = false;
      const fail = (field: string, msg: string): void => {
        problems.add(where, field, msg);
        bad = true;
      };
      const chat = idOf(o.chat_id);
      const parent = o.parent_chat_id === undefined ? '-1' : idOf(o.parent_chat_id);
      const ts = o.timestamp;
      const inputLength = nonNegInt(o.input_length);
      const outputLength = nonNegInt(o.output_length);
      if (chat === undefined) fail('chat_id', `must be an id, got ${JSON.stringify(o.chat_id)}`);
      if (parent === undefined) fail('parent_chat_id', `must be an id or -1, got ${JSON.stringify(o.parent_chat_id)}`);
      if (typeof ts !== 'number' || !Number.isFinite(ts) || ts < 0) fail('timestamp', `must be a non-negative number of seconds, got ${JSON.stringify(ts)}`);
      if (!inputLength) fail('input_length', `must be a positive integer, got ${JSON.stringify(o.input_length)}`);
      if (outputLength === undefined) fail('output_length', `must be a non-negative integer, got ${JSON.stringify(o.output_length)}`);
      if (o.turn !== undefined && !nonNegInt(o.turn)) fail('turn', `must be a positive integer, got ${JSON.stringify(o.turn)}`);
      let hashIds: number[] | undefined;
      if (o.hash_ids !== undefined) {
        const p = hashIdsProblem(o.hash_ids);
        if (p) fail('hash_ids', p);
        else if (inputLength) {
          hashIds = o.hash_ids as number[];
          const c = hashCoverageProblem(hashIds, inputLength, blockSize);
          if (c) fail('hash_ids', c);
        }
      }
      if (bad) continue;
      const session = parent === '-1' ? (chat as string) : (rootOf.get(parent as string) ?? (parent as string));
      rootOf.set(chat as string, session);
      const atMs = (ts as number) * 1000;
      const back = clock.check(session, atMs, where);
      if (back) {
        problems.add(where, 'timestamp', `session ${session}: ${back}`);
        continue;
      }
      const counted = turns.get(session) ?? 0;
      turns.set(session, counted + 1);
      yield {
        index: index++,
        atMs,
        inputLength: inputLength as number,
        outputLength: outputLength as number,
        session,
        // `turn` is 1-based in the file.
        turn: typeof o.turn === 'number' ? o.turn - 1 : counted,
        source: where,
        ...(hashIds ? { hashIds } : {}),
      };
    }
  },
};
