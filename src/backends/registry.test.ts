// Backend registry: every kind resolves and builds its protocol's body; an unknown kind lists the valid ones.
import { describe, it, expect } from 'vitest';
import { BACKENDS, BACKEND_KINDS, backendForEndpoint, backendOf, getBackend } from './registry.js';
import { UsageError } from '../errors.js';
import type { RequestSpec } from '../dataset/types.js';

const spec: RequestSpec = { messages: [{ role: 'user', content: 'hi' }], prompt: 'hi', inputTokens: 1, maxTokens: 4, class: undefined } as RequestSpec;
const opts = { model: 'm', stream: true, ignoreEos: true, temperature: 0.5, seed: 3, extraBody: { x: 1 } };

describe('backend registry', () => {
  it('resolves each kind to a backend of that kind, with its path and endpoint', () => {
    expect(BACKEND_KINDS).toEqual(expect.arrayContaining(['openai-chat', 'openai-completions', 'openai-responses', 'anthropic-messages', 'ollama', 'ollama-generate', 'llamacpp', 'tgi', 'triton', 'custom-sse', 'custom-ndjson', 'websocket', 'embeddings', 'embeddings-tei', 'rerank', 'rerank-tei']));
    for (const k of BACKEND_KINDS) expect(getBackend(k).kind).toBe(k);
    expect(getBackend('openai-chat')).toMatchObject({ path: '/chat/completions', endpoint: 'chat' });
    expect(getBackend('openai-completions')).toMatchObject({ path: '/completions', endpoint: 'completions' });
    expect(getBackend('openai-responses')).toMatchObject({ path: '/responses', endpoint: 'chat' });
    expect(getBackend('anthropic-messages')).toMatchObject({ path: '/messages', endpoint: 'chat' });
    expect(getBackend('websocket')).toMatchObject({ path: '/ws', endpoint: 'chat' });
    expect(getBackend('embeddings')).toMatchObject({ path: '/embeddings', endpoint: 'completions' });
    expect(getBackend('embeddings-tei')).toMatchObject({ path: '/embed', endpoint: 'completions' });
    expect(getBackend('rerank')).toMatchObject({ path: '/rerank', endpoint: 'completions' });
    expect(getBackend('rerank-tei')).toMatchObject({ path: '/rerank', endpoint: 'completions' });
  });

  it('embeddings and rerank bodies carry --batch-size copies of the prompt in their API\'s field', () => {
    const o = { ...opts, batchSize: 2, extraBody: undefined };
    expect(BACKENDS.embeddings.buildBody(spec, o)).toEqual({ model: 'm', input: ['hi', 'hi'], encoding_format: 'float' });
    expect(BACKENDS['embeddings-tei'].buildBody(spec, o)).toEqual({ inputs: ['hi', 'hi'] });
    expect(BACKENDS.rerank.buildBody(spec, o)).toMatchObject({ model: 'm', documents: ['hi', 'hi'], return_documents: false });
    expect(BACKENDS['rerank-tei'].buildBody(spec, o)).toMatchObject({ texts: ['hi', 'hi'], raw_scores: false });
  });

  it('sends ignore_eos with --ignore-eos on every protocol that has it, and never for a graded item (spec.natural)', () => {
    const natural = { ...spec, natural: true } as RequestSpec;
    for (const k of ['openai-chat', 'openai-completions', 'openai-responses', 'anthropic-messages', 'llamacpp', 'websocket'] as const) {
      expect(BACKENDS[k].buildBody(spec, opts), k).toMatchObject({ ignore_eos: true });
      expect(BACKENDS[k].buildBody(natural, opts), k).not.toHaveProperty('ignore_eos');
      expect(BACKENDS[k].buildBody(natural, opts), k).not.toHaveProperty('min_tokens');
    }
  });

  it('answers an unknown kind with the valid ones (own keys only)', () => {
    for (const bad of ['grpc', 'constructor', '__proto__', ''])
      expect(() => getBackend(bad)).toThrow(new UsageError([`--backend: unknown kind "${bad}" (valid: ${BACKEND_KINDS.join(', ')})`]));
  });

  it('maps --endpoint to its backend, and --backend wins when given', () => {
    expect(backendForEndpoint('chat')).toBe('openai-chat');
    expect(backendForEndpoint('completions')).toBe('openai-completions');
    expect(backendOf({ endpoint: 'chat' })).toBe('openai-chat');
    expect(backendOf({ endpoint: 'completions', backend: 'openai-completions' })).toBe('openai-completions');
  });

  it('builds the same body except for the prompt: messages for chat, flat text for completions', () => {
    const chat = BACKENDS['openai-chat'].buildBody(spec, opts);
    const comp = BACKENDS['openai-completions'].buildBody(spec, opts);
    expect(Object.keys(chat)).toEqual(['model', 'max_tokens', 'stream', 'messages', 'stream_options', 'ignore_eos', 'min_tokens', 'temperature', 'seed', 'x']);
    expect(chat.messages).toEqual(spec.messages);
    expect(comp.prompt).toBe('hi');
    const { messages: _m, ...restChat } = chat;
    const { prompt: _p, ...restComp } = comp;
    expect(restComp).toEqual(restChat);
    expect(restChat).toMatchObject({ model: 'm', max_tokens: 4, min_tokens: 4, stream_options: { include_usage: true } });
  });

  it('classifies chat deltas and completions text alike', () => {
    for (const k of ['openai-chat', 'openai-completions']) {
      const b = getBackend(k);
      expect(b.classifyData('{"choices":[{"delta":{"content":"a"}}]}')).toMatchObject({ kind: 'a', answer: 'a' });
      expect(b.classifyData('{"choices":[{"text":"b"}]}')).toMatchObject({ kind: 'a', answer: 'b' });
      expect(b.classifyData('[DONE]').kind).toBe('d');
      expect(b.classifyErrorEvent('{"error":{"message":"boom"}}')).toMatchObject({ kind: 'e', error: 'boom' });
    }
  });
});
