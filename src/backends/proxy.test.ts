import { describe, expect, it } from 'vitest';
import { proxyFor, redactProxyUrl, isLoopback } from './proxy.js';

const P = 'http://proxy.example:3128';

describe('proxyFor (EnvHttpProxyAgent rules, loopback never proxied)', () => {
  it('picks HTTP_PROXY for http and HTTPS_PROXY (else HTTP_PROXY) for https; lowercase names win', () => {
    expect(proxyFor('http://llm.example/v1', { HTTP_PROXY: P })).toEqual({ uri: P, source: 'HTTP_PROXY' });
    expect(proxyFor('http://llm.example/v1', { HTTP_PROXY: P, http_proxy: 'http://low:1' })).toEqual({ uri: 'http://low:1', source: 'http_proxy' });
    expect(proxyFor('https://llm.example/v1', { HTTP_PROXY: P })?.source).toBe('HTTP_PROXY');
    expect(proxyFor('https://llm.example/v1', { HTTP_PROXY: P, HTTPS_PROXY: 'http://s:1' })?.source).toBe('HTTPS_PROXY');
    expect(proxyFor('http://llm.example/v1', { HTTPS_PROXY: P })).toBeNull();
    expect(proxyFor('http://llm.example/v1', {})).toBeNull();
  });

  it('honours NO_PROXY: hosts, subdomains, leading dot or *., ports, and *', () => {
    const env = (no: string) => ({ HTTP_PROXY: P, NO_PROXY: no });
    expect(proxyFor('http://llm.example/v1', env('llm.example'))).toBeNull();
    expect(proxyFor('http://a.llm.example/v1', env('.llm.example'))).toBeNull();
    expect(proxyFor('http://a.llm.example/v1', env('*.llm.example'))).toBeNull();
    expect(proxyFor('http://a.llm.example/v1', env('llm.example'))).toBeNull();
    expect(proxyFor('http://xllm.example/v1', env('llm.example'))).not.toBeNull();
    expect(proxyFor('http://llm.example:8000/v1', env('llm.example:9000'))).not.toBeNull();
    expect(proxyFor('http://llm.example:8000/v1', env('other, llm.example:8000'))).toBeNull();
    expect(proxyFor('http://llm.example/v1', env('*'))).toBeNull();
    expect(proxyFor('http://llm.example/v1', { HTTP_PROXY: P, no_proxy: 'llm.example', NO_PROXY: 'x' })).toBeNull();
  });

  it('never proxies loopback targets', () => {
    for (const u of ['http://127.0.0.1:8000/v1', 'http://127.1.2.3/v1', 'http://localhost:8000/v1', 'http://api.localhost/v1', 'http://[::1]:8000/v1'])
      expect(proxyFor(u, { HTTP_PROXY: P, HTTPS_PROXY: P }), u).toBeNull();
    expect(isLoopback('10.0.0.1')).toBe(false);
  });

  it('names the variable when its value is not a proxy URL, without printing credentials', () => {
    expect(() => proxyFor('http://llm.example/v1', { HTTP_PROXY: 'not a url' })).toThrow(/^HTTP_PROXY: "not a url" is not a URL/);
    expect(() => proxyFor('http://llm.example/v1', { HTTP_PROXY: 'ftp://p:1' })).toThrow(/^HTTP_PROXY: unsupported proxy protocol ftp:/);
  });

  it('redacts credentials', () => {
    expect(redactProxyUrl('http://user:s3cret@proxy.example:3128')).toBe('http://***:***@proxy.example:3128/');
    expect(redactProxyUrl('http://proxy.example:3128')).toBe('http://proxy.example:3128/');
  });
});
