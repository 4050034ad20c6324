// --reporter NAME: the CLI's built-in reporters by name; defaults unchanged, json = --json, an unknown name is exit 2.
import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import { chooseReporters, CLI_REPORTER_NAMES } from '../src/cli/reporters.js';
import { RUN_FLAGS } from '../src/config/schema.js';
import { builtInReporters } from '../src/lifecycle/lifecycle.js';
import { resolveRunConfig } from '../src/config/load.js';
import { capture } from './io-capture.js';
import { tmpDir } from './helpers.js';

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const cap = capture();
  const code = await main(args, cap.io);
  return { code, out: cap.out, err: cap.err };
}

const SIM = ['simulate', '--requests', '4', '--concurrency', '2', '--input-tokens', '16', '--output-tokens', '8'];

describe('--reporter', () => {
  it('combines: start lines once, every named display, the JSON document instead of the table; --quiet drops displays', () => {
    const q = { json: false, quiet: false };
    expect(chooseReporters(undefined, q)).toEqual({ start: true, displays: 'auto', end: 'table' });
    expect(chooseReporters(undefined, { json: true, quiet: false })).toEqual(chooseReporters('json', q));
    expect(chooseReporters(['progress', 'json'], q)).toEqual({ start: true, displays: ['progress'], end: 'json' });
    expect(chooseReporters('live,progress', { json: false, quiet: true })).toEqual({ start: true, displays: [], end: 'table' });
    expect(chooseReporters('silent', q)).toEqual({ start: false, displays: [], end: 'none' });
    expect(() => chooseReporters(['default', 'dots'], q)).toThrow(`--reporter: unknown kind "dots" (valid: ${CLI_REPORTER_NAMES.join(', ')})`);
  });

  it("the flag's help names every reporter", () => {
    for (const n of CLI_REPORTER_NAMES) expect((RUN_FLAGS as Record<string, { help: string }>).reporter.help).toContain(n);
  });

  it('simulate --reporter json prints the same document as --json; silent prints nothing and still writes the files', async () => {
    const a = await cli([...SIM, '--json', '--out', tmpDir()]);
    const b = await cli([...SIM, '--reporter', 'json', '--out', tmpDir()]);
    expect([a.code, b.code]).toEqual([0, 0]);
    const [ja, jb] = [JSON.parse(a.out), JSON.parse(b.out)];
    expect(Object.keys(jb)).toEqual(Object.keys(ja));
    expect(jb.requests).toEqual(ja.requests);
    const dir = tmpDir();
    const s = await cli([...SIM, '--reporter', 'silent', '--out', dir]);
    expect([s.code, s.out]).toEqual([0, '']);
    expect(existsSync(join(dir, 'summary.json'))).toBe(true);
  });

  it('an unknown reporter is a usage error (exit 2) listing the valid ones, before anything is sent', async () => {
    const r = await cli(['run', '--requests', '2', '--reporter', 'dots', '--out', tmpDir()]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`--reporter: unknown kind "dots" (valid: ${CLI_REPORTER_NAMES.join(', ')})`);
    expect(r.out).not.toContain('results in');
  });

  it('the lifecycle writes its files from one table: vllm-result only with --result-format vllm', () => {
    const names = (flags: Record<string, unknown>) => builtInReporters(resolveRunConfig({ flags, env: {} }).config).map((r) => r.name);
    const plain = names({});
    expect(names({ resultFormat: 'vllm' })).toEqual([...plain, expect.stringMatching(/vllm/)]);
    expect(plain.some((n) => /vllm/.test(n))).toBe(false);
  });
});
