// The Responses backend: its body, and every streamed event type classified onto the record's event kinds.
import { describe, it, expect } from 'vitest';
import { classifyResponsesData, openaiResponses } from './openai-responses.js';
import type { RequestSpec } from '../dataset/types.js';

const spec = { messages: [{ role: 'system', content: 's' }, { role: 'user', content: 'hi' }], prompt: 'hi', inputTokens: 2, maxTokens: 7 } as RequestSpec;
const ev = (o: Record<string, unknown>) => classifyResponsesData(JSON.stringify(o));

describe('openai-responses backend', () => {
  it('posts /responses with the messages as input and max_output_tokens', () => {
    const b = openaiResponses.buildBody(spec, { model: 'm', stream: true, ignoreEos: false, temperature: 0.2 });
    expect(openaiResponses.path).toBe('/responses');
    expect(b).toEqual({ model: 'm', input: spec.messages, max_output_tokens: 7, stream: true, temperature: 0.2 });
    expect(openaiResponses.authHeaders).toBeUndefined(); // Authorization: Bearer, as for chat
  });

  it('classifies text and reasoning deltas, structural events, the end with usage, failures and keep-alives', () => {
    expect(ev({ type: 'response.output_text.delta', delta: 'Hi' })).toMatchObject({ kind: 'a', answer: 'Hi' });
    expect(ev({ type: 'response.reasoning_text.delta', delta: 'hm' })).toMatchObject({ kind: 'R', reasoning: 'hm' });
    expect(ev({ type: 'response.reasoning_summary_text.delta', delta: 'so' })).toMatchObject({ kind: 'R', reasoning: 'so' });
    expect(ev({ type: 'response.output_text.delta', delta: '' }).kind).toBe('r');
    for (const t of ['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added', 'response.output_text.done'])
      expect(ev({ type: t }).kind).toBe('r');
    const done = ev({ type: 'response.completed', response: { status: 'completed', usage: { input_tokens: 9, output_tokens: 5, input_tokens_details: { cached_tokens: 4 }, output_tokens_details: { reasoning_tokens: 2 } } } });
    expect(done).toMatchObject({ kind: 'd', finishReason: 'stop', usage: { prompt_tokens: 9, completion_tokens: 5, reasoning_tokens: 2, cached_tokens: 4 } });
    expect(ev({ type: 'response.completed', response: { status: 'completed', usage: null } })).toMatchObject({ kind: 'd', usage: null });
    expect(ev({ type: 'response.incomplete', response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } } })).toMatchObject({ kind: 'd', finishReason: 'length' });
    expect(ev({ type: 'response.failed', response: { error: { code: 'server_error', message: 'boom' } } })).toMatchObject({ kind: 'e', error: 'boom' });
    expect(ev({ type: 'error', code: 'rate_limit', message: 'slow down' })).toMatchObject({ kind: 'e', error: 'slow down' });
    expect(ev({ type: 'keepalive' }).kind).toBe('h');
    expect(classifyResponsesData('').kind).toBe('h');
    expect(classifyResponsesData('{"type":').error).toMatch(/malformed JSON/);
  });

  it('reads a whole non-streamed response: reasoning items and output_text', () => {
    const body = {
      object: 'response', status: 'completed',
      output: [{ type: 'reasoning', summary: [{ type: 'summary_text', text: 'why' }] }, { type: 'message', content: [{ type: 'output_text', text: 'Hello' }] }],
      usage: { input_tokens: 3, output_tokens: 4 },
    };
    expect(ev(body)).toMatchObject({ kind: 'a', answer: 'Hello', reasoning: 'why', usage: { prompt_tokens: 3, completion_tokens: 4 }, finishReason: 'stop' });
  });
});
