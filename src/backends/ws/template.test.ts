import { describe, expect, it } from 'vitest';
import { placeholderNames, render } from './template.js';

describe('request template', () => {
  const facts = { model: 'm', messages: [{ role: 'user', content: 'hi' }], prompt: 'hi', max_tokens: 7, request_id: '3' };
  it('a whole-string placeholder becomes the value with its JSON type; inside text it becomes text', () => {
    expect(render({ a: '{{messages}}', n: '{{ max_tokens }}', s: 'id-{{request_id}}/{{max_tokens}}', k: 1 }, facts)).toEqual({
      a: facts.messages,
      n: 7,
      s: 'id-3/7',
      k: 1,
    });
  });
  it('an absent value drops its key (or array element); inside text it is empty', () => {
    expect(render({ t: '{{temperature}}', xs: ['{{seed}}', 'x'], s: 'T={{temperature}}' }, facts)).toEqual({ xs: ['x'], s: 'T=' });
  });
  it('lists every placeholder used, at any depth', () => {
    expect([...placeholderNames([{ a: { b: ['{{prompt}} and {{model}}'] } }, { c: '{{nope}}' }])]).toEqual(['prompt', 'model', 'nope']);
  });
});
