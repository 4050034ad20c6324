// A stream whose body ends before its protocol's end event is a failed record (E_STREAM_TRUNCATED), on both
// transports; the same stream with its end event is ok (issue 25 item 27).
import { afterEach, describe, expect, it } from 'vitest';
import { run } from '../src/run.js';
import { startScriptServer, type ScriptServer } from './fixtures/script-server.js';
import { tmpDir } from './helpers.js';

let server: ScriptServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const sse = (o: unknown, event?: string) => `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(o)}\n\n`;
const nd = (o: unknown) => `${JSON.stringify(o)}\n`;

/** Per protocol: its content type, the stream's body without the end event, and the end event. */
const CASES = {
  'anthropic-messages': {
    type: 'text/event-stream',
    body: sse({ type: 'message_start', message: { usage: { input_tokens: 8 } } }, 'message_start') + sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hi there' } }, 'content_block_delta'),
    end: sse({ type: 'message_stop' }, 'message_stop'),
    name: 'message_stop',
  },
  'openai-responses': {
    type: 'text/event-stream',
    body: sse({ type: 'response.output_text.delta', delta: 'hi there' }),
    end: sse({ type: 'response.completed', response: { status: 'completed', usage: { input_tokens: 8, output_tokens: 2 } } }),
    name: 'response.completed',
  },
  ollama: { type: 'application/x-ndjson', body: nd({ message: { role: 'assistant', content: 'hi there' }, done: false }), end: nd({ message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', prompt_eval_count: 8, eval_count: 2 }), name: '"done": true' },
  llamacpp: { type: 'text/event-stream', body: sse({ content: 'hi there', stop: false }), end: sse({ content: '', stop: true, tokens_evaluated: 8, tokens_predicted: 2 }), name: '"stop": true' },
} as const;

describe.each(['h1', 'undici'] as const)('streams cut before their end event (transport %s)', (transport) => {
  it.each(Object.keys(CASES) as (keyof typeof CASES)[])('%s', async (backend) => {
    const k = CASES[backend];
    server = await startScriptServer((_b, n) => ({ headers: { 'content-type': k.type }, steps: [{ at: 1, write: n === 0 ? k.body : k.body + k.end }] }));
    const res = await run({ validate: false, baseUrl: server.baseUrl, backend, model: 'm', requests: 2, concurrency: 1, inputTokens: 8, outputTokens: 4, out: tmpDir(), quiet: true, transport, serverMetrics: false });
    const [cut, whole] = [...res.records].sort((a, b) => a.id - b.id);
    expect(cut).toMatchObject({ status: 'parse_error', code: 'E_STREAM_TRUNCATED', error: `stream ended without its end event (${k.name}): cut short` });
    expect([whole.status, whole.error]).toEqual(['ok', null]);
  });
});
