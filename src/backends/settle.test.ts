import { describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { settleRecord, type SettleWording } from './settle.js';
import { blankRaw } from './exchange-parts.js';
import { EventLog } from './event-log.js';
import { WsExchange } from './ws/exchange.js';
import type { ExecuteResult } from './execute.js';
import type { WsChunk } from './ws/classify.js';

const W: SettleWording = { parseCode: 'E_X_PARSE', streamError: (t) => `err: ${t}`, noTokens: 'no tokens', noResults: 'no results' };
const id = { id: 1, warmup: false, cls: undefined, scheduledAtMs: 0, stream: true, expectedInputTokens: 3, maxTokens: 8 };
const chunk = (c: Partial<WsChunk>): WsChunk => ({ kind: 'x', reasoning: '', answer: '', usage: null, finishReason: null, error: null, done: false, ...c });

function settled(...events: Partial<WsChunk>[]) {
  const raw = blankRaw(id, 0);
  const log = new EventLog(raw);
  events.forEach((e, i) => log.absorb(chunk(e), i));
  settleRecord(raw, log, 8, W);
  return raw;
}

describe('settleRecord: one verdict for every transport', () => {
  it('an answer that carried samples (embeddings, rerank) but no tokens stays ok', () => {
    expect(settled({ kind: 'u', samples: 4 })).toMatchObject({ status: 'ok', code: null, samples: 4 });
  });

  it('no tokens and no samples is empty; 0 samples says no results', () => {
    expect(settled({ kind: 'u' })).toMatchObject({ status: 'empty', code: 'E_EMPTY', error: 'no tokens' });
    expect(settled({ kind: 'u', samples: 0 })).toMatchObject({ status: 'empty', code: 'E_EMPTY', error: 'no results' });
  });

  it('an error event wins over a parse error, a parse error over an empty answer', () => {
    expect(settled({ kind: 'x', error: 'bad json' }, { kind: 'e', error: 'boom' })).toMatchObject({ status: 'http_error', code: 'E_STREAM_ERROR_EVENT', error: 'err: boom' });
    expect(settled({ kind: 'x', error: 'bad json' })).toMatchObject({ status: 'parse_error', code: 'E_X_PARSE', error: 'bad json' });
  });

  it('a missing end event is E_STREAM_TRUNCATED; a failed record keeps its status', () => {
    const raw = blankRaw(id, 0);
    const log = new EventLog(raw);
    log.absorb(chunk({ kind: 'a', answer: 'hi' }), 1);
    settleRecord(raw, log, 8, W, 'message_stop');
    expect(raw).toMatchObject({ status: 'parse_error', code: 'E_STREAM_TRUNCATED' });
    const failed = blankRaw(id, 0);
    failed.status = 'timeout';
    settleRecord(failed, new EventLog(failed), 8, W);
    expect(failed.status).toBe('timeout');
  });

  it('the WebSocket exchange uses the same verdict: an answer of samples is not empty (the drifted copy said E_EMPTY)', async () => {
    const result = await new Promise<ExecuteResult>((resolve) => {
      const ex = new WsExchange({ ...id, timeoutMs: 0, now: () => 1 }, () => chunk({ kind: 'u', samples: 2, done: true }), resolve);
      const ws = { send: (_m: string, cb: (err?: Error) => void) => cb() } as unknown as WebSocket;
      ex.connected(true, null);
      ex.send(ws, ['{}']);
      ex.message(Buffer.from('{"data":[1,2]}'));
    });
    expect(result.raw).toMatchObject({ status: 'ok', code: null, samples: 2 });
  });
});
