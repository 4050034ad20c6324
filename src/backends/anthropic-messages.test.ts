// The Anthropic Messages backend: body, auth headers, and every streamed event type classified onto the record's event kinds.
import { describe, it, expect } from 'vitest';
import { anthropicMessages, anthropicUsage, classifyMessagesData, ANTHROPIC_VERSION } from './anthropic-messages.js';
import { requestHeaders } from '../drivers/real.js';
import type { RequestSpec } from '../dataset/types.js';

const spec = { messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'hi' }], prompt: 'hi', inputTokens: 2, maxTokens: 7 } as RequestSpec;
const ev = (o: Record<string, unknown>, event?: string) => classifyMessagesData(JSON.stringify(o), event);

describe('anthropic-messages backend', () => {
  it('posts /messages with the system prompt apart and max_tokens; no seed in this protocol', () => {
    const b = anthropicMessages.buildBody(spec, { model: 'm', stream: true, ignoreEos: false, seed: 3, topK: 5 });
    expect(anthropicMessages.path).toBe('/messages');
    expect(b).toEqual({ model: 'm', max_tokens: 7, stream: true, messages: [{ role: 'user', content: 'hi' }], system: 'be brief', top_k: 5 });
  });

  it('carries the key in x-api-key with anthropic-version, never as a bearer token; --header values win', () => {
    const h = requestHeaders('sk-ant-secret-0123456789', {}, anthropicMessages.authHeaders);
    expect(h).toMatchObject({ 'x-api-key': 'sk-ant-secret-0123456789', 'anthropic-version': ANTHROPIC_VERSION });
    expect(h.authorization).toBeUndefined();
    const own = requestHeaders('k', { 'anthropic-version': '2099-01-01' }, anthropicMessages.authHeaders);
    expect(own['anthropic-version']).toBe('2099-01-01');
    expect(requestHeaders(undefined, {}, anthropicMessages.authHeaders)['x-api-key']).toBeUndefined();
  });

  it('classifies message_start, thinking and text deltas, message_delta usage, message_stop, ping and error', () => {
    expect(ev({ type: 'message_start', message: { usage: { input_tokens: 10, output_tokens: 1, cache_read_input_tokens: 6 } } })).toMatchObject({
      kind: 'r', usage: { prompt_tokens: 16, completion_tokens: undefined, cached_tokens: 6 },
    });
    expect(ev({ type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } }).kind).toBe('r');
    expect(ev({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'hm' } })).toMatchObject({ kind: 'R', reasoning: 'hm' });
    expect(ev({ type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'xyz' } }).kind).toBe('r');
    expect(ev({ type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Hi' } })).toMatchObject({ kind: 'a', answer: 'Hi' });
    expect(ev({ type: 'content_block_stop', index: 1 }).kind).toBe('r');
    expect(ev({ type: 'message_delta', delta: { stop_reason: 'max_tokens' }, usage: { output_tokens: 7 } })).toMatchObject({ kind: 'u', finishReason: 'length', usage: { completion_tokens: 7 } });
    expect(ev({ type: 'message_delta', delta: { stop_reason: 'end_turn' } })).toMatchObject({ kind: 'r', finishReason: 'stop', usage: null });
    expect(ev({ type: 'message_stop' }).kind).toBe('d');
    expect(ev({ type: 'ping' }).kind).toBe('h');
    expect(classifyMessagesData('{}', 'ping').kind).toBe('h');
    expect(ev({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })).toMatchObject({ kind: 'e', error: 'Overloaded' });
    expect(anthropicMessages.classifyErrorEvent('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}')).toMatchObject({ kind: 'e', error: 'Overloaded' });
  });

  it('leaves a non-count input value for the usage check to reject', () => {
    expect(anthropicUsage({ input_tokens: 'many' }, true)).toMatchObject({ prompt_tokens: 'many' });
  });

  it('reads a whole non-streamed message', () => {
    const body = { type: 'message', content: [{ type: 'thinking', thinking: 'hm' }, { type: 'text', text: 'Hello' }], stop_reason: 'end_turn', usage: { input_tokens: 3, output_tokens: 4 } };
    expect(ev(body)).toMatchObject({ kind: 'a', answer: 'Hello', reasoning: 'hm', usage: { prompt_tokens: 3, completion_tokens: 4 }, finishReason: 'stop' });
  });
});
