import { describe, expect, it } from 'vitest';
import { wsClassifier } from './classify.js';
import { DEFAULT_WEBSOCKET, parseWebSocketConfig, type WebSocketConfigInput } from './config.js';

const build = (c: WebSocketConfigInput) => {
  const r = parseWebSocketConfig(c);
  if ('problems' in r) throw new Error(r.problems.join('; '));
  return wsClassifier(r.config);
};

describe('websocket message classification', () => {
  const sim = build(DEFAULT_WEBSOCKET);
  it('the embedded server protocol: role chunk, reasoning, answer, usage, done, ping, error', () => {
    expect(sim('{"choices":[{"delta":{"role":"assistant","content":""}}]}')).toMatchObject({ kind: 'r', done: false });
    expect(sim('{"choices":[{"delta":{"reasoning_content":"th"}}]}')).toMatchObject({ kind: 'R', reasoning: 'th' });
    expect(sim('{"choices":[{"delta":{"content":"a"}}]}')).toMatchObject({ kind: 'a', answer: 'a' });
    expect(sim('{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2}}')).toMatchObject({ kind: 'u', usage: { prompt_tokens: 3, completion_tokens: 2 } });
    expect(sim('{"type":"done"}')).toMatchObject({ kind: 'd', done: true });
    expect(sim('{"type":"ping"}')).toMatchObject({ kind: 'h', done: false, answer: '' });
    expect(sim('{"error":{"message":"boom"}}')).toMatchObject({ kind: 'e', error: 'boom', done: true });
    expect(sim('{"error":null,"choices":[{"delta":{"content":"b"}}]}')).toMatchObject({ kind: 'a' });
    expect(sim('nope')).toMatchObject({ kind: 'x', error: expect.stringMatching(/malformed JSON/) });
    expect(sim('{"something":"else"}')).toMatchObject({ kind: 'x', error: null });
  });
  it('conditions select by message type; a message can carry text and end the stream', () => {
    const rt = build({
      request: { type: 'go' },
      answer: { pointer: '/delta', when: { '/type': 'text' } },
      done: { pointer: '/final' },
      heartbeat: { when: { '/type': 'text', '/beat': true } },
    });
    expect(rt('{"type":"text","delta":"x"}')).toMatchObject({ kind: 'a', answer: 'x', done: false });
    expect(rt('{"type":"audio","delta":"x"}')).toMatchObject({ kind: 'x', answer: '' });
    expect(rt('{"type":"text","delta":"y","final":true}')).toMatchObject({ kind: 'a', answer: 'y', done: true });
    expect(rt('{"type":"text","final":false}')).toMatchObject({ kind: 'x', done: false });
    expect(rt('{"type":"text","beat":true,"delta":"z"}')).toMatchObject({ kind: 'h', answer: '' });
  });
  it('config problems name the key', () => {
    const r = parseWebSocketConfig({ request: [], answer: { when: { 'x': 1 } }, done: {} });
    expect('problems' in r && r.problems).toEqual(['websocket.request: expected at least one message']);
    const r2 = parseWebSocketConfig({ request: { a: 1 }, answer: { when: { x: 1 } }, done: {} });
    expect('problems' in r2 && r2.problems).toEqual([
      'websocket.answer.when: "x" is not a JSON pointer (RFC 6901: "" or starting with "/", e.g. /choices/0/delta/content)',
      'websocket.done: give a pointer, a when condition, or both',
    ]);
  });
});
