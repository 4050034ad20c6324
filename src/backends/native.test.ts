// The native engine classifiers: which fields carry text, reasoning, counts, timings, the end and errors.
import { describe, it, expect } from 'vitest';
import { classifyOllama } from './ollama.js';
import { classifyLlamacpp, llamacpp } from './llamacpp.js';
import { classifyTgi, tgi } from './tgi.js';
import { classifyTriton, triton } from './triton.js';
import { errorEvent } from './native-common.js';
import { getBackend } from './registry.js';

const j = JSON.stringify;
const spec = { messages: [{ role: 'user' as const, content: 'hi' }], prompt: 'hi', inputTokens: 1, maxTokens: 7 };
const opts = { model: 'm', stream: true, ignoreEos: true, temperature: 0.5, seed: 3 };

describe('ollama', () => {
  it('answer in message.content (/api/chat) or response (/api/generate), reasoning in thinking', () => {
    expect(classifyOllama(j({ message: { content: 'a' }, done: false }))).toMatchObject({ kind: 'a', answer: 'a' });
    expect(classifyOllama(j({ response: 'b', done: false }))).toMatchObject({ kind: 'a', answer: 'b' });
    expect(classifyOllama(j({ message: { content: '', thinking: 't' }, done: false }))).toMatchObject({ kind: 'R', reasoning: 't' });
    expect(classifyOllama(j({ response: '', thinking: 't', done: false }))).toMatchObject({ kind: 'R', reasoning: 't' });
  });
  it('the done line: end of stream, counts as usage, ns durations as ms; garbage durations dropped', () => {
    const i = classifyOllama(j({ done: true, done_reason: 'stop', prompt_eval_count: 9, eval_count: 4, eval_duration: 2_500_000, load_duration: -1, total_duration: 'x' }));
    expect(i.kind).toBe('d');
    expect(i.finishReason).toBe('stop');
    expect(i.usage).toMatchObject({ prompt_tokens: 9, completion_tokens: 4 });
    expect(i.server).toEqual({ server_prompt_tokens: 9, server_eval_tokens: 4, server_eval_ms: 2.5 });
  });
  it('an error line, and a line that is not JSON', () => {
    expect(classifyOllama(j({ error: 'boom' }))).toMatchObject({ kind: 'e', error: 'boom' });
    expect(classifyOllama('{"done":')).toMatchObject({ kind: 'x', error: expect.stringContaining('malformed JSON') });
  });
  it('body: messages, options.num_predict and sampling under options; /api/chat and /api/generate', () => {
    expect(getBackend('ollama').buildBody(spec, opts)).toEqual({ model: 'm', stream: true, messages: spec.messages, options: { num_predict: 7, temperature: 0.5, seed: 3 } });
    expect(getBackend('ollama-generate').buildBody(spec, opts)).toMatchObject({ prompt: 'hi' });
    expect([getBackend('ollama').path, getBackend('ollama-generate').path, getBackend('ollama').framing]).toEqual(['/api/chat', '/api/generate', 'ndjson']);
  });
});

describe('llamacpp', () => {
  it('content per event; the stop event carries counts, stop type and timings', () => {
    expect(classifyLlamacpp(j({ content: 'x', stop: false }))).toMatchObject({ kind: 'a', answer: 'x' });
    const i = classifyLlamacpp(j({ content: '', stop: true, stop_type: 'limit', tokens_predicted: 4, tokens_evaluated: 10, timings: { prompt_n: 10, prompt_ms: 3.5, predicted_n: 4, predicted_ms: 40, predicted_per_second: 100 } }));
    expect(i).toMatchObject({ kind: 'u', finishReason: 'length', usage: { prompt_tokens: 10, completion_tokens: 4 } });
    expect(i.server).toEqual({ server_prompt_tokens: 10, server_prompt_eval_ms: 3.5, server_eval_tokens: 4, server_eval_ms: 40, server_predicted_per_s: 100 });
    expect(classifyLlamacpp(j({ content: '', stop: true, stop_type: 'eos' })).finishReason).toBe('stop');
  });
  it('body: prompt, n_predict, ignore_eos, cache_prompt', () => {
    expect(llamacpp.buildBody(spec, opts)).toEqual({ prompt: 'hi', n_predict: 7, stream: true, cache_prompt: true, temperature: 0.5, seed: 3, ignore_eos: true });
  });
});

describe('tgi', () => {
  it('token.text is answer text unless special; details on the last event', () => {
    expect(classifyTgi(j({ token: { text: 'x', special: false }, details: null }))).toMatchObject({ kind: 'a', answer: 'x' });
    const last = classifyTgi(j({ token: { text: '</s>', special: true }, generated_text: 'x', details: { finish_reason: 'eos_token', generated_tokens: 2, input_length: 5 } }));
    expect(last).toMatchObject({ kind: 'u', answer: '', finishReason: 'stop', usage: { prompt_tokens: 5, completion_tokens: 2 } });
    expect(last.server).toEqual({ server_prompt_tokens: 5, server_eval_tokens: 2 });
    expect(classifyTgi(j({ error: 'Input validation error', error_type: 'validation' }))).toMatchObject({ kind: 'e', error: 'Input validation error' });
  });
  it('body: inputs, parameters.max_new_tokens with details', () => {
    expect(tgi.buildBody(spec, opts)).toEqual({ inputs: 'hi', parameters: { max_new_tokens: 7, details: true, temperature: 0.5, seed: 3, do_sample: true }, stream: true });
  });
});

describe('triton', () => {
  it('text_output is answer text; no usage; the model is in the path', () => {
    expect(classifyTriton(j({ model_name: 'ensemble', text_output: 'x' }))).toMatchObject({ kind: 'a', answer: 'x', usage: null });
    expect(classifyTriton(j({ error: 'bad input' }))).toMatchObject({ kind: 'e', error: 'bad input' });
    expect(triton.pathFor!('my model/v1')).toBe('/v2/models/my%20model%2Fv1/generate_stream');
    expect(triton.buildBody(spec, opts)).toMatchObject({ text_input: 'hi', max_tokens: 7, stream: true, temperature: 0.5, random_seed: 3 });
  });
  it('an SSE `event: error` is an error whatever its shape', () => {
    expect(errorEvent('{"error":"x"}')).toMatchObject({ kind: 'e', error: 'x' });
    expect(errorEvent('plain')).toMatchObject({ kind: 'e', error: 'plain' });
  });
});
