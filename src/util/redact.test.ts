// The redactor and the secret/harmless header split.
import { describe, it, expect } from 'vitest';
import { createRedactor, redactFields, redactHeaders, redactKey, secretValues } from './redact.js';

describe('redactHeaders', () => {
  it('redacts every header but the harmless ones', () =>
    expect(
      redactHeaders({
        'X-Auth-Key': 'xauth-0123456789abcdef',
        'Portkey-Key': 'pk-short',
        'X-Subscription-Key': 'sub-0123456789abcdefgh',
        Authorization: 'Bearer gw-0123456789abcdefghij',
        'Content-Type': 'application/json',
        'User-Agent': 'me/1.0',
      }),
    ).toEqual({
      'X-Auth-Key': '...cdef',
      'Portkey-Key': '***',
      'X-Subscription-Key': '...efgh',
      Authorization: '...ghij',
      'Content-Type': 'application/json',
      'User-Agent': 'me/1.0',
    }));
});

describe('redactFields', () => {
  it('replaces credential-named fields at any depth, leaves the rest', () =>
    expect(redactFields({ api_key: 'a', nested: { access_token: 'b', password: 3, keep: 'c', list: [{ secret: 'd' }] }, max_tokens: 5, chat_template_kwargs: { enable_thinking: false } })).toEqual({
      api_key: '***',
      nested: { access_token: '***', password: '***', keep: 'c', list: [{ secret: '***' }] },
      max_tokens: 5,
      chat_template_kwargs: { enable_thinking: false },
    }));
});

describe('createRedactor', () => {
  const key = 'sk-proj-abcdefghijklmnopqrstuvwxyz';
  const values = secretValues({
    apiKey: key,
    headers: { Authorization: 'Bearer gateway-token-123456', 'X-Trace': 'short', 'Content-Type': 'application/json-but-long' },
    baseUrl: 'https://h/v1?api-key=url-secret-99',
    extraBody: { auth: { token: 'body-secret-77' } },
  });
  const redact = createRedactor(values);
  it('replaces every occurrence of each secret value, keeping an auth scheme', () => {
    expect(redact(`Incorrect API key provided: ${key}. Again: ${key}`)).toBe(`Incorrect API key provided: ${redactKey(key)}. Again: ${redactKey(key)}`);
    expect(redact('got Bearer gateway-token-123456')).toBe('got Bearer ...3456');
    expect(redact('url url-secret-99 body body-secret-77')).toBe('url *** body ***');
  });
  it('ignores harmless headers and values shorter than 8 characters', () => {
    expect(redact('short and application/json-but-long')).toBe('short and application/json-but-long');
    expect(createRedactor(['abc'])('abc abc')).toBe('abc abc');
  });
  it('partial echoes: any run of 12+ characters of a secret, URL-encoded and JSON-escaped forms', () => {
    expect(redact(`key ${key.slice(0, 20)}... was rejected`)).toBe('key ***... was rejected');
    expect(redact(`tail ${key.slice(-15)} end`)).toBe('tail *** end');
    expect(createRedactor(['p@ss/w+rd"quoted"'])(`q=${encodeURIComponent('p@ss/w+rd"quoted"')} j=${JSON.stringify('p@ss/w+rd"quoted"')}`)).toBe('q=*** j="***"');
    // A server's own mask keeps too little of the key to be redacted again, and short runs are kept.
    expect(redact('Incorrect API key provided: sk-proj-********************wxyz')).toBe('Incorrect API key provided: sk-proj-********************wxyz');
    expect(redact(`abcdefghijk is 11 characters of it`)).toBe('abcdefghijk is 11 characters of it');
  });
  it('longer secrets first: a secret inside another leaves nothing of the longer one', () =>
    expect(createRedactor(['12345678', 'xx12345678yy'])('xx12345678yy')).toBe('***'));
});
