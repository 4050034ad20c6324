// joinUrl, urlSecrets and redactUrl on the URL shapes users give.
import { describe, it, expect } from 'vitest';
import { joinUrl, redactUrl, urlSecrets } from './url.js';

describe('joinUrl', () => {
  it.each([
    ['http://h:1/v1', '/chat/completions', 'http://h:1/v1/chat/completions'],
    ['http://h:1/v1/', '/models', 'http://h:1/v1/models'],
    ['http://h:1', '/models', 'http://h:1/models'],
    ['https://r.openai.azure.com/openai/deployments/x?api-version=2024-06-01', '/chat/completions', 'https://r.openai.azure.com/openai/deployments/x/chat/completions?api-version=2024-06-01'],
    ['http://h/v1/?a=1&b=2/3', '/models', 'http://h/v1/models?a=1&b=2/3'],
    ['http://h/v1?', '/models', 'http://h/v1/models'],
    ['http://h/v1#frag', '/models', 'http://h/v1/models'],
    ['http://h/v1?a=1#frag', '/models', 'http://h/v1/models?a=1'],
  ])('%s + %s', (base, path, want) => expect(joinUrl(base, path)).toBe(want));
});

describe('credentials in a query', () => {
  const url = 'https://h/v1?api-version=2024-06-01&api-key=k%2Bey1234&key=abc&sig=s1g&X-Amz-Signature=aws&access_token=tok&max_tokens=5#f';
  it('redacts credential parameters only, keeping everything else as written', () =>
    expect(redactUrl(url)).toBe('https://h/v1?api-version=2024-06-01&api-key=***&key=***&sig=***&X-Amz-Signature=***&access_token=***&max_tokens=5#f'));
  it('lists their values, raw and decoded', () => expect(urlSecrets(url)).toEqual(['k%2Bey1234', 'k+ey1234', 'abc', 'abc', 's1g', 's1g', 'aws', 'aws', 'tok', 'tok']));
  it('leaves a URL without a query alone', () => {
    expect(redactUrl('http://h:1/v1')).toBe('http://h:1/v1');
    expect(urlSecrets('http://h:1/v1')).toEqual([]);
  });
});
