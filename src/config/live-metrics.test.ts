import { describe, expect, it } from 'vitest';
import { resolveRunConfig } from './load.js';
import { resolveSweepConfig } from '../sweep/config.js';
import { OUT_KIND_DEPRECATED, splitOutputs } from './live-metrics.js';
import { UsageError } from '../errors.js';

const URL_A = 'http://127.0.0.1:9090/api/v1/write';
const URL_B = 'https://user:pw@example.com/push';
const problems = (f: () => unknown): string[] => {
  try {
    f();
  } catch (e) {
    if (e instanceof UsageError) return e.problems;
    throw e;
  }
  return [];
};

describe('--push KIND=URL and the old --out KIND=URL', () => {
  it('--push (repeatable) gives the remote outputs; --out stays the results directory; no deprecation line', () => {
    const r = resolveRunConfig({ flags: { push: [`prometheus-rw=${URL_A}`, `prometheus-rw=${URL_B}`], out: '/tmp/x' }, env: {} });
    expect(r.config.outputs).toEqual([{ kind: 'prometheus-rw', url: URL_A }, { kind: 'prometheus-rw', url: URL_B }]);
    expect(r.config.out).toBe('/tmp/x');
    expect(r.notes).toBeUndefined();
    expect((r.config as { push?: unknown }).push).toBeUndefined();
  });

  it('--out prometheus-rw=URL is still read, with one deprecation line', () => {
    const r = resolveRunConfig({ flags: { out: ['/tmp/x', `prometheus-rw=${URL_A}`] }, env: {} });
    expect(r.config.outputs).toEqual([{ kind: 'prometheus-rw', url: URL_A }]);
    expect(r.config.out).toBe('/tmp/x');
    expect(r.notes).toEqual([OUT_KIND_DEPRECATED]);
    expect(OUT_KIND_DEPRECATED).toBe('--out prometheus-rw=URL is deprecated: use --push prometheus-rw=URL');
  });

  it('both spellings together: --push first, then the old ones', () => {
    expect(splitOutputs(`prometheus-rw=${URL_B}`, `prometheus-rw=${URL_A}`)).toEqual({ dir: undefined, outputs: [{ kind: 'prometheus-rw', url: URL_A }, { kind: 'prometheus-rw', url: URL_B }], problems: [], notes: [OUT_KIND_DEPRECATED] });
  });

  it('a --push value that is not KIND=URL, or names an unknown kind, is a usage error naming --push and the valid kinds', () => {
    expect(problems(() => resolveRunConfig({ flags: { push: ['/tmp/dir', `influxdb=${URL_A}`, 'prometheus-rw=ftp://x'] }, env: {} }))).toEqual([
      '--push: expected KIND=URL, e.g. prometheus-rw=http://host:9090/api/v1/write (valid kinds: prometheus-rw)',
      '--push: unknown kind "influxdb" (valid: prometheus-rw)',
      '--push: prometheus-rw=: expected an http:// or https:// URL, not ftp:',
    ]);
  });

  it('a sweep takes --push for the whole sweep (not into each point), and the old spelling with its note', () => {
    const a = resolveSweepConfig({ flags: { concurrency: '1,2' }, runFlags: { push: `prometheus-rw=${URL_A}` }, env: {} });
    expect(a.sweep.outputs).toEqual([{ kind: 'prometheus-rw', url: URL_A }]);
    expect(a.runFlags.push).toBeUndefined();
    expect(a.base.config.outputs).toEqual([]);
    expect(a.notes).not.toContain(OUT_KIND_DEPRECATED);
    const b = resolveSweepConfig({ flags: { concurrency: '1,2', out: `prometheus-rw=${URL_A}` }, runFlags: {}, env: {} });
    expect(b.sweep.outputs).toEqual([{ kind: 'prometheus-rw', url: URL_A }]);
    expect(b.notes).toContain(OUT_KIND_DEPRECATED);
  });
});
