// Mooncake traces (JSONL): timestamp (ms), input_length, output_length, hash_ids (512-token blocks); optional session_id and delay (ms).
import type { TraceLoader } from '../loader.js';
import type { TraceRequest } from '../model.js';
import { hashCoverageProblem, hashIdsProblem, nonNegInt, SessionClock } from '../problems.js';
import { jsonlOf } from './files.js';
import { traceInstance } from '../../replay.js';

export const mooncake: TraceLoader = {
  describe: 'Mooncake JSONL: timestamp (ms), input_length, output_length, hash_ids; optional session_id, delay (ms)',
  defaultBlockSize: 512,
  detect: ({ json }) => (json && 'input_length' in json && !('chat_id' in json) ? `first record has input_length${'hash_ids' in json ? ' and hash_ids' : ''} (Mooncake)` : undefined),
  *read(file, { problems, blockSize }) {
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
      const session = typeof o.session_id === 'string' || typeof o.session_id === 'number' ? String(o.session_id) : undefined;
      const ts = o.timestamp;
      const delay = o.delay;
      const inputLength = nonNegInt(o.input_length);
      const outputLength = nonNegInt(o.output_length);
      let bad = false;
      const fail = (field: string, msg: string): void => {
        problems.add(where, field, msg);
        bad = true;
      };
      const inst = traceInstance(o.instance);
      if (typeof inst === 'string') fail('instance', inst.replace(/^instance /, ''));
      if (ts !== undefined && (typeof ts !== 'number' || !Number.isFinite(ts) || ts < 0)) fail('timestamp', `must be a non-negative number of ms, got ${JSON.stringify(ts)}`);
      if (delay !== undefined && (typeof delay !== 'number' || !Number.isFinite(delay) || delay < 0)) fail('delay', `must be a non-negative number of ms, got ${JSON.stringify(delay)}`);
      if (ts === undefined && (delay === undefined || session === undefined)) fail('timestamp', 'needs a timestamp (ms), or a session_id and a delay (ms)');
      if (inputLength === undefined || inputLength === 0) fail('input_length', `must be a positive integer, got ${JSON.stringify(o.input_length)}`);
      if (outputLength === undefined) fail('output_length', `must be a non-negative integer, got ${JSON.stringify(o.output_length)}`);
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
      if (!bad && session !== undefined && typeof ts === 'number') {
        const c = clock.check(session, ts, where);
        if (c) fail('timestamp', `session ${session}: ${c}`);
      }
      if (bad) continue;
      const turn = session === undefined ? 0 : (turns.get(session) ?? 0);
      if (session !== undefined) turns.set(session, turn + 1);
      const req: TraceRequest = {
        index: index++,
        inputLength: inputLength as number,
        outputLength: outputLength as number,
        turn,
        source: where,
        ...(typeof ts === 'number' ? { atMs: ts } : {}),
        ...(hashIds ? { hashIds } : {}),
        ...(session !== undefined ? { session } : {}),
        ...(typeof delay === 'number' ? { gapMs: delay } : {}),
        ...(typeof inst === 'object' ? inst : {}),
      };
      yield req;
    }
  },
};
